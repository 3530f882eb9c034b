import type { CID } from '../types/cid.js';
import type { Block, Blockstore } from './blockstore.js';

/** Binary CID as a latin1 string: a Map key ten times cheaper to build than `cid.toString()`. */
export function cidKey(cid: CID): string {
  const bytes = cid.bytes;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** A blockstore in a Map: tests, devnets, and staging blocks before they are persisted. */
export class MemoryBlockstore implements Blockstore {
  readonly #blocks = new Map<string, Uint8Array>();

  get size(): number {
    return this.#blocks.size;
  }

  get(cid: CID): Uint8Array | undefined {
    return this.#blocks.get(cidKey(cid));
  }

  has(cid: CID): boolean {
    return this.#blocks.has(cidKey(cid));
  }

  put(cid: CID, bytes: Uint8Array): void {
    this.#blocks.set(cidKey(cid), bytes);
  }

  putMany(blocks: Iterable<Block>): void {
    // Staged first so that a source failing half-way leaves the store untouched.
    const staged = Array.from(blocks, ({ cid, bytes }) => [cidKey(cid), bytes] as const);
    for (const [key, bytes] of staged) this.#blocks.set(key, bytes);
  }
}
