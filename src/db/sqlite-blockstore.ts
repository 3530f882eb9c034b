import type Database from 'better-sqlite3';
import type { Block, Blockstore } from '../ipld/blockstore.js';
import type { CID } from '../types/cid.js';
import { asDatabaseError } from './errors.js';

/**
 * The blockstore over the `blocks` table (binary CID → bytes, WITHOUT ROWID so rows live in the
 * primary-key B-tree). Statements are prepared once; `putMany` is one transaction, and nests as a
 * savepoint inside `LedgerDatabase.transaction`.
 */
export class SqliteBlockstore implements Blockstore {
  readonly #select: Database.Statement<[Uint8Array], Uint8Array>;
  readonly #exists: Database.Statement<[Uint8Array], number>;
  readonly #insert: Database.Statement<[Uint8Array, Uint8Array]>;
  readonly #insertMany: Database.Transaction<(blocks: Iterable<Block>) => void>;
  /** Told the CID of every block written (the chain pruner keeps them: src/chain/prune.ts). */
  readonly #writeListeners = new Set<(cid: CID) => void>();

  constructor(db: Database.Database) {
    this.#select = db.prepare<[Uint8Array], Uint8Array>('SELECT data FROM blocks WHERE cid = ?').pluck();
    this.#exists = db.prepare<[Uint8Array], number>('SELECT 1 FROM blocks WHERE cid = ?').pluck();
    // ON CONFLICT DO NOTHING (not INSERT OR IGNORE): a NULL block must still fail loudly.
    this.#insert = db.prepare('INSERT INTO blocks (cid, data) VALUES (?, ?) ON CONFLICT (cid) DO NOTHING');
    this.#insertMany = db.transaction((blocks: Iterable<Block>) => {
      for (const { cid, bytes } of blocks) {
        this.#insert.run(cid.bytes, bytes);
        for (const listener of this.#writeListeners) listener(cid);
      }
    });
  }

  get(cid: CID): Uint8Array | undefined {
    try {
      return this.#select.get(cid.bytes);
    } catch (error) {
      throw asDatabaseError(`reading block ${cid.toString()}`, error);
    }
  }

  has(cid: CID): boolean {
    try {
      return this.#exists.get(cid.bytes) !== undefined;
    } catch (error) {
      throw asDatabaseError(`looking up block ${cid.toString()}`, error);
    }
  }

  put(cid: CID, bytes: Uint8Array): void {
    try {
      this.#insert.run(cid.bytes, bytes);
      for (const listener of this.#writeListeners) listener(cid);
    } catch (error) {
      throw asDatabaseError(`writing block ${cid.toString()}`, error);
    }
  }

  /**
   * Calls `listener` with the CID of every block written from now on — already stored or not,
   * since a write of a block that exists means someone references it again. Returns the unsubscribe.
   */
  onWrite(listener: (cid: CID) => void): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  putMany(blocks: Iterable<Block>): void {
    try {
      this.#insertMany(blocks);
    } catch (error) {
      throw asDatabaseError('writing a batch of blocks', error);
    }
  }
}
