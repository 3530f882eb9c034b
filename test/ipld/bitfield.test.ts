/**
 * RLE+ bitfields against the test cases go-bitfield and ref-fvm publish:
 * filecoin-project/go-bitfield `rle/rleplus_test.go` (TestDecode, the Rust reference encoding) and
 * filecoin-project/ref-fvm `ipld/bitfield/src/rleplus/mod.rs` (the bit-by-bit decode cases, `iter_last`).
 */
import {
  BitField,
  bitFieldFromLotusJson,
  bitFieldKind,
  bitFieldToLotusJson,
  decodeBitField,
  encodeBitField,
} from '../../src/ipld/bitfield.js';
import { declareStruct, encodeCbor, kinds } from '../../src/types/index.js';
import { toHex } from '../../src/utils/bytes.js';

/** Packs bits least-significant first without trimming (ref-fvm's `BitWriter::finish_test`). */
function pack(bits: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    bytes[i >> 3] = (bytes[i >> 3] as number) | (bit << (i & 7));
  });
  return bytes;
}

const ones = (count: number) => BitField.of(Array.from({ length: count }, (_, i) => i));

test('go-bitfield TestDecode: the Rust reference encoding, both ways', () => {
  const set = [0, 2, 4, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27];
  const reference = Uint8Array.from([124, 71, 34, 2]);
  expect(encodeBitField(BitField.of(set))).toEqual(reference);
  expect([...decodeBitField(reference).values()]).toEqual(set.map(BigInt));
});

