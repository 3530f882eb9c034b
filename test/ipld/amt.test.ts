import fc from 'fast-check';
import {
  Amt,
  type AmtOptions,
  BlockNotFoundError,
  buildAmt,
  MAX_AMT_INDEX,
  MalformedNodeError,
  MemoryBlockstore,
  putCbor,
} from '../../src/ipld/index.js';
import { decodeCbor, encodeCbor } from '../../src/types/cbor.js';
import { toHex } from '../../src/utils/bytes.js';
import { CountingBlockstore } from './counting-blockstore.js';

const EMPTY_V3_BW3 = 'bafy2bzacedijw74yui7otvo63nfl3hdq2vdzuy7wx2tnptwed6zml4vvz7wee';
const EMPTY_V0 = 'bafy2bzacedswlcz5ddgqnyo3sak3jmhmkxashisnlpq6ujgyhe4mlobzpnhs6';
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const value = (i: number | bigint) => `v${i}`;

describe('Amt', () => {
  test('empty roots match go-amt-ipld for v3 and legacy v0', () => {
    const store = new MemoryBlockstore();
    const v3 = Amt.create(store).flush();
    expect(v3.toString()).toBe(EMPTY_V3_BW3);
    expect(decodeCbor(store.get(v3)!)).toEqual([3, 0, 0, [new Uint8Array([0]), [], []]]);
    const v0 = Amt.create(store, { version: 'v0' }).flush();
    expect(v0.toString()).toBe(EMPTY_V0);
    expect(toHex(store.get(v0)!)).toBe('8300008341008080');
    expect(buildAmt(store, [], { version: 'v0' }).toString()).toBe(EMPTY_V0);
    expect(buildAmt(store, []).toString()).toBe(EMPTY_V3_BW3);
    // Wider nodes carry a wider bmap: 32 slots → 4 bytes.
    const bw5 = Amt.create(store, { bitWidth: 5 }).flush();
    expect(decodeCbor(store.get(bw5)!)).toEqual([5, 0, 0, [new Uint8Array(4), [], []]]);
  });

  test('height grows to the minimum the largest index needs', () => {
    const amt = Amt.create(new MemoryBlockstore());
    const expectations: [number | bigint, number][] = [
      [0, 0],
      [7, 0],
      [8, 1],
      [63, 1],
      [64, 2],
      [511, 2],
      [512, 3],
      [2n ** 63n, 21],
      [MAX_AMT_INDEX, 21],
    ];
    for (const [index, height] of expectations) {
      amt.set(index, value(index));
      expect(amt.height).toBe(height);
    }
    const wide = Amt.create(new MemoryBlockstore(), { bitWidth: 5 });
    wide.set(31, 'a');
    expect(wide.height).toBe(0);
    wide.set(32, 'b');
    expect(wide.height).toBe(1);
    wide.set(1024, 'c');
    expect(wide.height).toBe(2);
  });

  test('height shrinks back when only the first slot of the root remains', () => {
    const store = new MemoryBlockstore();
    const small = Amt.create(store);
    for (const i of [0, 3, 5]) small.set(i, value(i));
    const smallRoot = small.flush();

    const amt = Amt.load(store, smallRoot);
    amt.set(100, 'far');
    amt.set(MAX_AMT_INDEX, 'farthest');
    expect(amt.height).toBe(21);
    amt.flush();
    expect(amt.delete(MAX_AMT_INDEX)).toBe(true);
    expect(amt.height).toBe(2);
    expect(amt.delete(100)).toBe(true);
    expect(amt.height).toBe(0);
    expect(amt.flush().toString()).toBe(smallRoot.toString());

    for (const i of [0, 3, 5]) amt.delete(i);
    expect(amt.count).toBe(0);
    expect(amt.flush().toString()).toBe(EMPTY_V3_BW3);
  });

  test('a deleted middle index keeps the height; deleting the last one of a subtree prunes it', () => {
    const amt = Amt.create(new MemoryBlockstore());
    for (const i of [1, 20, 70]) amt.set(i, value(i));
    expect(amt.height).toBe(2);
    expect(amt.delete(20)).toBe(true);
    expect(amt.height).toBe(2);
    expect(amt.delete(20)).toBe(false);
    expect(amt.delete(1000)).toBe(false); // beyond the current height
    const reference = Amt.create(new MemoryBlockstore());
    for (const i of [1, 70]) reference.set(i, value(i));
    expect(amt.flush().toString()).toBe(reference.flush().toString());
  });

  test('large and sparse indices: number and bigint address the same slot, entries come in index order', () => {
    const store = new MemoryBlockstore();
    const amt = Amt.create(store);
    const indices = [0n, 9n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 63n, MAX_AMT_INDEX];
    for (const i of [...indices].reverse()) amt.set(i, value(i));
    expect(amt.get(2 ** 32)).toBe(value(2n ** 32n));
    amt.set(Number.MAX_SAFE_INTEGER, 'as a number');
    expect(amt.get(2n ** 53n - 1n)).toBe('as a number');
    expect(amt.count).toBe(indices.length);
    const reloaded = Amt.load(store, amt.flush());
    expect([...reloaded.entries()].map(([i]) => i)).toEqual(indices);
    expect(reloaded.get(MAX_AMT_INDEX)).toBe(value(MAX_AMT_INDEX));
    expect(reloaded.get(2n ** 53n + 1n)).toBe(value(2n ** 53n + 1n));
    expect(reloaded.get(2n ** 53n)).toBeUndefined();
    expect(reloaded.has(12345)).toBe(false);
  });

  test('indices outside 0 … 2^64 − 2 are refused', () => {
    const amt = Amt.create(new MemoryBlockstore());
    for (const bad of [2n ** 64n - 1n, -1n, -1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => amt.set(bad, 'x')).toThrow(expect.objectContaining({ code: 'ERR_AMT_INDEX_OUT_OF_RANGE' }));
      expect(() => amt.get(bad)).toThrow(expect.objectContaining({ code: 'ERR_AMT_INDEX_OUT_OF_RANGE' }));
    }
    expect(() => amt.set(1, undefined)).toThrow(/undefined/);
  });

  const configurations: [string, AmtOptions][] = [
    ['v3 bit width 3', {}],
    ['v3 bit width 5', { bitWidth: 5 }],
    ['v3 bit width 1', { bitWidth: 1 }],
    ['v0', { version: 'v0' }],
  ];
  test.each(configurations)('%s: any order of sets gives the buildAmt root', (_name, options) => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 300, 513)
          .chain((n) => fc.shuffledSubarray(range(n), { minLength: n, maxLength: n })),
        (order) => {
          const amt = Amt.create(new MemoryBlockstore(), options);
          for (const i of order) amt.set(i, value(i));
          const values = range(order.length).map(value);
          expect(amt.count).toBe(order.length);
          expect(amt.flush().toString()).toBe(buildAmt(new MemoryBlockstore(), values, options).toString());
          expect([...amt.values()]).toEqual(values);
        },
      ),
      { seed: 20261122, numRuns: 30 },
    );
  });

  test('values can be read and written as their DAG-CBOR bytes', () => {
    const store = new MemoryBlockstore();
    const amt = Amt.create(store);
    const encoded = encodeCbor([0, new Uint8Array(), 412268]);
    amt.setBytes(3, encoded);
    expect(amt.getBytes(3)).toBe(encoded);
    expect(amt.get(3)).toEqual([0, new Uint8Array(), 412268]);
    expect(amt.getBytes(4)).toBeUndefined();
    expect(toHex(Amt.load(store, amt.flush()).getBytes(3)!)).toBe(toHex(encoded));
    expect(() => amt.setBytes(5, new Uint8Array([0x18, 0x01]))).toThrow(/non-minimal/);
    expect(() => amt.setBytes(2n ** 64n, encoded)).toThrow(
      expect.objectContaining({ code: 'ERR_AMT_INDEX_OUT_OF_RANGE' }),
    );
    expect(() => buildAmt(store, [1, undefined])).toThrow(/index 1: undefined/);
  });

  test('count follows inserts, replacements and deletes', () => {
    const amt = Amt.create(new MemoryBlockstore());
    amt.set(5, 'a');
    amt.set(5, 'b');
    amt.set(6, 'c');
    expect(amt.count).toBe(2);
    expect(amt.delete(5)).toBe(true);
    expect(amt.delete(5)).toBe(false);
    expect(amt.count).toBe(1);
    expect(amt.get(6)).toBe('c');
  });

  test('loaded nodes are cached and a flush writes only the dirty path', () => {
    const store = new CountingBlockstore();
    const root = buildAmt(store, range(10_000).map(value));
    const nodeCount = store.puts;
    store.reset();

    const amt = Amt.load(store, root);
    expect(amt.height).toBe(4);
    expect([...amt.values()]).toHaveLength(10_000);
    expect(store.gets).toBe(nodeCount); // root block + every node, each once
    for (const i of range(10_000)) amt.get(i);
    expect(store.gets).toBe(nodeCount);

    expect(amt.flush()).toBe(root);
    amt.set(1234, value(1234)); // unchanged value
    expect(amt.flush()).toBe(root);
    expect(store.puts).toBe(0);

    amt.set(1234, 'changed');
    amt.flush();
    expect(store.puts).toBe(amt.height + 1); // the root block and one node per level below it
  });

  test('refuses bad parameters, missing blocks and malformed roots with clear errors', () => {
    const store = new MemoryBlockstore();
    expect(() => Amt.create(store, { version: 'v0', bitWidth: 5 })).toThrow(/bit width 3/);
    expect(() => Amt.create(store, { bitWidth: 0 })).toThrow(/bit width/);

    const v0Root = Amt.create(store, { version: 'v0' }).flush();
    expect(() => Amt.load(store, v0Root)).toThrow(MalformedNodeError); // a v0 root is not a v3 root
    const badBmap = putCbor(store, [3, 0, 0, [new Uint8Array(2), [], []]]);
    expect(() => Amt.load(store, badBmap)).toThrow(/1-byte/);
    const tooManyValues = putCbor(store, [3, 0, 1, [new Uint8Array([1]), [], ['a', 'b']]]);
    expect(() => Amt.load(store, tooManyValues)).toThrow(/fewer bits set/);
    const leafWithLinks = putCbor(store, [3, 0, 1, [new Uint8Array([1]), [v0Root], []]]);
    expect(() => Amt.load(store, leafWithLinks)).toThrow(/leaf/);
    const innerWithValues = putCbor(store, [3, 1, 1, [new Uint8Array([1]), [], ['a']]]);
    expect(() => Amt.load(store, innerWithValues)).toThrow(/inner node \(height 1\) has values/);
    const tooFewValues = putCbor(store, [3, 0, 1, [new Uint8Array([3]), [], ['a']]]);
    expect(() => Amt.load(store, tooFewValues)).toThrow(/more bits set/);
    const tooTall = putCbor(store, [3, 65, 0, [new Uint8Array([0]), [], []]]);
    expect(() => Amt.load(store, tooTall)).toThrow(/height 65/);
    const wideBitWidth = putCbor(store, [17, 0, 0, [new Uint8Array(1), [], []]]);
    expect(() => Amt.load(store, wideBitWidth)).toThrow(/bit width 17/);

    const full = new MemoryBlockstore();
    const root = buildAmt(full, range(100).map(value));
    const rootOnly = new MemoryBlockstore();
    rootOnly.put(root, full.get(root)!);
    const partial = Amt.load(rootOnly, root);
    expect(() => partial.get(50)).toThrow(BlockNotFoundError);
  });
});
