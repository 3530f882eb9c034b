import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseError, LedgerDatabase, SchemaVersionError } from '../../src/db/index.js';
import { migrations } from '../../src/db/migrations.js';
import { type Block, Hamt, putCbor, WriteBatch } from '../../src/ipld/index.js';
import { encodeCbor } from '../../src/types/cbor.js';
import { cidOfCbor } from '../../src/types/cid.js';
import { bytesEqual } from '../../src/utils/bytes.js';

const block = (value: unknown): Block => {
  const bytes = encodeCbor(value);
  return { cid: cidOfCbor(bytes), bytes };
};

let dir: string;
let path: string;
let open: LedgerDatabase[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-db-'));
  path = join(dir, 'datastore', 'chain.db');
  open = [];
});

afterEach(() => {
  for (const db of open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function openDb(at = path): LedgerDatabase {
  const db = LedgerDatabase.open(at);
  open.push(db);
  return db;
}

function closeDb(db: LedgerDatabase): void {
  db.close();
  open.splice(open.indexOf(db), 1);
}

describe('LedgerDatabase', () => {
  test('creates its directory, uses WAL, and records the schema version', () => {
    const db = openDb();
    expect(db.schemaVersion).toBe(migrations.length);
    closeDb(db);
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(raw.prepare("SELECT sql FROM sqlite_schema WHERE name = 'blocks'").pluck().get()).toMatch(/WITHOUT ROWID/);
    } finally {
      raw.close();
    }
    const connection = openDb();
    expect(connection.schemaVersion).toBe(migrations.length);
  });

  test('refuses a database written by a newer schema', () => {
    closeDb(openDb());
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => LedgerDatabase.open(path)).toThrow(SchemaVersionError);
    expect(() => LedgerDatabase.open(path)).toThrow(/schema version 99 is newer/);
  });

  test('an unopenable path is a DatabaseError saying what failed', () => {
    expect(() => LedgerDatabase.open(dir)).toThrow(DatabaseError);
    expect(() => LedgerDatabase.open(dir)).toThrow(/opening database .* failed: .*SQLITE_CANTOPEN/);
  });
});

describe('SqliteBlockstore', () => {
  test('round trips blocks by CID; put is idempotent; has and get agree', () => {
    const { blockstore } = openDb();
    const a = block({ a: 1 });
    expect(blockstore.get(a.cid)).toBeUndefined();
    expect(blockstore.has(a.cid)).toBe(false);
    blockstore.put(a.cid, a.bytes);
    blockstore.put(a.cid, a.bytes);
    expect(blockstore.has(a.cid)).toBe(true);
    expect(bytesEqual(blockstore.get(a.cid)!, a.bytes)).toBe(true);
    const many = Array.from({ length: 500 }, (_, i) => block(i));
    blockstore.putMany(many);
    expect(many.every(({ cid, bytes }) => bytesEqual(blockstore.get(cid)!, bytes))).toBe(true);
  });

  test('blocks and HAMTs persist across close and reopen', () => {
    const first = openDb();
    const hamt = Hamt.create(first.blockstore);
    for (let i = 0; i < 2000; i++) hamt.set(new TextEncoder().encode(`k${i}`), i);
    const root = hamt.flush();
    const single = putCbor(first.blockstore, 'kept');
    closeDb(first);

    const second = openDb();
    expect(second.blockstore.has(single)).toBe(true);
    const reloaded = Hamt.load(second.blockstore, root);
    expect(reloaded.get(new TextEncoder().encode('k1234'))).toBe(1234);
    expect([...reloaded.entries()]).toHaveLength(2000);
  });

  test('a failing putMany writes nothing and reports a DatabaseError', () => {
    const { blockstore } = openDb();
    const good = [block(1), block(2)];
    const broken = { cid: block(3).cid, bytes: null as unknown as Uint8Array };
    expect(() => blockstore.putMany([...good, broken])).toThrow(DatabaseError);
    expect(() => blockstore.putMany([...good, broken])).toThrow(/writing a batch of blocks failed: .*NOT NULL/);
    expect(good.some(({ cid }) => blockstore.has(cid))).toBe(false);
    try {
      blockstore.putMany([broken]);
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_DATABASE', details: { sqliteCode: 'SQLITE_CONSTRAINT_NOTNULL' } });
    }
  });

  test('a transaction that throws leaves none of its writes behind; one that returns keeps them all', () => {
    const db = openDb();
    const blocks = Array.from({ length: 10 }, (_, i) => block(`t${i}`));
    expect(() =>
      db.transaction(() => {
        for (const { cid, bytes } of blocks) db.blockstore.put(cid, bytes);
        db.blockstore.putMany([block('nested')]);
        throw new Error('state transition failed');
      }),
    ).toThrow('state transition failed');
    expect(blocks.some(({ cid }) => db.blockstore.has(cid))).toBe(false);
    expect(db.blockstore.has(block('nested').cid)).toBe(false);

    const count = db.transaction(() => {
      for (const { cid, bytes } of blocks) db.blockstore.put(cid, bytes);
      return blocks.length;
    });
    expect(count).toBe(10);
    closeDb(db);
    const reopened = openDb();
    expect(blocks.every(({ cid }) => reopened.blockstore.has(cid))).toBe(true);
  });

  test('a write batch over SQLite lands completely on commit, or not at all', () => {
    const db = openDb();
    const batch = new WriteBatch(db.blockstore);
    const hamt = Hamt.create(batch);
    for (let i = 0; i < 1000; i++) hamt.set(new TextEncoder().encode(`k${i}`), i);
    const root = hamt.flush();
    expect(db.blockstore.has(root)).toBe(false);
    expect(Hamt.load(batch, root).get(new TextEncoder().encode('k7'))).toBe(7);

    batch.put(block('poison').cid, null as unknown as Uint8Array);
    expect(() => batch.commit()).toThrow(DatabaseError);
    expect(db.blockstore.has(root)).toBe(false);

    batch.discard();
    const retry = Hamt.create(batch);
    for (let i = 0; i < 1000; i++) retry.set(new TextEncoder().encode(`k${i}`), i);
    expect(retry.flush().toString()).toBe(root.toString());
    batch.commit();
    expect(Hamt.load(db.blockstore, root).get(new TextEncoder().encode('k7'))).toBe(7);
    expect([...Hamt.load(db.blockstore, root).entries()]).toHaveLength(1000);
  });
});
