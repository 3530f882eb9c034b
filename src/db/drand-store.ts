import type Database from 'better-sqlite3';
import { withSqlite } from './errors.js';

/** A verified drand round as stored: its signature and, on chained networks, the previous round's. */
export interface StoredDrandEntry {
  readonly signature: Uint8Array;
  readonly previousSignature: Uint8Array | undefined;
}

/**
 * Verified drand beacon entries, keyed by drand chain hash and round, so a restarted node or a
 * re-validated block does not fetch or verify a round twice (Lotus keeps an in-memory cache of the
 * same, filecoin-project/lotus `chain/beacon/drand/drand.go` localCache). Only verified entries
 * are written: the beacon checks them before `put`.
 */
export class DrandStore {
  readonly #select: Database.Statement<
    [Uint8Array, bigint],
    { signature: Uint8Array; previous_signature: Uint8Array | null }
  >;
  readonly #insert: Database.Statement<[Uint8Array, bigint, Uint8Array, Uint8Array | null]>;
  readonly #count: Database.Statement<[Uint8Array], bigint>;

  constructor(db: Database.Database) {
    this.#select = db.prepare(
      'SELECT signature, previous_signature FROM drand_entries WHERE chain_hash = ? AND round = ?',
    );
    this.#insert = db.prepare(
      'INSERT INTO drand_entries (chain_hash, round, signature, previous_signature) VALUES (?, ?, ?, ?) ON CONFLICT (chain_hash, round) DO NOTHING',
    );
    this.#count = db
      .prepare<[Uint8Array], bigint>('SELECT count(*) FROM drand_entries WHERE chain_hash = ?')
      .pluck()
      .safeIntegers();
  }

  get(chainHash: Uint8Array, round: bigint): StoredDrandEntry | undefined {
    const row = withSqlite('reading a drand entry', () => this.#select.get(chainHash, round));
    if (row === undefined) return undefined;
    return { signature: row.signature, previousSignature: row.previous_signature ?? undefined };
  }

  put(chainHash: Uint8Array, round: bigint, entry: StoredDrandEntry): void {
    withSqlite('storing a drand entry', () =>
      this.#insert.run(chainHash, round, entry.signature, entry.previousSignature ?? null),
    );
  }

  /** How many rounds of the chain are stored. */
  count(chainHash: Uint8Array): bigint {
    return withSqlite('counting drand entries', () => this.#count.get(chainHash) ?? 0n);
  }
}
