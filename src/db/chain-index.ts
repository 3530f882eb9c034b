import type Database from 'better-sqlite3';
import { CID } from 'multiformats/cid';
import { TipSetKey } from '../types/tipset-key.js';
import { withSqlite } from './errors.js';

/** A tipset the chain store accepted: where it sits and how heavy it is. */
export interface TipSetRecord {
  readonly key: TipSetKey;
  readonly height: bigint;
  readonly parents: TipSetKey;
  readonly weight: bigint;
}

/** What executing a tipset produced: its children's ParentStateRoot and ParentMessageReceipts. */
export interface TipSetStateRecord {
  readonly stateRoot: CID;
  readonly receiptsRoot: CID;
}

export interface MessageInclusion {
  readonly tipSet: TipSetKey;
  readonly height: bigint;
}

export interface MinedBlockRecord {
  readonly height: bigint;
  readonly parents: TipSetKey;
  readonly block: CID;
}

/**
 * The chain's index tables beside the blockstore (headers and messages live in the blockstore):
 * accepted tipsets with their weights, the canonical chain by height, the head and the genesis,
 * each executed tipset's state and receipts roots, which canonical tipset included each message,
 * and the blocks this node's miners signed (the slash filter). Statements are prepared once;
 * callers group writes with `LedgerDatabase.transaction`.
 */
export class ChainIndex {
  readonly #selectMeta: Database.Statement<[string], Uint8Array>;
  readonly #upsertMeta: Database.Statement<[string, Uint8Array]>;
  readonly #insertTipSet: Database.Statement<[Uint8Array, number, Uint8Array, string]>;
  readonly #selectTipSet: Database.Statement<[Uint8Array], { height: number; parents: Uint8Array; weight: string }>;
  readonly #selectKeysAtHeight: Database.Statement<[number], Uint8Array>;
  readonly #selectMaxHeight: Database.Statement<[], number | null>;
  readonly #upsertCanonical: Database.Statement<[number, Uint8Array]>;
  readonly #deleteCanonicalAbove: Database.Statement<[number]>;
  readonly #selectCanonicalAtOrBelow: Database.Statement<[number], { height: number; key: Uint8Array }>;
  readonly #selectCanonicalAbove: Database.Statement<[number], { height: number; key: Uint8Array }>;
  readonly #selectState: Database.Statement<[Uint8Array], { state_root: Uint8Array; receipts_root: Uint8Array }>;
  readonly #insertState: Database.Statement<[Uint8Array, Uint8Array, Uint8Array]>;
  readonly #insertInclusion: Database.Statement<[Uint8Array, Uint8Array, number]>;
  readonly #deleteInclusions: Database.Statement<[Uint8Array]>;
  readonly #selectInclusion: Database.Statement<[Uint8Array], { tipset: Uint8Array; height: number }>;
  readonly #selectMinedAt: Database.Statement<[Uint8Array, number], { parents: Uint8Array; block: Uint8Array }>;
  readonly #selectMinedOn: Database.Statement<[Uint8Array, Uint8Array], { height: number; block: Uint8Array }>;
  readonly #insertMined: Database.Statement<[Uint8Array, number, Uint8Array, Uint8Array]>;
  readonly #deleteMined: Database.Statement<[Uint8Array, number]>;

