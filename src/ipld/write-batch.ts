import type { CID } from '../types/cid.js';
import type { Block, Blockstore } from './blockstore.js';
import { cidKey } from './memory-blockstore.js';

/**
 * Stages writes in memory over another blockstore: reads see staged blocks first, `commit` hands
 * them all to the backing store in one `putMany` (one transaction on SQLite), `discard` drops
 * them. A state write built in a batch lands completely or not at all, even across awaits.
 */
export class WriteBatch implements Blockstore {
  readonly #backing: Blockstore;
  readonly #staged = new Map<string, Block>();

  constructor(backing: Blockstore) {
    this.#backing = backing;
  }

  /** Number of staged blocks. */
  get size(): number {
    return this.#staged.size;
  }

  get(cid: CID): Uint8Array | undefined {
    return this.#staged.get(cidKey(cid))?.bytes ?? this.#backing.get(cid);
  }

  has(cid: CID): boolean {
    return this.#staged.has(cidKey(cid)) || this.#backing.has(cid);
  }

  put(cid: CID, bytes: Uint8Array): void {
    this.#staged.set(cidKey(cid), { cid, bytes });
  }

  putMany(blocks: Iterable<Block>): void {
    const staged = Array.from(blocks, (block) => [cidKey(block.cid), block] as const);
    for (const [key, block] of staged) this.#staged.set(key, block);
  }

  /** Writes every staged block atomically; on failure they stay staged. */
  commit(): void {
    this.#backing.putMany(this.#staged.values());
    this.#staged.clear();
  }

  discard(): void {
    this.#staged.clear();
  }
}
