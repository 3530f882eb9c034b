import Database from 'better-sqlite3';
import type { CID } from '../types/cid.js';
import { withSqlite } from './errors.js';

/**
 * A set of CIDs kept in a private temporary SQLite file (deleted when closed), for walks over
 * whole chains: a mainnet export visits hundreds of millions of blocks, far more CIDs than a JS
 * `Set` should hold. Only SQLite's page cache (a few MiB) lives in memory.
 */
export class DiskCidSet {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[Uint8Array]>;
  readonly #exists: Database.Statement<[Uint8Array], number>;
  #size = 0;

  constructor() {
    // An empty file name is SQLite's private on-disk temporary database.
    this.#db = withSqlite('creating a temporary CID set', () => new Database(''));
    withSqlite('configuring a temporary CID set', () => {
      this.#db.pragma('journal_mode = OFF');
      this.#db.pragma('synchronous = OFF');
      this.#db.pragma('cache_size = -8192');
      this.#db.exec('CREATE TABLE cids (cid BLOB PRIMARY KEY NOT NULL) WITHOUT ROWID');
      // One transaction that is never committed: inserts cost no per-statement commit, and the
      // file is thrown away on close anyway.
      this.#db.exec('BEGIN');
    });
    this.#insert = this.#db.prepare('INSERT INTO cids (cid) VALUES (?) ON CONFLICT (cid) DO NOTHING');
    this.#exists = this.#db.prepare<[Uint8Array], number>('SELECT 1 FROM cids WHERE cid = ?').pluck();
  }

  /** Adds the CID; true when it was not in the set yet (Go's `cid.Set.Visit`). */
  visit(cid: CID): boolean {
    return this.visitBytes(cid.bytes);
  }

  /** `visit` for a CID's binary form. */
  visitBytes(cid: Uint8Array): boolean {
    const added = withSqlite('adding to a temporary CID set', () => this.#insert.run(cid).changes === 1);
    if (added) this.#size++;
    return added;
  }

  has(cid: CID): boolean {
    return this.hasBytes(cid.bytes);
  }

  /** `has` for a CID's binary form (as the blocks table keys it). */
  hasBytes(cid: Uint8Array): boolean {
    return withSqlite('reading a temporary CID set', () => this.#exists.get(cid) !== undefined);
  }

  get size(): number {
    return this.#size;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
