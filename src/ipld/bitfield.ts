/**
 * RLE+ bitfields: sets of unsigned 64-bit integers (sector numbers, partition indices) as Filecoin
 * writes them, byte for byte (filecoin-project/go-bitfield `rle/rleplus_writer.go`,
 * `rle/rleplus_reader.go`; filecoin-project/ref-fvm `ipld/bitfield/src/rleplus/`).
 *
 * The encoding is a bit stream packed least-significant bit first: the version `00`, the value of
 * the first run, then the length of each run, the runs alternating in value — `1` for a run of one,
 * `01` and four bits for 2 to 15, `00` and an unsigned varint for 16 or more. A final run of zeros is
 * not written, nor are trailing zero bytes; the empty set is no bytes. Decoding is as strict as
 * ref-fvm's: an encoding that is not the minimal one is refused, as builtin-actors refuses it.
 *
 * Hand-written rather than declared (types/struct.ts): a bitfield is a bit stream inside one CBOR
 * byte string, and its Lotus JSON is the list of run lengths, starting with a run of zeros.
 */
import { CborDecodeError } from '../types/cbor.js';
import { describeNode } from '../types/cbor-fields.js';
import type { CborNode } from '../types/cbor-node.js';
import { JsonDecodeError } from '../types/errors.js';
import { type JsonInteger, readJsonArray, readJsonUint64, toJsonInteger } from '../types/json.js';
import type { FieldKind } from '../types/struct.js';

/** ref-fvm `MAX_ENCODED_SIZE`: larger encodings are refused. */
export const MAX_BITFIELD_ENCODED_BYTES = 32 << 10;
const MAX_UINT64 = (1n << 64n) - 1n;
/** ref-fvm allows ten varint bytes, so a run can be as long as 2^64 − 1. */
const MAX_VARINT_BYTES = 10;

/** A half-open range of set bits, `[start, end)`. */
export interface BitRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** An immutable set of uint64 values, kept as sorted, disjoint, non-adjacent ranges. */
export class BitField {
  static readonly EMPTY = new BitField([]);
  readonly ranges: readonly BitRange[];

  private constructor(ranges: readonly BitRange[]) {
    this.ranges = ranges;
  }

