/**
 * Holds every block written while state is being computed, in memory, over a backing store. Only
 * `flush(roots)` writes to the backing store, in one `putMany` (one SQLite transaction), and it
 * writes only the buffered blocks reachable from the roots: what reverted calls and superseded
 * intermediate HAMT nodes wrote is dropped (as the FVM's buffered blockstore does). Until then
 * nothing reaches the backing store, so a failure part-way through a tipset leaves it untouched.
 */
import type { CID } from 'multiformats/cid';
import type { Block, Blockstore } from '../ipld/index.js';
import { blockLinks } from './links.js';

function cidKey(cid: CID): string {
  const bytes = cid.bytes;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

export class BufferedBlockstore implements Blockstore {
  readonly backing: Blockstore;
  readonly #staged = new Map<string, Block>();

  constructor(backing: Blockstore) {
    this.backing = backing;
  }

  /** Number of buffered blocks. */
  get size(): number {
    return this.#staged.size;
  }

  get(cid: CID): Uint8Array | undefined {
    return this.#staged.get(cidKey(cid))?.bytes ?? this.backing.get(cid);
  }

  has(cid: CID): boolean {
    return this.#staged.has(cidKey(cid)) || this.backing.has(cid);
  }

  put(cid: CID, bytes: Uint8Array): void {
    this.#staged.set(cidKey(cid), { cid, bytes });
  }

  putMany(blocks: Iterable<Block>): void {
    for (const block of blocks) this.#staged.set(cidKey(block.cid), block);
  }

  /**
   * Writes the buffered blocks reachable from `roots` (following links through buffered blocks
   * only: anything else is already in the backing store) in one `putMany`, then empties the buffer.
   * Returns the number of blocks written.
   */
  flush(roots: readonly CID[]): number {
    const reachable: Block[] = [];
    const visited = new Set<string>();
    const pending = [...roots];
    for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
      const key = cidKey(cid);
      const block = this.#staged.get(key);
      if (block === undefined || visited.has(key)) continue;
      visited.add(key);
      reachable.push(block);
      for (const link of blockLinks(cid, block.bytes)) pending.push(link);
    }
    this.backing.putMany(reachable);
    this.#staged.clear();
    return reachable.length;
  }

  /** Drops every buffered block. */
  discard(): void {
    this.#staged.clear();
  }
}
