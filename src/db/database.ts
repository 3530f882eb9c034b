import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { BlockSweep } from './block-sweep.js';
import { ChainIndex } from './chain-index.js';
import { DrandStore } from './drand-store.js';
import { DatabaseError, withSqlite } from './errors.js';
import { EthIndex } from './eth-index.js';
import { migrate } from './migrations.js';
import { MpoolStore } from './mpool-store.js';
import { NetBlockStore } from './net-block-store.js';
import { SealingStore } from './sealing-store.js';
import { SqliteBlockstore } from './sqlite-blockstore.js';

/**
 * The node's SQLite database: WAL (readers never block the writer), `synchronous=NORMAL` (a crash
 * can lose the last commits but never corrupts; WAL keeps each transaction atomic), schema
 * migrated on open.
 */
export class LedgerDatabase {
  readonly path: string;
  readonly blockstore: SqliteBlockstore;
  /** The message pool's persistent records (local messages, config, send nonces). */
  readonly mpool: MpoolStore;
  /** The chain's index tables: tipsets, the canonical chain, head, tipset states, message inclusions. */
  readonly chainIndex: ChainIndex;
  /** The sealing pipeline's sectors and sector numbers. */
  readonly sealing: SealingStore;
  /** Ethereum transaction and block hashes (the eth_* methods' lookups). */
  readonly eth: EthIndex;
  /** Verified drand beacon entries (the drand client's cache). */
  readonly drand: DrandStore;
  /** The net block list (NetBlockAdd), kept across restarts. */
  readonly netBlocks: NetBlockStore;
  /** Batched deletes from the blockstore, and the file's size (the chain pruner's sweep). */
  readonly blockSweep: BlockSweep;
  readonly #db: Database.Database;

  private constructor(path: string, db: Database.Database) {
    this.path = path;
    this.#db = db;
    this.blockstore = new SqliteBlockstore(db);
    this.mpool = new MpoolStore(db);
    this.chainIndex = new ChainIndex(db);
    this.sealing = new SealingStore(db);
    this.eth = new EthIndex(db);
    this.drand = new DrandStore(db);
    this.netBlocks = new NetBlockStore(db);
    this.blockSweep = new BlockSweep(db);
  }

  /** Opens (creating it and its directory if needed) the database at `path`, or `:memory:`. */
  static open(path: string): LedgerDatabase {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = withSqlite(`opening database ${path}`, () => new Database(path));
    try {
      withSqlite('configuring the database', () => {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('foreign_keys = ON');
      });
      migrate(db);
      return new LedgerDatabase(path, db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  get schemaVersion(): number {
    return withSqlite('reading the schema version', () => this.#db.pragma('user_version', { simple: true }) as number);
  }

  /**
   * Runs `fn` in one transaction: every write it makes (blocks, indexes) commits together, or none
   * does if it throws. `fn` must be synchronous; nested calls become savepoints.
   */
  transaction<T>(fn: () => T): T {
    return withSqlite('transaction', this.#db.transaction(fn));
  }

  /**
   * Runs async `fn` inside one transaction that spans its awaits (a snapshot import streaming a
   * file): everything it writes commits together, or is rolled back if it throws. Only for work
   * that owns the database meanwhile (at startup, before the node serves): any other write made
   * while it runs joins the same transaction. `cacheMiB` sizes SQLite's page cache meanwhile.
   */
  async exclusiveTransaction<T>(fn: () => Promise<T>, options: { cacheMiB?: number } = {}): Promise<T> {
    if (this.#db.inTransaction) throw new DatabaseError('an exclusive transaction cannot start inside another one');
    // A bulk write touches many pages: a larger page cache while it runs spills fewer dirty pages
    // to the WAL more than once (https://sqlite.org/pragma.html#pragma_cache_size).
    const cacheSize = withSqlite('reading the page cache size', () => this.#db.pragma('cache_size', { simple: true }));
    if (options.cacheMiB !== undefined) {
      withSqlite('sizing the page cache', () =>
        this.#db.pragma(`cache_size = ${-Math.round(options.cacheMiB! * 1024)}`),
      );
    }
    try {
      withSqlite('starting an exclusive transaction', () => this.#db.exec('BEGIN IMMEDIATE'));
      let result: T;
      try {
        result = await fn();
      } catch (error) {
        if (this.#db.inTransaction) withSqlite('rolling back', () => this.#db.exec('ROLLBACK'));
        throw error;
      }
      withSqlite('committing an exclusive transaction', () => this.#db.exec('COMMIT'));
      return result;
    } finally {
      withSqlite('restoring the page cache size', () => this.#db.pragma(`cache_size = ${Number(cacheSize)}`));
    }
  }

  close(): void {
    withSqlite(`closing database ${this.path}`, () => this.#db.close());
  }
}