  /** The set of `values` (any order, duplicates allowed). */
  static of(values: Iterable<bigint | number>): BitField {
    const sorted = [...new Set([...values].map((v) => BigInt(v)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const ranges: BitRange[] = [];
    for (const value of sorted) {
      if (value < 0n || value > MAX_UINT64) throw new RangeError(`bitfield value ${value} is not a uint64`);
      const last = ranges.at(-1);
      if (last !== undefined && last.end === value) ranges[ranges.length - 1] = { start: last.start, end: value + 1n };
      else ranges.push({ start: value, end: value + 1n });
    }
    return new BitField(ranges);
  }

  /** From run lengths that alternate in value, the first a run of zeros (Lotus JSON). */
  static fromRuns(runs: readonly bigint[]): BitField {
    const ranges: BitRange[] = [];
    let index = 0n;
    runs.forEach((length, i) => {
      if (i % 2 === 1 && length > 0n) ranges.push({ start: index, end: index + length });
      index += length;
    });
    if (index > MAX_UINT64) throw new RangeError('the runs cover more than 2^64 bits');
    return new BitField(ranges);
  }

  get size(): bigint {
    return this.ranges.reduce((sum, range) => sum + range.end - range.start, 0n);
  }

  has(value: bigint): boolean {
    // Binary search: the ranges are sorted and disjoint.
    let low = 0;
    let high = this.ranges.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const range = this.ranges[middle]!;
      if (value < range.start) high = middle;
      else if (value >= range.end) low = middle + 1;
      else return true;
    }
    return false;
  }

  *values(): IterableIterator<bigint> {
    for (const range of this.ranges) for (let v = range.start; v < range.end; v++) yield v;
  }

  /** Run lengths, alternating in value and starting with a run of zeros (0 when the set holds 0). */
  runs(): bigint[] {
    const runs: bigint[] = [];
    let index = 0n;
    for (const range of this.ranges) {
      runs.push(range.start - index, range.end - range.start);
      index = range.end;
    }
    return runs;
  }

  equals(other: BitField): boolean {
    return (
      this.ranges.length === other.ranges.length &&
      this.ranges.every((r, i) => r.start === other.ranges[i]?.start && r.end === other.ranges[i]?.end)
    );
  }

  // Set operations, as ref-fvm `ipld/bitfield` has them (`|`, `&`, `-`, `cut`, `slice` …), work on
  // the ranges: their cost grows with the number of runs, not of bits.

  isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  /** The smallest value, undefined when empty. */
  first(): bigint | undefined {
    return this.ranges[0]?.start;
  }

  /** The largest value, undefined when empty. */
  last(): bigint | undefined {
    const last = this.ranges.at(-1);
    return last === undefined ? undefined : last.end - 1n;
  }

  /** The values in this set or in `other`. */
  union(other: BitField): BitField {
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    return BitField.#fromSortedRanges(mergeSorted(this.ranges, other.ranges));
  }

  /** The union of every set in `sets` (ref-fvm `BitField::union`). */
  static unionAll(sets: Iterable<BitField>): BitField {
    let ranges: BitRange[] = [];
    for (const set of sets) if (!set.isEmpty()) ranges = mergeSorted(ranges, set.ranges);
    return BitField.#fromSortedRanges(ranges);
  }

  /** The values in both sets. */
  intersect(other: BitField): BitField {
    const ranges: BitRange[] = [];
    let i = 0;
    let j = 0;
    while (i < this.ranges.length && j < other.ranges.length) {
      const a = this.ranges[i]!;
      const b = other.ranges[j]!;
      // The overlap of the two ranges, if any: the later start to the earlier end.
      const start = maxBigInt(a.start, b.start);
      const end = minBigInt(a.end, b.end);
      if (start < end) ranges.push({ start, end });
      if (a.end < b.end) i++;
      else j++;
    }
    return new BitField(ranges);
  }

  /** The values in this set and not in `other`. */
  subtract(other: BitField): BitField {
    if (this.isEmpty() || other.isEmpty()) return this;
    const ranges: BitRange[] = [];
    let j = 0;
    for (const range of this.ranges) {
      let start = range.start;
      while (j < other.ranges.length && other.ranges[j]!.end <= start) j++;
      for (let k = j; k < other.ranges.length && other.ranges[k]!.start < range.end; k++) {
        const cut = other.ranges[k]!;
        if (cut.start > start) ranges.push({ start, end: cut.start });
        if (cut.end > start) start = cut.end;
      }
      if (start < range.end) ranges.push({ start, end: range.end });
    }
    return new BitField(ranges);
  }

  /** True when every value of `other` is in this set. */
  containsAll(other: BitField): boolean {
    return other.subtract(this).isEmpty();
  }

  /** True when some value of `other` is in this set. */
  containsAny(other: BitField): boolean {
    let i = 0;
    let j = 0;
    while (i < this.ranges.length && j < other.ranges.length) {
      const a = this.ranges[i]!;
      const b = other.ranges[j]!;
      if (a.start < b.end && b.start < a.end) return true;
      if (a.end < b.end) i++;
      else j++;
    }
    return false;
  }

  /**
   * Removes the values of `other` and shifts each remaining value down by the number of removed
   * values below it (ref-fvm `BitField::cut`): how partition indices are renumbered after compaction.
   */
  cut(other: BitField): BitField {
    const shifted: BitRange[] = [];
    let removedBelow = 0n;
    let j = 0;
    for (const range of this.subtract(other).ranges) {
      while (j < other.ranges.length && other.ranges[j]!.start < range.start) {
        removedBelow += other.ranges[j]!.end - other.ranges[j]!.start;
        j++;
      }
      shifted.push({ start: range.start - removedBelow, end: range.end - removedBelow });
    }
    return BitField.#fromSortedRanges(shifted);
  }

  /**
   * The `count` values that follow the first `skip` values, in order (ref-fvm `BitField::slice`);
   * a RangeError when the set holds fewer than `skip + count`.
   */
  slice(skip: bigint, count: bigint): BitField {
    const ranges: BitRange[] = [];
    let toSkip = skip;
    let toTake = count;
    for (const range of this.ranges) {
      if (toTake === 0n) break;
      const length = range.end - range.start;
      if (toSkip >= length) {
        toSkip -= length;
        continue;
      }
      const start = range.start + toSkip;
      const take = minBigInt(range.end - start, toTake);
      ranges.push({ start, end: start + take });
      toSkip = 0n;
      toTake -= take;
    }
    if (toTake > 0n) throw new RangeError(`cannot slice ${count} values after ${skip} from a set of ${this.size}`);
    return new BitField(ranges);
  }

  /** Sorted by start, possibly overlapping or adjacent: merged into the canonical form. */
  static #fromSortedRanges(ranges: readonly BitRange[]): BitField {
    const merged: BitRange[] = [];
    for (const range of ranges) {
      if (range.start >= range.end) continue;
      const last = merged.at(-1);
      if (last !== undefined && range.start <= last.end) {
        if (range.end > last.end) merged[merged.length - 1] = { start: last.start, end: range.end };
      } else {
        merged.push(range);
      }
    }
    return new BitField(merged);
  }
}

// Math.min and Math.max do not take bigints.
function minBigInt(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function maxBigInt(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** Two sorted range lists merged into one sorted by start (overlaps are left for the caller to merge). */
function mergeSorted(a: readonly BitRange[], b: readonly BitRange[]): BitRange[] {
  const out: BitRange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/** Bits written least-significant first into bytes. */
class BitWriter {
  readonly #bytes: number[] = [];
  #bit = 0;

  write(value: number, count: number): void {
    for (let i = 0; i < count; i++) {
      if (this.#bit % 8 === 0) this.#bytes.push(0);
      if ((value >> i) & 1)
        this.#bytes[this.#bytes.length - 1] = (this.#bytes.at(-1) as number) | (1 << (this.#bit % 8));
      this.#bit++;
    }
  }

  writeLength(length: bigint): void {
    if (length === 1n) {
      this.write(1, 1);
    } else if (length < 16n) {
      this.write(0b10, 2);
      this.write(Number(length), 4);
    } else {
      this.write(0, 2);
      let rest = length;
      do {
        const low = Number(rest & 0x7fn);
        rest >>= 7n;
        this.write(rest > 0n ? low | 0x80 : low, 8);
      } while (rest > 0n);
    }
  }

  finish(): Uint8Array {
    let end = this.#bytes.length;
    while (end > 0 && this.#bytes[end - 1] === 0) end--;
    return Uint8Array.from(this.#bytes.slice(0, end));
  }
}

export function encodeBitField(bitField: BitField): Uint8Array {
  const [first, ...rest] = bitField.ranges;
  if (first === undefined) return new Uint8Array(0);
  const writer = new BitWriter();
  writer.write(0, 2);
  if (first.start === 0n) {
    writer.write(1, 1);
  } else {
    writer.write(0, 1);
    writer.writeLength(first.start);
  }
  writer.writeLength(first.end - first.start);
  let index = first.end;
  for (const range of rest) {
    writer.writeLength(range.start - index);
    writer.writeLength(range.end - range.start);
    index = range.end;
  }
  return writer.finish();
}

/** Bits read least-significant first; past the end every bit is 0, as in ref-fvm's reader. */
class BitReader {
  readonly #bytes: Uint8Array;
  /** The position of the stream's last 1 bit (the last byte is never 0). */
  readonly #lastSetBit: number;
  #bit = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    const last = bytes.at(-1) ?? 0;
    this.#lastSetBit = bytes.length === 0 ? -1 : (bytes.length - 1) * 8 + (31 - Math.clz32(last));
  }

  read(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++, this.#bit++) {
      const byte = this.#bytes[this.#bit >> 3] ?? 0;
      value |= ((byte >> (this.#bit & 7)) & 1) << i;
    }
    return value;
  }

  hasMore(): boolean {
    return this.#bit <= this.#lastSetBit;
  }
}

function readLength(reader: BitReader, fail: (reason: string) => never): bigint {
  if (reader.read(1) === 1) return 1n;
  if (reader.read(1) === 1) {
    const length = reader.read(4);
    if (length < 2) fail(`a short run of ${length} is not minimally encoded`);
    return BigInt(length);
  }
  let length = 0n;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    const byte = reader.read(8);
    length |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) {
      if ((i === 9 && byte > 1) || (byte === 0 && i !== 0)) break;
      if (length < 16n) fail(`a varint run of ${length} is not minimally encoded`);
      return length;
    }
  }
  return fail('an invalid varint run length');
}

/** Decodes RLE+ bytes; `path` names the field in errors (`Partition.Faults: …`). */
export function decodeBitField(bytes: Uint8Array, path = 'BitField'): BitField {
  const fail = (reason: string): never => {
    throw new CborDecodeError(`${path}: invalid RLE+ bitfield: ${reason}`);
  };
  if (bytes.length > MAX_BITFIELD_ENCODED_BYTES) fail(`${bytes.length} bytes exceed ${MAX_BITFIELD_ENCODED_BYTES}`);
  if (bytes.at(-1) === 0) fail('a trailing zero byte (not minimally encoded)');
  const reader = new BitReader(bytes);
  if (reader.read(2) !== 0) fail('unsupported version');
  let ones = reader.read(1) === 1;
  const runs: bigint[] = ones ? [0n] : [];
  let total = 0n;
  while (reader.hasMore()) {
    const length = readLength(reader, fail);
    total += length;
    if (total > MAX_UINT64) fail('the runs cover more than 2^64 − 1 bits');
    runs.push(length);
    ones = !ones;
  }
  // The last run read was of zeros: a final run of zeros is never written.
  if (ones) fail('a trailing run of zeros (not minimally encoded)');
  return BitField.fromRuns(runs);
}

/** go-bitfield `rlepluslazy` RLE.MarshalJSON: the runs, and `[0]` for the empty set. */
export function bitFieldToLotusJson(bitField: BitField): JsonInteger[] {
  return bitField.isEmpty() ? [0] : bitField.runs().map(toJsonInteger);
}

export function bitFieldFromLotusJson(json: unknown, path = 'BitField'): BitField {
  const runs = readJsonArray(json, path, readJsonUint64);
  runs.forEach((length, i) => {
    if (i > 0 && length === 0n) throw new JsonDecodeError(`${path}[${i}]: a run after the first must not be empty`);
  });
  try {
    return BitField.fromRuns(runs);
  } catch (error) {
    throw new JsonDecodeError(`${path}: ${(error as Error).message}`);
  }
}

/** A bitfield field of a declared struct: RLE+ bytes in CBOR, run lengths in Lotus JSON. */
export const bitFieldKind: FieldKind<BitField, JsonInteger[]> = {
  toCbor: (value) => encodeBitField(value),
  fromCbor: (node: CborNode, path: string) => {
    if (!(node instanceof Uint8Array)) throw new CborDecodeError(`${path}: expected bytes, got ${describeNode(node)}`);
    return decodeBitField(node, path);
  },
  toJson: bitFieldToLotusJson,
  fromJson: bitFieldFromLotusJson,
  schema: {
    title: 'BitField',
    type: 'array',
    items: { type: 'integer', minimum: 0 },
    description: 'RLE+ run lengths, alternating, starting with a run of zeros',
  },
};
