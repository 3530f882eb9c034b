/**
 * The blockstore's batched sweep (src/db/block-sweep.ts) and write listeners: each batch looks at
 * at most `limit` blocks in CID order and deletes those the keep test refuses; the blockstore tells
 * listeners of every write, including writes of blocks it already holds.
 */
import { LedgerDatabase } from '../../src/db/index.js';
import { type Block, WriteBatch } from '../../src/ipld/index.js';
import { encodeCbor } from '../../src/types/cbor.js';
import { type CID, cidOfCbor } from '../../src/types/cid.js';
import { bytesEqual } from '../../src/utils/bytes.js';

const block = (value: unknown): Block => {
  const bytes = encodeCbor(value);
  return { cid: cidOfCbor(bytes), bytes };
};

let db: LedgerDatabase;
beforeEach(() => {
  db = LedgerDatabase.open(':memory:');
});
afterEach(() => db.close());

test('a sweep goes through the table in bounded batches, deleting only what the keep test refuses', () => {
  const blocks = Array.from({ length: 25 }, (_, i) => block({ i }));
  db.blockstore.putMany(blocks);
  const kept = new Set(blocks.filter((_, i) => i % 3 === 0).map((b) => b.cid.toString()));
  const keep = (cid: Uint8Array) => blocks.some((b) => bytesEqual(b.cid.bytes, cid) && kept.has(b.cid.toString()));
  const before = db.blockSweep.size();
  expect(before.blocks).toBe(25);

  let after: Uint8Array | undefined;
  let batches = 0;
  let deleted = 0;
  let deletedBytes = 0;
  do {
    const batch = db.blockSweep.sweepBatch(after, 10, keep);
    expect(batch.scanned).toBeLessThanOrEqual(10);
    batches++;
    deleted += batch.deleted;
    deletedBytes += batch.deletedBytes;
    after = batch.next;
  } while (after !== undefined);

  expect(batches).toBe(3);
  expect(deleted).toBe(25 - kept.size);
  expect(deletedBytes).toBe(blocks.filter((b) => !kept.has(b.cid.toString())).reduce((n, b) => n + b.bytes.length, 0));
  for (const b of blocks) expect(db.blockstore.has(b.cid)).toBe(kept.has(b.cid.toString()));
  expect(db.blockSweep.size().blocks).toBe(kept.size);
});

test('write listeners hear every put, putMany and WriteBatch commit, stored already or not, until unsubscribed', () => {
  const heard: CID[] = [];
  const stop = db.blockstore.onWrite((cid) => heard.push(cid));
  const [a, b, c] = [block('a'), block('b'), block('c')];
  db.blockstore.put(a.cid, a.bytes);
  db.blockstore.put(a.cid, a.bytes);
  db.blockstore.putMany([b]);
  const batch = new WriteBatch(db.blockstore);
  batch.put(c.cid, c.bytes);
  expect(heard.map(String)).toEqual([a.cid, a.cid, b.cid].map(String));
  batch.commit();
  expect(heard.map(String)).toEqual([a.cid, a.cid, b.cid, c.cid].map(String));
  stop();
  db.blockstore.put(block('d').cid, block('d').bytes);
  expect(heard).toHaveLength(4);
});