describe('ref-fvm rleplus decode cases', () => {
  const cases: [string, number[], BitField | string][] = [
    ['empty', [], BitField.EMPTY],
    ['incorrect version', [1, 0, 1, 0, 1, 0, 0, 0, 1], 'unsupported version'],
    ['a short run of 8', [0, 0, 1, 0, 1, 0, 0, 0, 1], ones(8)],
    ['1111 0 111', [0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0], BitField.of([0, 1, 2, 3, 5, 6, 7])],
    ['a varint run of 25', [0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0], ones(25)],
    ['trailing garbage after an empty short run', [0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1], 'not minimally encoded'],
    [
      'trailing garbage after an empty varint run',
      [0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
      'not minimally encoded',
    ],
    ['a last byte of zero', [0, 0, 1, 0, 1, 1, 0, 1, ...Array(8).fill(0)], 'not minimally encoded'],
    ['a valid varint run of 17', [0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], ones(17)],
    [
      'a varint that is not minimally encoded',
      [0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1],
      'invalid varint',
    ],
    [
      'a varint run of 2^64 − 1',
      [0, 0, 1, 0, 0, ...Array(8 * 9).fill(1), ...[1, 0, 0]],
      BitField.fromRuns([0n, (1n << 64n) - 1n]),
    ],
    [
      'a varint one past 2^64 − 1',
      [0, 0, 1, 0, 0, ...Array(9).fill([0, 0, 0, 0, 0, 0, 0, 1]).flat(), 0, 1, 0],
      'invalid varint',
    ],
    [
      'runs that overflow uint64 together',
      [
        ...[0, 0, 1, 0, 0],
        ...Array(8 * 8).fill(1),
        ...[1, 1, 1, 1, 1, 1, 1, 0],
        ...[0, 0],
        ...Array(8 * 8).fill(1),
        ...[1, 1, 1, 1, 1, 1, 1, 0],
        ...[0, 1, 0, 1, 0, 0],
      ],
      'more than 2^64',
    ],
    ['a varint run that fits a short run', [0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1], 'not minimally encoded'],
    ['a varint run that fits a single', [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1], 'not minimally encoded'],
    ['a short run that fits a single', [0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1], 'not minimally encoded'],
    ['a trailing run of zeros (single)', [0, 0, 0, 1], 'not minimally encoded'],
    ['a trailing run of zeros (short)', [0, 0, 0, 0, 1, 0, 0, 1, 0], 'not minimally encoded'],
    ['a run of ones then a trailing zero', [0, 0, 1, 0, 1, 0, 0, 1, 0, 1], 'not minimally encoded'],
    ['two trailing zeros', [0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0], 'not minimally encoded'],
  ];
  test.each(cases)('%s', (_name, bits, expected) => {
    const bytes = pack(bits);
    if (typeof expected === 'string') {
      expect(() => decodeBitField(bytes, 'Partition.Faults')).toThrow(`Partition.Faults: invalid RLE+ bitfield:`);
      expect(() => decodeBitField(bytes)).toThrow(expected);
    } else {
      expect(decodeBitField(bytes).equals(expected)).toBe(true);
    }
  });
});

test('ref-fvm iter_last: 2^64 − 2 set bits, the last one 2^64 − 2', () => {
  const bytes = Uint8Array.from([
    0xe4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x2f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
  ]);
  const field = decodeBitField(bytes);
  expect(field.ranges.at(-1)?.end).toBe(18446744073709551614n + 1n);
  expect(encodeBitField(field)).toEqual(bytes);
});

test('every run length shape round-trips byte for byte (go-bitfield TestAll8bit runs)', () => {
  const runs: bigint[] = [];
  for (let k = 1n; k < 64n; k++) {
    for (let i = 1; i < 7; i++) {
      for (let j = 0; j < i; j++) runs.push(1n);
      runs.push(k);
    }
  }
  for (let i = 3n; i < 256n; i++) runs.push(i);
  // go-bitfield's runs start with ones; ours with zeros, so a zero-length run of zeros goes first.
  const field = BitField.fromRuns([0n, ...runs]);
  const bytes = encodeBitField(field);
  const decoded = decodeBitField(bytes);
  expect(decoded.equals(field)).toBe(true);
  expect(encodeBitField(decoded)).toEqual(bytes);
  expect(decoded.size).toBe(field.size);
});

test('the empty set is no bytes, and a CBOR byte string 0x40', () => {
  expect(encodeBitField(BitField.EMPTY)).toEqual(new Uint8Array(0));
  expect(toHex(encodeCbor(bitFieldKind.toCbor(BitField.EMPTY, 'BitField')))).toBe('40');
});

test('Lotus JSON is the run lengths, starting with a run of zeros', () => {
  const field = BitField.of([0, 2, 4, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27]);
  expect(bitFieldToLotusJson(field)).toEqual([0, 1, 1, 1, 1, 3, 4, 17]);
  expect(bitFieldToLotusJson(BitField.of([5]))).toEqual([5, 1]);
  expect(bitFieldFromLotusJson([0, 1, 1, 1, 1, 3, 4, 17]).equals(field)).toBe(true);
  expect(bitFieldFromLotusJson(null).equals(BitField.EMPTY)).toBe(true);
  expect(() => bitFieldFromLotusJson([2, 0, 1], 'Params.Sectors')).toThrow('Params.Sectors[1]: a run after the first');
  expect(() => bitFieldFromLotusJson([-1], 'Params.Sectors')).toThrow('Params.Sectors[0]');
});

test('a declared struct carries a bitfield field: RLE+ bytes in CBOR, runs in JSON', () => {
  const partition = declareStruct('Partition', [
    { key: 'sectors', json: 'Sectors', kind: bitFieldKind },
    { key: 'count', json: 'Count', kind: kinds.uint64 },
  ]);
  const value = { sectors: BitField.of([0, 1, 2, 8, 9]), count: 5n };
  const decoded = partition.decode(partition.encode(value));
  expect(decoded.sectors.equals(value.sectors)).toBe(true);
  expect(partition.toLotusJson(value)).toEqual({ Sectors: [0, 3, 5, 2], Count: 5 });
  expect(() => partition.fromCborNode([7, 5])).toThrow('Partition.Sectors: expected bytes');
  expect(() => partition.fromCborNode([Uint8Array.from([0x01]), 5])).toThrow(
    'Partition.Sectors: invalid RLE+ bitfield: unsupported version',
  );
});

describe('set operations (ref-fvm ipld/bitfield `|`, `&`, `-`, cut, slice)', () => {
  const set = (...values: number[]) => BitField.of(values);
  const list = (bitField: BitField) => [...bitField.values()].map(Number);

  test('worked examples', () => {
    const a = set(0, 1, 2, 8, 9, 20);
    const b = set(2, 3, 9, 10, 30);
    expect(list(a.union(b))).toEqual([0, 1, 2, 3, 8, 9, 10, 20, 30]);
    expect(list(a.intersect(b))).toEqual([2, 9]);
    expect(list(a.subtract(b))).toEqual([0, 1, 8, 20]);
    expect(list(BitField.unionAll([a, b, set(4, 5)]))).toEqual([0, 1, 2, 3, 4, 5, 8, 9, 10, 20, 30]);
    expect(a.containsAll(set(0, 9, 20))).toBe(true);
    expect(a.containsAll(set(0, 3))).toBe(false);
    expect(a.containsAny(set(3, 20))).toBe(true);
    expect(a.containsAny(set(3, 4, 5))).toBe(false);
    expect([a.first(), a.last(), BitField.EMPTY.first(), BitField.EMPTY.last()]).toEqual([
      0n,
      20n,
      undefined,
      undefined,
    ]);
    expect(BitField.EMPTY.isEmpty()).toBe(true);
    // cut removes the bits of the other set and closes the gaps: {0,1,2,8,9,20} cut {1,8} → {0,1,7,18}.
    expect(list(a.cut(set(1, 8)))).toEqual([0, 1, 7, 18]);
    // Gaps closed by the cut merge ranges: {0,1,3,4} cut {2} → {0..3}.
    expect(set(0, 1, 3, 4).cut(set(2)).ranges).toEqual([{ start: 0n, end: 4n }]);
    expect(list(a.slice(2n, 3n))).toEqual([2, 8, 9]);
    expect(() => a.slice(4n, 3n)).toThrow('cannot slice 3 values after 4 from a set of 6');
    // Results are canonical: the union of adjacent ranges is one range and encodes as such.
    expect(toHex(encodeBitField(set(0, 1, 2).union(set(3, 4))))).toBe(toHex(encodeBitField(ones(5))));
  });

  test('agree with plain sets on pseudo-random inputs', () => {
    let seed = 20;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const randomSet = () => {
      const values: number[] = [];
      for (let i = 0, n = Math.floor(random() * 40); i < n; i++) values.push(Math.floor(random() * 64));
      return values;
    };
    const sorted = (values: Iterable<number>) => [...new Set(values)].sort((x, y) => x - y);
    for (let round = 0; round < 300; round++) {
      const x = randomSet();
      const y = randomSet();
      const a = BitField.of(x);
      const b = BitField.of(y);
      const inY = new Set(y);
      expect(list(a.union(b))).toEqual(sorted([...x, ...y]));
      expect(list(a.intersect(b))).toEqual(sorted(x.filter((v) => inY.has(v))));
      expect(list(a.subtract(b))).toEqual(sorted(x.filter((v) => !inY.has(v))));
      expect(a.containsAll(b)).toBe(y.every((v) => x.includes(v)));
      expect(a.containsAny(b)).toBe(y.some((v) => x.includes(v)));
      const cut = sorted(x.filter((v) => !inY.has(v))).map(
        (v) => v - y.filter((c, i) => c < v && y.indexOf(c) === i).length,
      );
      expect(list(a.cut(b))).toEqual(cut);
      for (const v of [0, 17, 63]) expect(a.has(BigInt(v))).toBe(x.includes(v));
    }
  });
});
