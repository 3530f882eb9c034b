/**
 * A bounded set of recently seen CIDs, each with one small number, for the bulk walks' hottest
 * question ("seen this link?", asked about a million times per 20,000 blocks of state: each new
 * HAMT node links to the 31 unchanged children of the node it replaces). Keys are the CID bytes
 * read in place (no string, no object per lookup), kept in two generations: when the newer one
 * fills up the older one is dropped, so memory stays fixed whatever the chain's size.
 *
 * Only CIDs of the chain's 38-byte shape are kept (v1, a one-byte codec, blake2b-256: DAG-CBOR and
 * raw blocks); callers keep the rare others elsewhere.
 */
import { randomInt } from 'node:crypto';
import { CHAIN_CID_BYTES as TABLE_CID_BYTES } from './cid-bytes.js';

/** Bytes 6.. of such a CID are the digest: uniformly random, a good hash already. */
const DIGEST_AT = 6;

class Generation {
  readonly keys: Uint8Array;
  readonly values: Uint8Array;
  /** Open addressing: entry index + 1, 0 for an empty slot; twice the entries, a power of two. */
  readonly slots: Int32Array;
  readonly mask: number;
  count = 0;

  constructor(readonly capacity: number) {
    this.keys = new Uint8Array(capacity * TABLE_CID_BYTES);
    this.values = new Uint8Array(capacity);
    let size = 1;
    while (size < capacity * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
  }

  /** The slot holding the key, or the empty slot where it would go. */
  slotOf(bytes: Uint8Array, at: number, hash: number): number {
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot]!;
      if (entry === 0 || this.matches(entry - 1, bytes, at)) return slot;
    }
  }

  matches(entry: number, bytes: Uint8Array, at: number): boolean {
    const base = entry * TABLE_CID_BYTES;
    // The digest's end first: unequal keys almost always differ there.
    for (let i = TABLE_CID_BYTES - 1; i >= 0; i--) if (this.keys[base + i] !== bytes[at + i]) return false;
    return true;
  }

  clear(): void {
    this.slots.fill(0);
    this.count = 0;
  }
}

export class CidTable {
  readonly #capacity: number;
  #newer: Generation;
  /** Made at the first turnover: untouched memory is not spent on a walk that never needs it. */
  #older: Generation | undefined;
  readonly #seedA = randomInt(2 ** 31);
  readonly #seedB = randomInt(2 ** 31);

  /** Remembers at least `capacity` and at most twice as many CIDs. */
  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#newer = new Generation(capacity);
  }

  /** True until a generation was dropped: then every CID `set` so far is still remembered. */
  get complete(): boolean {
    return this.#older === undefined;
  }

  /** Whether the next `set` of a new CID would drop a generation. */
  get full(): boolean {
    return this.#newer.count === this.#newer.capacity;
  }

  /** Calls `visit` with each CID of the newer generation (every CID while `complete`). */
  forEachKey(visit: (cid: Uint8Array) => void): void {
    const { keys, count } = this.#newer;
    for (let entry = 0; entry < count; entry++) {
      visit(keys.subarray(entry * TABLE_CID_BYTES, (entry + 1) * TABLE_CID_BYTES));
    }
  }

  /** Whether the CID at `bytes[at .. at + length]` can be kept here. */
  static fits(length: number): boolean {
    return length === TABLE_CID_BYTES;
  }

  /** The value kept for the 38-byte CID at `bytes[at..]`, or -1 when it is not remembered. */
  get(bytes: Uint8Array, at: number): number {
    const hash = this.#hash(bytes, at);
    const newer = this.#newer;
    const entry = newer.slots[newer.slotOf(bytes, at, hash)]!;
    if (entry !== 0) return newer.values[entry - 1]!;
    const older = this.#older;
    if (older === undefined) return -1;
    const old = older.slots[older.slotOf(bytes, at, hash)]!;
    if (old === 0) return -1;
    // Still in use: carried into the newer generation, so it outlives the next turnover.
    const value = older.values[old - 1]!;
    this.set(bytes, at, value);
    return value;
  }

  /** Remembers the 38-byte CID at `bytes[at..]` with `value` (0–255). */
  set(bytes: Uint8Array, at: number, value: number): void {
    const hash = this.#hash(bytes, at);
    let generation = this.#newer;
    let slot = generation.slotOf(bytes, at, hash);
    if (generation.slots[slot] === 0 && generation.count === generation.capacity) {
      const dropped = this.#older ?? new Generation(this.#capacity);
      dropped.clear();
      this.#older = generation;
      this.#newer = dropped;
      generation = dropped;
      slot = generation.slotOf(bytes, at, hash);
    }
    let entry = generation.slots[slot]!;
    if (entry === 0) {
      entry = ++generation.count;
      generation.slots[slot] = entry;
      generation.keys.set(bytes.subarray(at, at + TABLE_CID_BYTES), (entry - 1) * TABLE_CID_BYTES);
    }
    generation.values[entry - 1] = value;
  }

  /** Mixes two digest words with this table's random seeds: a file cannot choose CIDs that collide here. */
  #hash(bytes: Uint8Array, at: number): number {
    const i = at + DIGEST_AT;
    const a = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) ^ this.#seedA;
    const b = (bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24)) ^ this.#seedB;
    return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b ^ (a >>> 15), 0x85ebca77)) >>> 0;
  }
}
