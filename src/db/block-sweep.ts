import type Database from 'better-sqlite3';
import { withSqlite } from './errors.js';

/** One step of a sweep over the `blocks` table, in CID byte order. */
export interface SweepBatch {
  /** The last CID looked at: the next batch starts after it; undefined when the table is done. */
  readonly next: Uint8Array | undefined;
  readonly scanned: number;
  readonly deleted: number;
  /** Bytes of block data deleted (CIDs and SQLite's page overhead not counted). */
  readonly deletedBytes: number;
}

/** What the database file holds: its size, and the part of it in use (the rest is free pages SQLite reuses). */
export interface DatabaseSize {
  readonly fileBytes: number;
  readonly usedBytes: number;
  readonly blocks: number;
}

/**
 * Deleting blocks from the blockstore, a bounded batch at a time (the chain pruner's sweep,
 * src/chain/prune.ts): each batch is its own transaction, so a crash loses at most the batch in
 * flight, and the caller can hand the event loop back between batches. The keep test runs inside
 * the batch's transaction, synchronously, so a block written between two batches is judged
 * against what the caller knows at that moment.
 */
export class BlockSweep {
  readonly #db: Database.Database;
  readonly #first: Database.Statement<[number], { cid: Uint8Array; size: number }>;
  readonly #after: Database.Statement<[Uint8Array, number], { cid: Uint8Array; size: number }>;
  readonly #delete: Database.Statement<[Uint8Array]>;
  readonly #count: Database.Statement<[], number>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#first = db.prepare('SELECT cid, length(data) AS size FROM blocks ORDER BY cid LIMIT ?');
    this.#after = db.prepare('SELECT cid, length(data) AS size FROM blocks WHERE cid > ? ORDER BY cid LIMIT ?');
    this.#delete = db.prepare('DELETE FROM blocks WHERE cid = ?');
    this.#count = db.prepare<[], number>('SELECT count(*) FROM blocks').pluck();
  }

  /** Looks at up to `limit` blocks after `after` (from the start when undefined), deleting those `keep` refuses. */
  sweepBatch(after: Uint8Array | undefined, limit: number, keep: (cid: Uint8Array) => boolean): SweepBatch {
    const run = this.#db.transaction(() => {
      const rows = after === undefined ? this.#first.all(limit) : this.#after.all(after, limit);
      let deleted = 0;
      let deletedBytes = 0;
      for (const { cid, size } of rows) {
        if (keep(cid)) continue;
        this.#delete.run(cid);
        deleted++;
        deletedBytes += size;
      }
      return {
        next: rows.length < limit ? undefined : rows[rows.length - 1]!.cid,
        scanned: rows.length,
        deleted,
        deletedBytes,
      };
    });
    return withSqlite('sweeping a batch of blocks', run);
  }

  size(): DatabaseSize {
    return withSqlite('measuring the database', () => {
      const pageSize = this.#db.pragma('page_size', { simple: true }) as number;
      const pages = this.#db.pragma('page_count', { simple: true }) as number;
      const free = this.#db.pragma('freelist_count', { simple: true }) as number;
      return { fileBytes: pages * pageSize, usedBytes: (pages - free) * pageSize, blocks: this.#count.get() ?? 0 };
    });
  }
}
