import {
  type Block,
  BlockNotFoundError,
  getBlock,
  getCbor,
  MemoryBlockstore,
  putCbor,
  WriteBatch,
} from '../../src/ipld/index.js';
import { encodeCbor } from '../../src/types/cbor.js';
import { cidOfCbor } from '../../src/types/cid.js';

const block = (value: unknown): Block => {
  const bytes = encodeCbor(value);
  return { cid: cidOfCbor(bytes), bytes };
};

function* failingAfter(blocks: Block[]): Generator<Block> {
  yield* blocks;
  throw new Error('source failed');
}

describe('MemoryBlockstore and CBOR helpers', () => {
  test('putCbor stores the DAG-CBOR block under its blake2b-256 CID; getCbor decodes it', () => {
    const store = new MemoryBlockstore();
    const cid = putCbor(store, { a: [1, 2] });
    expect(cid.toString()).toBe(block({ a: [1, 2] }).cid.toString());
    expect(store.has(cid)).toBe(true);
    expect(getCbor(store, cid)).toEqual({ a: [1, 2] });
    expect(store.size).toBe(1);
    putCbor(store, { a: [1, 2] });
    expect(store.size).toBe(1);
  });

  test('a missing block is a BlockNotFoundError naming the CID and what was wanted', () => {
    const store = new MemoryBlockstore();
    const { cid } = block('absent');
    expect(store.get(cid)).toBeUndefined();
    expect(store.has(cid)).toBe(false);
    expect(() => getBlock(store, cid)).toThrow(BlockNotFoundError);
    expect(() => getCbor(store, cid, 'state root')).toThrow(`state root ${cid.toString()} not found`);
    try {
      getBlock(store, cid);
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_BLOCK_NOT_FOUND', cid });
    }
  });

  test('putMany stores all blocks or, when its source fails, none', () => {
    const store = new MemoryBlockstore();
    const blocks = [block(1), block(2), block(3)];
    expect(() => store.putMany(failingAfter(blocks))).toThrow('source failed');
    expect(store.size).toBe(0);
    store.putMany(blocks);
    expect(blocks.every(({ cid }) => store.has(cid))).toBe(true);
  });
});

describe('WriteBatch', () => {
  test('stages writes, reads through to the backing store, and commits them together', () => {
    const backing = new MemoryBlockstore();
    const existing = block('existing');
    backing.put(existing.cid, existing.bytes);
    const batch = new WriteBatch(backing);
    const staged = block('staged');
    batch.put(staged.cid, staged.bytes);
    batch.putMany([block(1), block(2)]);

    expect(batch.get(existing.cid)).toEqual(existing.bytes);
    expect(batch.get(staged.cid)).toEqual(staged.bytes);
    expect(batch.has(staged.cid)).toBe(true);
    expect(backing.has(staged.cid)).toBe(false);
    expect(batch.size).toBe(3);

    batch.commit();
    expect(batch.size).toBe(0);
    expect(backing.size).toBe(4);
    expect(backing.get(staged.cid)).toEqual(staged.bytes);
  });

  test('discard drops staged writes; a failed commit keeps them staged', () => {
    const backing = new MemoryBlockstore();
    const batch = new WriteBatch(backing);
    batch.put(block(1).cid, block(1).bytes);
    batch.discard();
    batch.commit();
    expect(backing.size).toBe(0);

    const refusing = new WriteBatch({
      get: (cid) => backing.get(cid),
      has: (cid) => backing.has(cid),
      put: () => undefined,
      putMany: () => {
        throw new Error('disk full');
      },
    });
    refusing.put(block(2).cid, block(2).bytes);
    expect(() => refusing.commit()).toThrow('disk full');
    expect(refusing.size).toBe(1);
  });
});
