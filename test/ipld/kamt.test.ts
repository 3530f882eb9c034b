import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { CID } from 'multiformats/cid';
import { Kamt, MalformedNodeError, MemoryBlockstore } from '../../src/ipld/index.js';
import { RawCborReader } from '../../src/ipld/raw-cbor.js';
import { cidOfCbor } from '../../src/types/cid.js';
import { EVM_KAMT_CONFIG, EvmStorage, u256KeyCodec } from '../../src/vm/actors/evm/storage.js';
import { encodeU256 } from '../../src/vm/actors/evm/u256.js';

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);
const EMPTY_ROOT = 'bafy2bzaceamp42wmmgr2g2ymg46euououzfyck7szknvfacqscohrvaikwfay';

/**
 * Replays the op file the reference program (fixtures/kamt-reference: ref-fvm's fvm_ipld_kamt
 * 0.4.6 with the EVM actor's config) read, returning the root at each `flush`.
 */
function replay(ops: string): string[] {
  const roots: string[] = [];
  let storage = EvmStorage.create(new MemoryBlockstore());
  for (const line of ops.split('\n')) {
    const [op, key, value] = line.split(' ');
    if (op === 's') storage.set(BigInt(`0x${key}`), BigInt(`0x${value}`));
    else if (op === 'd') storage.set(BigInt(`0x${key}`), 0n);
    else if (op === 'flush') roots.push(storage.flush().toString());
    else if (op === 'reset') storage = EvmStorage.create(new MemoryBlockstore());
  }
  return roots;
}

/** Walks every node below `root`, checking what ref-fvm's loader checks plus canonical-form rules. */
function nodesOf(store: MemoryBlockstore, root: Kamt): number {
  let nodes = 0;
  const visit = (bytes: Uint8Array, depth: number) => {
    nodes++;
    const reader = new RawCborReader(bytes, (reason) => new Error(reason));
    expect(reader.arrayLength()).toBe(2);
    reader.byteString();
    const count = reader.arrayLength();
    if (depth > 0) expect(count).toBeGreaterThan(0);
    let links = 0;
    for (let i = 0; i < count; i++) {
      expect(reader.mapLength()).toBe(1);
      const kind = reader.text();
      if (kind === 'v') {
        const length = reader.arrayLength();
        expect(length).toBe(1); // max_array_width 1
        for (let j = 0; j < length; j++) {
          reader.arrayLength();
          reader.rawItem();
          reader.rawItem();
        }
      } else {
        expect(kind).toBe('l');
        links++;
        reader.arrayLength();
        const child = reader.link();
        const extLength = reader.uint();
        reader.byteString();
        expect(extLength % EVM_KAMT_CONFIG.bitWidth).toBe(0);
        const cid = CID.decode(child);
        visit(store.get(cid)!, depth + 1 + extLength / EVM_KAMT_CONFIG.bitWidth);
      }
    }
    // Canonical: no non-root node with a single bucket (it would have moved up).
    if (depth > 0 && count === 1) expect(links).toBe(1);
  };
  const rootCid = root.flush();
  visit(store.get(rootCid)!, 0);
  return nodes;
}

describe('Kamt (EVM storage config)', () => {
  test('roots match ref-fvm fvm_ipld_kamt on the same operations', () => {
    const expected = readFileSync(fixture('kamt-evm-roots.txt'), 'utf8').trim().split('\n');
    const roots = replay(readFileSync(fixture('kamt-evm-ops.txt'), 'utf8'));
    expect(expected).toHaveLength(10);
    expect(roots).toEqual(expected);
    expect(roots[0]).toBe(EMPTY_ROOT);
  });

  test('get, set, overwrite, delete, entries and reload', () => {
    const store = new MemoryBlockstore();
    const storage = EvmStorage.create(store);
    for (let i = 0n; i < 50n; i++) storage.set(i * 3n, i + 1n);
    expect(storage.get(30n)).toBe(11n);
    expect(storage.get(31n)).toBe(0n);
    expect(storage.set(30n, 11n)).toBe(false);
    expect(storage.set(30n, 12n)).toBe(true);
    expect(storage.set(31n, 0n)).toBe(false);
    expect(storage.set(30n, 0n)).toBe(true);
    const root = storage.flush();
    const reloaded = EvmStorage.load(store, root);
    expect(reloaded.get(30n)).toBe(0n);
    expect(reloaded.get(33n)).toBe(12n);
    const entries = [...reloaded.entries()];
    expect(entries).toHaveLength(49);
    expect(new Map(entries).get(147n)).toBe(50n);
    expect(reloaded.flush().equals(root)).toBe(true);
  });

  test('the root depends only on the final contents (random inserts and deletes)', () => {
    const key = fc.oneof(fc.bigInt({ min: 0n, max: 300n }), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.bigInt({ min: 0n, max: 3n })), { maxLength: 120 }), (ops) => {
        const store = new MemoryBlockstore();
        const storage = EvmStorage.create(store);
        const model = new Map<bigint, bigint>();
        for (const [k, v] of ops) {
          storage.set(k, v);
          if (v === 0n) model.delete(k);
          else model.set(k, v);
        }
        const fresh = EvmStorage.create(new MemoryBlockstore());
        for (const [k, v] of [...model].sort((a, b) => (a[0] < b[0] ? 1 : -1))) fresh.set(k, v);
        expect(storage.flush().toString()).toBe(fresh.flush().toString());
        for (const [k, v] of model) expect(storage.get(k)).toBe(v);
        expect(new Map(EvmStorage.load(store, storage.flush()).entries())).toEqual(model);
      }),
      { numRuns: 60 },
    );
  });

  test('nodes keep the canonical shape: one entry per bucket, extensions in whole levels', () => {
    const store = new MemoryBlockstore();
    const kamt = Kamt.create(store, EVM_KAMT_CONFIG, u256KeyCodec);
    for (let i = 0n; i < 500n; i++) kamt.set(encodeU256(i), encodeU256(i + 1n));
    expect(nodesOf(store, kamt)).toBeGreaterThan(1);
  });

  test('a malformed node is refused with the CID named', () => {
    const store = new MemoryBlockstore();
    const storage = EvmStorage.create(store);
    storage.set(1n, 1n);
    const root = storage.flush();
    const bytes = store.get(root)!;
    const broken = Uint8Array.from(bytes);
    broken[2] = 0x03; // the bitfield claims two slots for one pointer
    const corrupt = new MemoryBlockstore();
    const cid = cidOfCbor(broken);
    corrupt.put(cid, broken);
    expect(() => EvmStorage.load(corrupt, cid)).toThrow(new RegExp(`malformed KAMT node ${cid}.*does not match`));
    expect(() => EvmStorage.load(corrupt, cid)).toThrow(MalformedNodeError);
  });
});