  constructor(db: Database.Database) {
    this.#selectMeta = db.prepare<[string], Uint8Array>('SELECT value FROM chain_meta WHERE name = ?').pluck();
    this.#upsertMeta = db.prepare(
      'INSERT INTO chain_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    this.#insertTipSet = db.prepare(
      'INSERT INTO tipsets (key, height, parents, weight) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
    );
    this.#selectTipSet = db.prepare('SELECT height, parents, weight FROM tipsets WHERE key = ?');
    this.#selectKeysAtHeight = db
      .prepare<[number], Uint8Array>('SELECT key FROM tipsets WHERE height = ? ORDER BY key')
      .pluck();
    this.#selectMaxHeight = db.prepare<[], number | null>('SELECT max(height) FROM tipsets').pluck();
    this.#upsertCanonical = db.prepare(
      'INSERT INTO canonical_chain (height, key) VALUES (?, ?) ON CONFLICT (height) DO UPDATE SET key = excluded.key',
    );
    this.#deleteCanonicalAbove = db.prepare('DELETE FROM canonical_chain WHERE height > ?');
    this.#selectCanonicalAtOrBelow = db.prepare(
      'SELECT height, key FROM canonical_chain WHERE height <= ? ORDER BY height DESC LIMIT 1',
    );
    this.#selectCanonicalAbove = db.prepare(
      'SELECT height, key FROM canonical_chain WHERE height > ? ORDER BY height LIMIT 1',
    );
    this.#selectState = db.prepare('SELECT state_root, receipts_root FROM tipset_states WHERE key = ?');
    this.#insertState = db.prepare(
      'INSERT INTO tipset_states (key, state_root, receipts_root) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
    );
    // The first canonical tipset to include a message keeps it: a later copy is never executed.
    this.#insertInclusion = db.prepare(
      'INSERT INTO message_inclusions (message, tipset, height) VALUES (?, ?, ?) ON CONFLICT (message) DO NOTHING',
    );
    this.#deleteInclusions = db.prepare('DELETE FROM message_inclusions WHERE tipset = ?');
    this.#selectInclusion = db.prepare('SELECT tipset, height FROM message_inclusions WHERE message = ?');
    this.#selectMinedAt = db.prepare('SELECT parents, block FROM mined_blocks WHERE miner = ? AND height = ?');
    this.#selectMinedOn = db.prepare(
      'SELECT height, block FROM mined_blocks WHERE miner = ? AND parents = ? ORDER BY height LIMIT 1',
    );
    this.#insertMined = db.prepare(
      'INSERT INTO mined_blocks (miner, height, parents, block) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.#deleteMined = db.prepare('DELETE FROM mined_blocks WHERE miner = ? AND height = ?');
  }

  getMeta(name: string): Uint8Array | undefined {
    return withSqlite(`reading chain ${name}`, () => this.#selectMeta.get(name));
  }

  setMeta(name: string, value: Uint8Array): void {
    withSqlite(`writing chain ${name}`, () => this.#upsertMeta.run(name, value));
  }

  putTipSet(record: TipSetRecord): void {
    withSqlite(`indexing tipset ${record.key}`, () =>
      this.#insertTipSet.run(record.key.bytes, Number(record.height), record.parents.bytes, record.weight.toString()),
    );
  }

  getTipSet(key: TipSetKey): TipSetRecord | undefined {
    const row = withSqlite(`reading tipset ${key}`, () => this.#selectTipSet.get(key.bytes));
    if (row === undefined) return undefined;
    return {
      key,
      height: BigInt(row.height),
      parents: TipSetKey.fromBytes(row.parents),
      weight: BigInt(row.weight),
    };
  }

  /** Every accepted tipset at `height`, canonical or not. */
  tipSetKeysAt(height: bigint): TipSetKey[] {
    return withSqlite(`listing tipsets at ${height}`, () => this.#selectKeysAtHeight.all(Number(height))).map((bytes) =>
      TipSetKey.fromBytes(bytes),
    );
  }

  /** The height of the tallest accepted tipset (a lighter fork can be taller than the head), or undefined. */
  maxTipSetHeight(): bigint | undefined {
    const height = withSqlite('reading the tallest tipset', () => this.#selectMaxHeight.get());
    return height === null || height === undefined ? undefined : BigInt(height);
  }

  setCanonical(height: bigint, key: TipSetKey): void {
    withSqlite(`indexing the canonical tipset at ${height}`, () =>
      this.#upsertCanonical.run(Number(height), key.bytes),
    );
  }

  /** Forgets the canonical tipsets above `height` (a reorg replaces them). */
  truncateCanonical(height: bigint): void {
    withSqlite(`truncating the canonical chain above ${height}`, () => this.#deleteCanonicalAbove.run(Number(height)));
  }

  /** The highest canonical tipset at or below `height`: null rounds have no row. */
  canonicalAtOrBelow(height: bigint): { height: bigint; key: TipSetKey } | undefined {
    const row = withSqlite(`reading the canonical chain at ${height}`, () =>
      this.#selectCanonicalAtOrBelow.get(Number(height)),
    );
    return row === undefined ? undefined : { height: BigInt(row.height), key: TipSetKey.fromBytes(row.key) };
  }

  /** The lowest canonical tipset above `height`. */
  canonicalAbove(height: bigint): { height: bigint; key: TipSetKey } | undefined {
    const row = withSqlite(`reading the canonical chain above ${height}`, () =>
      this.#selectCanonicalAbove.get(Number(height)),
    );
    return row === undefined ? undefined : { height: BigInt(row.height), key: TipSetKey.fromBytes(row.key) };
  }

  getTipSetState(key: TipSetKey): TipSetStateRecord | undefined {
    const row = withSqlite(`reading the state of tipset ${key}`, () => this.#selectState.get(key.bytes));
    return row === undefined
      ? undefined
      : { stateRoot: CID.decode(row.state_root), receiptsRoot: CID.decode(row.receipts_root) };
  }

  putTipSetState(key: TipSetKey, state: TipSetStateRecord): void {
    withSqlite(`recording the state of tipset ${key}`, () =>
      this.#insertState.run(key.bytes, state.stateRoot.bytes, state.receiptsRoot.bytes),
    );
  }

  putMessageInclusions(tipSet: TipSetKey, height: bigint, messages: readonly CID[]): void {
    withSqlite(`indexing the messages of tipset ${tipSet}`, () => {
      for (const message of messages) this.#insertInclusion.run(message.bytes, tipSet.bytes, Number(height));
    });
  }

  deleteMessageInclusions(tipSet: TipSetKey): void {
    withSqlite(`unindexing the messages of tipset ${tipSet}`, () => this.#deleteInclusions.run(tipSet.bytes));
  }

  /** The canonical tipset that included a message (by its chain CID). */
  findMessageInclusion(message: CID): MessageInclusion | undefined {
    const row = withSqlite(`looking up message ${message}`, () => this.#selectInclusion.get(message.bytes));
    return row === undefined ? undefined : { tipSet: TipSetKey.fromBytes(row.tipset), height: BigInt(row.height) };
  }

  /** The block a miner signed at `height`, if any. */
  minedBlockAt(miner: Uint8Array, height: bigint): MinedBlockRecord | undefined {
    const row = withSqlite('reading the slash filter', () => this.#selectMinedAt.get(miner, Number(height)));
    return row === undefined
      ? undefined
      : { height, parents: TipSetKey.fromBytes(row.parents), block: CID.decode(row.block) };
  }

  /** The lowest block a miner signed on these parents, if any. */
  minedBlockOn(miner: Uint8Array, parents: TipSetKey): MinedBlockRecord | undefined {
    const row = withSqlite('reading the slash filter', () => this.#selectMinedOn.get(miner, parents.bytes));
    return row === undefined ? undefined : { height: BigInt(row.height), parents, block: CID.decode(row.block) };
  }

  putMinedBlock(miner: Uint8Array, record: MinedBlockRecord): void {
    withSqlite('writing the slash filter', () =>
      this.#insertMined.run(miner, Number(record.height), record.parents.bytes, record.block.bytes),
    );
  }

  /** Forgets the block a miner signed at `height` (a record of a block that never joined the chain). */
  deleteMinedBlock(miner: Uint8Array, height: bigint): void {
    withSqlite('writing the slash filter', () => this.#deleteMined.run(miner, Number(height)));
  }
}
