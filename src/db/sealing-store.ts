import type Database from 'better-sqlite3';
import { CID } from 'multiformats/cid';
import { withSqlite } from './errors.js';

/**
 * One sector of the sealing pipeline (`src/miner/sealing`) as it is persisted: its state and what
 * each step produced so far. Lotus keeps the same per sector in its `SectorInfo`
 * (filecoin-project/lotus `storage/pipeline/types.go`). Unset fields are null.
 */
export interface SealingSectorRecord {
  /** The miner's actor ID. */
  readonly miner: bigint;
  readonly sectorNumber: bigint;
  /** The pipeline state, by Lotus's name (`storage/pipeline/sector_state.go`). */
  readonly state: string;
  readonly sealProof: number;
  readonly ticketEpoch: bigint | null;
  readonly ticket: Uint8Array | null;
  readonly commR: Uint8Array | null;
  readonly commD: Uint8Array | null;
  /** MpoolPushMessage's idempotency key for the message the current step sends. */
  readonly messageUuid: string | null;
  readonly preCommitMessage: CID | null;
  readonly preCommitEpoch: bigint | null;
  readonly seedEpoch: bigint | null;
  readonly seed: Uint8Array | null;
  readonly proof: Uint8Array | null;
  readonly commitMessage: CID | null;
  /** Proofs computed for this sector that did not verify locally (Lotus `InvalidProofs`). */
  readonly invalidProofs: number;
  /** Why the sector last failed or went back a step. */
  readonly failure: string | null;
  /** Milliseconds since the Unix epoch of the last write. */
  readonly updatedAt: number;
}

interface SectorRow {
  miner: bigint;
  sector_number: bigint;
  state: string;
  seal_proof: bigint;
  ticket_epoch: bigint | null;
  ticket: Uint8Array | null;
  comm_r: Uint8Array | null;
  comm_d: Uint8Array | null;
  message_uuid: string | null;
  pre_commit_message: Uint8Array | null;
  pre_commit_epoch: bigint | null;
  seed_epoch: bigint | null;
  seed: Uint8Array | null;
  proof: Uint8Array | null;
  commit_message: Uint8Array | null;
  invalid_proofs: bigint;
  failure: string | null;
  updated_at: bigint;
}

const COLUMNS =
  'miner, sector_number, state, seal_proof, ticket_epoch, ticket, comm_r, comm_d, message_uuid, pre_commit_message, ' +
  'pre_commit_epoch, seed_epoch, seed, proof, commit_message, invalid_proofs, failure, updated_at';

function cidOrNull(bytes: Uint8Array | null): CID | null {
  return bytes === null ? null : CID.decode(bytes);
}

function fromRow(row: SectorRow): SealingSectorRecord {
  return {
    miner: row.miner,
    sectorNumber: row.sector_number,
    state: row.state,
    sealProof: Number(row.seal_proof),
    ticketEpoch: row.ticket_epoch,
    ticket: row.ticket,
    commR: row.comm_r,
    commD: row.comm_d,
    messageUuid: row.message_uuid,
    preCommitMessage: cidOrNull(row.pre_commit_message),
    preCommitEpoch: row.pre_commit_epoch,
    seedEpoch: row.seed_epoch,
    seed: row.seed,
    proof: row.proof,
    commitMessage: cidOrNull(row.commit_message),
    invalidProofs: Number(row.invalid_proofs),
    failure: row.failure,
    updatedAt: Number(row.updated_at),
  };
}

function toRow(record: SealingSectorRecord): unknown[] {
  return [
    record.miner,
    record.sectorNumber,
    record.state,
    record.sealProof,
    record.ticketEpoch,
    record.ticket,
    record.commR,
    record.commD,
    record.messageUuid,
    record.preCommitMessage?.bytes ?? null,
    record.preCommitEpoch,
    record.seedEpoch,
    record.seed,
    record.proof,
    record.commitMessage?.bytes ?? null,
    record.invalidProofs,
    record.failure,
    record.updatedAt,
  ];
}

/**
 * The sealing pipeline's tables: a row per sector, written whole on each transition (one statement,
 * so a crash keeps either the old state or the new one), and per miner the next sector number to
 * hand out, which only grows, so a number is never used twice.
 */
export class SealingStore {
  readonly #db: Database.Database;
  readonly #select: Database.Statement<[bigint, bigint], SectorRow>;
  readonly #selectByMiner: Database.Statement<[bigint], SectorRow>;
  readonly #insert: Database.Statement<unknown[]>;
  readonly #update: Database.Statement<unknown[]>;
  readonly #selectNext: Database.Statement<[bigint], bigint>;
  readonly #upsertNext: Database.Statement<[bigint, bigint]>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#select = db
      .prepare<[bigint, bigint], SectorRow>(
        `SELECT ${COLUMNS} FROM sealing_sectors WHERE miner = ? AND sector_number = ?`,
      )
      .safeIntegers();
    this.#selectByMiner = db
      .prepare<[bigint], SectorRow>(`SELECT ${COLUMNS} FROM sealing_sectors WHERE miner = ? ORDER BY sector_number`)
      .safeIntegers();
    const placeholders = COLUMNS.split(',')
      .map(() => '?')
      .join(', ');
    this.#insert = db.prepare(`INSERT INTO sealing_sectors (${COLUMNS}) VALUES (${placeholders})`);
    this.#update = db.prepare(`REPLACE INTO sealing_sectors (${COLUMNS}) VALUES (${placeholders})`);
    this.#selectNext = db
      .prepare<[bigint], bigint>('SELECT next_sector_number FROM sealing_next_sector_numbers WHERE miner = ?')
      .pluck()
      .safeIntegers();
    this.#upsertNext = db.prepare(
      'INSERT INTO sealing_next_sector_numbers (miner, next_sector_number) VALUES (?, ?) ' +
        'ON CONFLICT (miner) DO UPDATE SET next_sector_number = excluded.next_sector_number',
    );
  }

  /**
   * Takes the miner's next sector number — at least `floor` (the number above every sector the
   * chain knows the miner has) — and stores the sector `create` builds for it, in one transaction.
   */
  allocate(miner: bigint, floor: bigint, create: (sectorNumber: bigint) => SealingSectorRecord): SealingSectorRecord {
    const allocate = this.#db.transaction(() => {
      const next = this.#selectNext.get(miner) ?? 0n;
      const sectorNumber = next > floor ? next : floor;
      const record = create(sectorNumber);
      this.#insert.run(...toRow(record));
      this.#upsertNext.run(miner, sectorNumber + 1n);
      return record;
    });
    return withSqlite('allocating a sector number', () => allocate());
  }

  /** Replaces the sector's row (its next state with everything the step produced). */
  put(record: SealingSectorRecord): void {
    withSqlite(`writing sector ${record.sectorNumber}`, () => this.#update.run(...toRow(record)));
  }

  get(miner: bigint, sectorNumber: bigint): SealingSectorRecord | undefined {
    const row = withSqlite(`reading sector ${sectorNumber}`, () => this.#select.get(miner, sectorNumber));
    return row === undefined ? undefined : fromRow(row);
  }

  /** The miner's sectors, by number. */
  list(miner: bigint): SealingSectorRecord[] {
    return withSqlite('reading the sealing sectors', () => this.#selectByMiner.all(miner)).map(fromRow);
  }
}
