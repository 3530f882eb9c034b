/**
 * A read-through cache of blocks for gas estimation. Every estimate loads a fresh state tree (it
 * mutates it and throws it away), so without a cache each one re-reads the same HAMT nodes and
 * actor states from SQLite. Blocks are immutable by CID, so cached bytes never go stale.
 */
import type { CID } from 'multiformats/cid';
import type { Block, Blockstore } from '../ipld/index.js';
import { byteKey } from '../state/index.js';
import { LruCache } from '../utils/lru-cache.js';

/** Blocks kept: a few head states' worth of the nodes estimation touches. */
const CACHED_BLOCKS = 20_000;

export class CachedBlockstore implements Blockstore {
  readonly #base: Blockstore;
  readonly #cache = new LruCache<string, Uint8Array>(CACHED_BLOCKS);

  constructor(base: Blockstore) {
    this.#base = base;
  }

  get(cid: CID): Uint8Array | undefined {
    const key = byteKey(cid.bytes);
    let bytes = this.#cache.get(key);
    if (bytes === undefined) {
      bytes = this.#base.get(cid);
      if (bytes !== undefined) this.#cache.set(key, bytes);
    }
    return bytes;
  }

  has(cid: CID): boolean {
    return this.#cache.has(byteKey(cid.bytes)) || this.#base.has(cid);
  }

  put(cid: CID, bytes: Uint8Array): void {
    this.#base.put(cid, bytes);
  }

  putMany(blocks: Iterable<Block>): void {
    this.#base.putMany(blocks);
  }
}
