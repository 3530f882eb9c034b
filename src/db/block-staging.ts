import type Database from 'better-sqlite3';
import { CID } from '../types/cid.js';
import { asDatabaseError, withSqlite } from './errors.js';

/** A block as bulk writers hold it: CID bytes (the table's key) and data, already verified. */
export interface EncodedBlockData {
  readonly cidBytes: Uint8Array;
  readonly bytes: Uint8Array;
}

/**
 * Blocks written in bulk (a snapshot import) go first into a temporary table, appended in arrival
 * order with a small index of their CIDs, then into `blocks` in one statement, in CID order.
 * Inserting straight into `blocks` puts each block at a random place of its B-tree (CIDs are
 * hashes) and rewrites a page all over the file per block; in CID order the B-tree is filled from
 * one end, page after page, which costs about half (docs/snapshots.md). The temporary table lives in
 * SQLite's temporary storage (a file: https://sqlite.org/tempfiles.html), so memory stays bounded;
 * it needs free space about the size of the blocks staged. Use inside one transaction: a rollback
 * drops everything staged.
 */
export class BlockStaging {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[Uint8Array, Uint8Array]>;
  readonly #firstByte: Database.Statement<[Uint8Array], Uint8Array>;
  readonly #mainFirstByte: (cid: Uint8Array) => number | undefined;
  readonly #notify: ((cids: Iterable<CID>) => void) | undefined;
  #open = true;

  /**
   * `mainFirstByte` looks a block up in `blocks`; `notify`, when set, is told of every block moved
   * in (the blockstore's write listeners).
   */
  constructor(
    db: Database.Database,
    mainFirstByte: (cid: Uint8Array) => number | undefined,
    notify: ((cids: Iterable<CID>) => void) | undefined,
  ) {
    this.#db = db;
    this.#mainFirstByte = mainFirstByte;
    this.#notify = notify;
    withSqlite('creating the block staging table', () =>
      db.exec(
        'DROP TABLE IF EXISTS temp.staged_blocks; ' +
          'CREATE TEMP TABLE staged_blocks (cid BLOB NOT NULL UNIQUE, data BLOB NOT NULL)',
      ),
    );
    this.#insert = db.prepare('INSERT INTO temp.staged_blocks (cid, data) VALUES (?, ?) ON CONFLICT (cid) DO NOTHING');
    this.#firstByte = db
      .prepare<[Uint8Array], Uint8Array>('SELECT substr(data, 1, 1) FROM temp.staged_blocks WHERE cid = ?')
      .pluck();
  }

  putMany(blocks: Iterable<EncodedBlockData>): void {
    try {
      for (const { cidBytes, bytes } of blocks) this.#insert.run(cidBytes, bytes);
    } catch (error) {
      throw asDatabaseError('staging a batch of blocks', error);
    }
  }

  /** The first byte of a block staged or stored (-1 for an empty block), or undefined when there is none. */
  firstByte(cid: Uint8Array): number | undefined {
    try {
      const head = this.#firstByte.get(cid);
      if (head !== undefined) return head[0] ?? -1;
    } catch (error) {
      throw asDatabaseError('looking up a staged block', error);
    }
    return this.#mainFirstByte(cid);
  }

  /** Moves every staged block into `blocks`, in CID order, and drops the staging table. */
  commit(): void {
    this.#close(() => {
      if (this.#notify !== undefined) {
        const cids = this.#db.prepare<[], Uint8Array>('SELECT cid FROM temp.staged_blocks').pluck().iterate();
        this.#notify(
          (function* () {
            for (const cid of cids) yield CID.decode(cid);
          })(),
        );
      }
      // `WHERE true`: an INSERT … SELECT with an upsert clause needs a WHERE (https://sqlite.org/lang_upsert.html).
      this.#db.exec(
        'INSERT INTO main.blocks (cid, data) SELECT cid, data FROM temp.staged_blocks WHERE true ORDER BY cid ' +
          'ON CONFLICT (cid) DO NOTHING',
      );
    });
  }

  /** Drops what was staged. */
  discard(): void {
    this.#close(() => undefined);
  }

  #close(before: () => void): void {
    if (!this.#open) return;
    this.#open = false;
    withSqlite('moving staged blocks', () => {
      before();
      this.#db.exec('DROP TABLE temp.staged_blocks');
    });
  }
}
