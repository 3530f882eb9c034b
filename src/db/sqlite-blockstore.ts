import type Database from 'better-sqlite3';
import type { Block, Blockstore } from '../ipld/blockstore.js';
import { CID } from '../types/cid.js';
import { BlockStaging, type EncodedBlockData } from './block-staging.js';
import { asDatabaseError, withSqlite } from './errors.js';

/**
 * The blockstore over the `blocks` table (binary CID → bytes, WITHOUT ROWID so rows live in the
 * primary-key B-tree). Statements are prepared once; `putMany` is one transaction, and nests as a
 * savepoint inside `LedgerDatabase.transaction`.
 */
export class SqliteBlockstore implements Blockstore {
  readonly #db: Database.Database;
  readonly #select: Database.Statement<[Uint8Array], Uint8Array>;
  readonly #exists: Database.Statement<[Uint8Array], number>;
  readonly #firstByte: Database.Statement<[Uint8Array], Uint8Array>;
  readonly #someCids: Database.Statement<[number], Uint8Array>;
  readonly #insert: Database.Statement<[Uint8Array, Uint8Array]>;
  readonly #insertMany: Database.Transaction<(blocks: Iterable<Block>) => void>;
  /** Told the CID of every block written (the chain pruner keeps them: src/chain/prune.ts). */
  readonly #writeListeners = new Set<(cid: CID) => void>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.#select = db.prepare<[Uint8Array], Uint8Array>('SELECT data FROM blocks WHERE cid = ?').pluck();
    this.#exists = db.prepare<[Uint8Array], number>('SELECT 1 FROM blocks WHERE cid = ?').pluck();
    this.#firstByte = db
      .prepare<[Uint8Array], Uint8Array>('SELECT substr(data, 1, 1) FROM blocks WHERE cid = ?')
      .pluck();
    this.#someCids = db.prepare<[number], Uint8Array>('SELECT cid FROM blocks LIMIT ?').pluck();
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

  /** `get` by a CID's binary form (the table's key), for bulk walks that hold CID bytes. */
  getEncoded(cid: Uint8Array): Uint8Array | undefined {
    try {
      return this.#select.get(cid);
    } catch (error) {
      throw asDatabaseError('reading a block', error);
    }
  }

  /**
   * The first byte of the block stored under these CID bytes (-1 for an empty block), or undefined
   * when there is none: presence and the CBOR head's major type without reading the whole block.
   */
  firstByte(cid: Uint8Array): number | undefined {
    try {
      const head = this.#firstByte.get(cid);
      return head === undefined ? undefined : (head[0] ?? -1);
    } catch (error) {
      throw asDatabaseError('looking up a block', error);
    }
  }

  /** The CIDs (as bytes) of the blocks stored, at most `limit` of them (a repo holding only its genesis). */
  someCids(limit: number): Uint8Array[] {
    return withSqlite('listing blocks', () => this.#someCids.all(limit));
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

  /**
   * Stores blocks given as CID bytes and data, verified by the caller, with one prepared insert
   * each and no savepoint of its own: for bulk imports, which run inside a transaction that spans
   * them all (`LedgerDatabase.exclusiveTransaction`). Write listeners still hear of every block.
   */
  putEncodedMany(blocks: Iterable<EncodedBlockData>): void {
    try {
      const listening = this.#writeListeners.size > 0;
      for (const { cidBytes, bytes } of blocks) {
        this.#insert.run(cidBytes, bytes);
        if (listening) {
          const cid = CID.decode(cidBytes);
          for (const listener of this.#writeListeners) listener(cid);
        }
      }
    } catch (error) {
      throw asDatabaseError('writing a batch of blocks', error);
    }
  }

  /** A staging area for a bulk write that moves into this store in CID order (`BlockStaging`). */
  stage(): BlockStaging {
    const notify =
      this.#writeListeners.size === 0
        ? undefined
        : (cids: Iterable<CID>) => {
            for (const cid of cids) for (const listener of this.#writeListeners) listener(cid);
          };
    return new BlockStaging(this.#db, (cid) => this.firstByte(cid), notify);
  }

  putMany(blocks: Iterable<Block>): void {
    try {
      this.#insertMany(blocks);
    } catch (error) {
      throw asDatabaseError('writing a batch of blocks', error);
    }
  }
}
