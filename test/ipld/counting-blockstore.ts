import type { Block, Blockstore } from '../../src/ipld/index.js';
import { MemoryBlockstore } from '../../src/ipld/index.js';
import type { CID } from '../../src/types/cid.js';

/** A memory blockstore that counts reads and writes, to check caching and dirty-only flushes. */
export class CountingBlockstore implements Blockstore {
  readonly inner = new MemoryBlockstore();
  gets = 0;
  puts = 0;

  get(cid: CID): Uint8Array | undefined {
    this.gets++;
    return this.inner.get(cid);
  }

  has(cid: CID): boolean {
    return this.inner.has(cid);
  }

  put(cid: CID, bytes: Uint8Array): void {
    this.puts++;
    this.inner.put(cid, bytes);
  }

  putMany(blocks: Iterable<Block>): void {
    for (const { cid, bytes } of blocks) this.put(cid, bytes);
  }

  reset(): void {
    this.gets = 0;
    this.puts = 0;
  }
}
