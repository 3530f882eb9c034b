import fc from 'fast-check';
import {
  BlockNotFoundError,
  Hamt,
  type HamtFormat,
  MalformedNodeError,
  MemoryBlockstore,
  putCbor,
} from '../../src/ipld/index.js';
import { CborDecodeError, decodeCbor, encodeCbor } from '../../src/types/cbor.js';
import { CID, cidOfCbor, parseCid } from '../../src/types/cid.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { InvalidArgumentError } from '../../src/utils/errors.js';
import { CountingBlockstore } from './counting-blockstore.js';

const EMPTY_HAMT = 'bafy2bzaceamp42wmmgr2g2ymg46euououzfyck7szknvfacqscohrvaikwfay';
const key = (i: number) => new TextEncoder().encode(`key-${i}`);
const value = (i: number) => [i, `value-${i}`];

function build(indices: Iterable<number>, options: { bitWidth?: number; format?: HamtFormat } = {}): Hamt {
  const hamt = Hamt.create(new MemoryBlockstore(), options);
  for (const i of indices) hamt.set(key(i), value(i));
  return hamt;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('Hamt', () => {
  test('the empty HAMT is [h"", []] with the well-known CID', () => {
    const store = new MemoryBlockstore();
    const root = Hamt.create(store).flush();
    expect(root.toString()).toBe(EMPTY_HAMT);
    expect(toHex(store.get(root)!)).toBe('824080');
  });

  test('get, has, set, setIfAbsent and delete', () => {
    const hamt = build(range(100));
    expect(hamt.get(key(42))).toEqual(value(42));
    expect(hamt.has(key(42))).toBe(true);
    expect(hamt.get(key(1000))).toBeUndefined();
    expect(hamt.has(key(1000))).toBe(false);
    hamt.set(key(42), 'replaced');
    expect(hamt.get(key(42))).toBe('replaced');
    expect(hamt.setIfAbsent(key(42), 'ignored')).toBe(false);
    expect(hamt.get(key(42))).toBe('replaced');
    expect(hamt.setIfAbsent(key(1000), null)).toBe(true);
    expect(hamt.get(key(1000))).toBeNull();
    expect(hamt.has(key(1000))).toBe(true);
    expect(hamt.delete(key(1000))).toBe(true);
    expect(hamt.delete(key(1000))).toBe(false);
    expect(hamt.has(key(1000))).toBe(false);
  });

  for (const bitWidth of [1, 5, 8]) {
    test(`the root depends only on the final entries, not the order of writes (bit width ${bitWidth})`, () => {
      fc.assert(
        fc.property(
          fc
            .integer({ min: 0, max: 200 })
            .chain((n) =>
              fc.tuple(
                fc.shuffledSubarray(range(n), { minLength: n, maxLength: n }),
                fc.shuffledSubarray(range(n)),
                fc.integer({ min: 0, max: n }),
              ),
            ),
          ([order, deleted, flushAt]) => {
            const store = new MemoryBlockstore();
            const mutated = Hamt.create(store, { bitWidth });
            order.forEach((i, at) => {
              if (at === flushAt) mutated.flush();
              mutated.set(key(i), value(i));
            });
            let reloaded = Hamt.load(store, mutated.flush(), { bitWidth });
            for (const i of deleted) expect(reloaded.delete(key(i))).toBe(true);
            reloaded = Hamt.load(store, reloaded.flush(), { bitWidth });

            const gone = new Set(deleted);
            const direct = build(
              range(order.length).filter((i) => !gone.has(i)),
              { bitWidth },
            );
            expect(reloaded.flush().toString()).toBe(direct.flush().toString());
          },
        ),
        { seed: 20261122, numRuns: 40 },
      );
    });
  }

  test('deleting every entry, in any order, gives back the empty root', () => {
    const store = new MemoryBlockstore();
    const hamt = Hamt.create(store);
    for (const i of range(2000)) hamt.set(key(i), value(i));
    const reloaded = Hamt.load(store, hamt.flush());
    for (const i of range(2000).reverse()) expect(reloaded.delete(key(i))).toBe(true);
    expect(reloaded.flush().toString()).toBe(EMPTY_HAMT);
    for (const i of range(2000).filter((i) => i % 2 === 0)) expect(hamt.delete(key(i))).toBe(true);
    for (const i of range(2000).filter((i) => i % 2 === 1)) expect(hamt.delete(key(i))).toBe(true);
    expect(hamt.flush().toString()).toBe(EMPTY_HAMT);
  });

  test('entries come in one canonical order whatever the insertion order, before and after a reload', () => {
    const store = new MemoryBlockstore();
    const forward = build(range(500));
    const backward = Hamt.create(store);
    for (const i of range(500).reverse()) backward.set(key(i), value(i));
    const keysOf = (hamt: Hamt) => [...hamt.entries()].map(([k]) => toHex(k));
    const order = keysOf(forward);
    expect(order).toHaveLength(500);
    expect(new Set(order).size).toBe(500);
    expect(keysOf(backward)).toEqual(order);
    expect(keysOf(Hamt.load(store, backward.flush()))).toEqual(order);
    expect([...forward.entries()].find(([k]) => toHex(k) === toHex(key(7)))?.[1]).toEqual(value(7));
  });

  test('values can be read and written as their DAG-CBOR bytes, which are kept as given', () => {
    const store = new MemoryBlockstore();
    const hamt = Hamt.create(store);
    const encoded = encodeCbor({ nonce: 5 });
    hamt.setBytes(key(1), encoded);
    expect(hamt.getBytes(key(1))).toBe(encoded);
    expect(hamt.get(key(1))).toEqual({ nonce: 5 });
    hamt.set(key(2), [1, 2]);
    expect(toHex(hamt.getBytes(key(2))!)).toBe(toHex(encodeCbor([1, 2])));
    expect(hamt.getBytes(key(3))).toBeUndefined();
    const reloaded = Hamt.load(store, hamt.flush());
    expect(toHex(reloaded.getBytes(key(1))!)).toBe(toHex(encoded));

    expect(() => hamt.setBytes(key(4), Uint8Array.from([...encoded, 0]))).toThrow(CborDecodeError);
    expect(() => hamt.setBytes(key(4), new Uint8Array([0x9f, 0xff]))).toThrow(/indefinite/);
    expect(() => hamt.set(key(4), undefined)).toThrow(/undefined is not a DAG-CBOR value/);
    expect(() => hamt.set(key(4), () => 1)).toThrow(InvalidArgumentError);
    expect(hamt.has(key(4))).toBe(false);
  });

  test('values of every DAG-CBOR kind survive a flush and reload', () => {
    const store = new MemoryBlockstore();
    const hamt = Hamt.create(store);
    const values: unknown[] = [
      null,
      true,
      -5,
      2n ** 64n - 1n,
      1.5,
      'text',
      new Uint8Array([1, 2, 3]),
      [1, [2, 3]],
      { a: 1, b: [parseCid(EMPTY_HAMT)] },
      parseCid(EMPTY_HAMT),
    ];
    for (const [i, v] of values.entries()) hamt.set(key(i), v);
    const reloaded = Hamt.load(store, hamt.flush());
    for (const [i, v] of values.entries()) expect(reloaded.get(key(i))).toEqual(v);
  });

  test('loaded nodes are cached and a flush writes only the dirty path', () => {
    const built = build(range(5000));
    const store = new CountingBlockstore();
    const root = Hamt.create(store);
    for (const [k, v] of built.entries()) root.set(k, v);
    const rootCid = root.flush();
    const nodeCount = store.puts;
    expect(nodeCount).toBeGreaterThan(100);

    store.reset();
    const single = Hamt.load(store, rootCid);
    expect(single.get(key(4321))).toEqual(value(4321));
    expect(store.gets).toBeLessThanOrEqual(4); // only the nodes on the key's path

    store.reset();
    const hamt = Hamt.load(store, rootCid);
    for (const i of range(5000)) hamt.get(key(i));
    expect(store.gets).toBe(nodeCount); // every node read once
    for (const i of range(5000)) hamt.get(key(i));
    expect(store.gets).toBe(nodeCount);

    expect(hamt.flush()).toBe(rootCid); // nothing changed: nothing written
    hamt.set(key(7), value(7)); // same value: still nothing to write
    expect(hamt.flush().toString()).toBe(rootCid.toString());
    expect(store.puts).toBe(0);

    hamt.set(key(7), 'changed');
    const changed = hamt.flush();
    expect(changed.toString()).not.toBe(rootCid.toString());
    expect(store.puts).toBeGreaterThanOrEqual(2); // the root and the node holding key 7 …
    expect(store.puts).toBeLessThanOrEqual(4); // … and nothing off that path
    hamt.set(key(7), value(7));
    expect(hamt.flush().toString()).toBe(rootCid.toString());
  });

  test('the legacy format writes keyed-union pointers and reads them back', () => {
    const store = new MemoryBlockstore();
    const single = Hamt.create(store, { format: 'legacy' });
    single.set(key(1), 'one');
    const root = single.flush();
    expect(decodeCbor(store.get(root)!)).toEqual([expect.any(Uint8Array), [{ '1': [[key(1), 'one']] }]]);

    const legacy = build(range(300), { format: 'legacy' });
    const legacyStore = new MemoryBlockstore();
    const copy = Hamt.create(legacyStore, { format: 'legacy' });
    for (const [k, v] of legacy.entries()) copy.set(k, v);
    const legacyRoot = copy.flush();
    const [, pointers] = decodeCbor(legacyStore.get(legacyRoot)!) as [Uint8Array, object[]];
    expect(pointers.some((p) => Object.keys(p)[0] === '0' && CID.asCID(Object.values(p)[0]) !== null)).toBe(true);
    const reloaded = Hamt.load(legacyStore, legacyRoot, { format: 'legacy' });
    expect(reloaded.get(key(123))).toEqual(value(123));
    expect([...reloaded.entries()]).toHaveLength(300);
    expect(legacyRoot.toString()).not.toBe(build(range(300)).flush().toString());
  });

  test('refuses bad bit widths, missing blocks and malformed nodes with clear errors', () => {
    const store = new MemoryBlockstore();
    expect(() => Hamt.create(store, { bitWidth: 0 })).toThrow(/bit width/);
    expect(() => Hamt.create(store, { bitWidth: 9 })).toThrow(/bit width/);

    const missing = cidOfCbor(encodeCbor('absent'));
    expect(() => Hamt.load(store, missing)).toThrow(BlockNotFoundError);
    expect(() => Hamt.load(store, missing)).toThrow(missing.toString());

    const notANode = putCbor(store, [1, 2, 3]);
    expect(() => Hamt.load(store, notANode)).toThrow(MalformedNodeError);
    const countMismatch = putCbor(store, [new Uint8Array([3]), [[[key(1), 1]]]]);
    expect(() => Hamt.load(store, countMismatch)).toThrow(/2 slots set but there are 1 pointers/);
    const beyondWidth = putCbor(store, [new Uint8Array([1, 0, 0, 0, 0]), [[[key(1), 1]]]]);
    expect(() => Hamt.load(store, beyondWidth)).toThrow(/beyond 32 slots/);
    const emptyBucket = putCbor(store, [new Uint8Array([1]), [[]]]);
    expect(() => Hamt.load(store, emptyBucket)).toThrow(/empty bucket/);
    const nonMinimal = cidOfCbor(fromHex('82400098'));
    store.put(nonMinimal, fromHex('8240980100'));
    expect(() => Hamt.load(store, nonMinimal)).toThrow(/non-minimal/);
    const trailing = cidOfCbor(fromHex('82408000'));
    store.put(trailing, fromHex('82408000'));
    expect(() => Hamt.load(store, trailing)).toThrow(/trailing bytes/);
    const legacyAsV3 = Hamt.create(store, { format: 'legacy' });
    legacyAsV3.set(key(1), 1);
    expect(() => Hamt.load(store, legacyAsV3.flush())).toThrow(/expected an array/);
    const v3AsLegacy = Hamt.create(store);
    v3AsLegacy.set(key(1), 1);
    expect(() => Hamt.load(store, v3AsLegacy.flush(), { format: 'legacy' })).toThrow(/expected a map/);

    // A child that was written but is not in the store surfaces when the walk reaches it.
    const partialStore = new MemoryBlockstore();
    const deep = Hamt.create(partialStore);
    for (const i of range(200)) deep.set(key(i), i);
    const deepRoot = deep.flush();
    const rootOnly = new MemoryBlockstore();
    rootOnly.put(deepRoot, partialStore.get(deepRoot)!);
    expect(() => [...Hamt.load(rootOnly, deepRoot).entries()]).toThrow(BlockNotFoundError);
  });
});
