/**
 * A visited set for walks over whole chains. It lives in memory (`CidTable`) while it is small,
 * which covers a minimal snapshot's state; past that it moves to a `DiskCidSet` (a temporary
 * SQLite file, so memory stays bounded on any chain) and the table stays in front of it as a
 * bounded memory of recent answers. A chain's state trees share most of their blocks, so a walk
 * asks about the same links again and again; those repeats never reach the database.
 */
import { DiskCidSet } from '../../db/index.js';
import { byteKey } from '../../state/index.js';
import { CidTable } from './cid-table.js';

/** CIDs kept in memory: all of them up to this many, then two generations of recent ones (~12 MiB each). */
const IN_MEMORY = 1 << 18;
const MEMBER = 1;

export class VisitedCids {
  readonly #memory: CidTable;
  readonly #othersLimit: number;
  /** Made when the memory is full, or for a CID of another shape than the table keeps. */
  #disk: DiskCidSet | undefined;
  /** Whether the table's CIDs went to disk (the table forgets from then on). */
  #spilled = false;
  /**
   * CIDs of other shapes — mostly identity CIDs (actor code CIDs), which every actor links to —
   * until there are too many of them; undefined once they went to disk.
   */
  #others: Set<string> | undefined = new Set();

  /** `inMemory`: how many chain CIDs stay in memory before the set moves to disk. */
  constructor(inMemory = IN_MEMORY) {
    this.#memory = new CidTable(inMemory);
    this.#othersLimit = Math.max(1, inMemory >> 4);
  }

  /** Adds the CID at `bytes[start..end]` (all of `bytes` by default); true when it was not in the set yet. */
  visit(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
    if (!CidTable.fits(end - start)) return this.#visitOther(bytes.subarray(start, end));
    if (this.#memory.get(bytes, start) === MEMBER) return false;
    if (!this.#spilled && this.#memory.full) {
      // From now on the table forgets: everything it holds goes to disk first.
      const disk = this.#onDisk();
      this.#memory.forEachKey((cid) => disk.visitBytes(cid));
      this.#spilled = true;
    }
    // Before the spill the table knows every CID of its shape: one it does not hold is new.
    const added = this.#spilled ? this.#onDisk().visitBytes(bytes.subarray(start, end)) : true;
    this.#memory.set(bytes, start, MEMBER);
    return added;
  }

  close(): void {
    this.#disk?.close();
  }

  #visitOther(cid: Uint8Array): boolean {
    const others = this.#others;
    if (others === undefined) return this.#onDisk().visitBytes(cid);
    const key = byteKey(cid);
    if (others.has(key)) return false;
    others.add(key);
    if (others.size > this.#othersLimit) {
      const disk = this.#onDisk();
      for (const other of others) disk.visitBytes(Buffer.from(other, 'latin1'));
      this.#others = undefined;
    }
    return true;
  }

  #onDisk(): DiskCidSet {
    this.#disk ??= new DiskCidSet();
    return this.#disk;
  }
}
