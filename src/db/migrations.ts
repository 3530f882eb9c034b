import type Database from 'better-sqlite3';
import { SchemaVersionError, withSqlite } from './errors.js';

/**
 * Schema migrations, applied in order; the database's `PRAGMA user_version` records how many ran.
 * Never edit a migration that has shipped: append a new one.
 */
export interface Migration {
  readonly description: string;
  readonly sql: string;
}

export const migrations: readonly Migration[] = [
  {
    description: 'blockstore: CID bytes → block bytes',
    sql: `CREATE TABLE blocks (
      cid BLOB PRIMARY KEY NOT NULL,
      data BLOB NOT NULL
    ) WITHOUT ROWID;`,
  },
  {
    description: 'mpool: local messages, config, MpoolPushMessage nonces and send UUIDs',
    sql: `CREATE TABLE mpool_local_messages (
      cid BLOB PRIMARY KEY NOT NULL,
      signed_message BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE mpool_config (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      json TEXT NOT NULL
    );
    CREATE TABLE mpool_next_nonces (
      address BLOB PRIMARY KEY NOT NULL,
      next_nonce INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE mpool_sent_by_uuid (
      uuid TEXT PRIMARY KEY NOT NULL,
      signed_message BLOB NOT NULL
    ) WITHOUT ROWID;`,
  },
  {
    description: 'chain index: tipsets, canonical chain, head, tipset states, message inclusions, slash filter',
    sql: `CREATE TABLE chain_meta (
      name TEXT PRIMARY KEY NOT NULL,
      value BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE tipsets (
      key BLOB PRIMARY KEY NOT NULL,
      height INTEGER NOT NULL,
      parents BLOB NOT NULL,
      weight TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX tipsets_by_height ON tipsets (height);
    CREATE TABLE canonical_chain (
      height INTEGER PRIMARY KEY NOT NULL,
      key BLOB NOT NULL
    );
    CREATE TABLE tipset_states (
      key BLOB PRIMARY KEY NOT NULL,
      state_root BLOB NOT NULL,
      receipts_root BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE message_inclusions (
      message BLOB PRIMARY KEY NOT NULL,
      tipset BLOB NOT NULL,
      height INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX message_inclusions_by_tipset ON message_inclusions (tipset);
    CREATE TABLE mined_blocks (
      miner BLOB NOT NULL,
      height INTEGER NOT NULL,
      parents BLOB NOT NULL,
      block BLOB NOT NULL,
      PRIMARY KEY (miner, height)
    ) WITHOUT ROWID;
    CREATE INDEX mined_blocks_by_parents ON mined_blocks (miner, parents);`,
  },
  {
    description: 'sealing: one row per sector being sealed, and the next sector number of each miner',
    sql: `CREATE TABLE sealing_sectors (
      miner INTEGER NOT NULL,
      sector_number INTEGER NOT NULL,
      state TEXT NOT NULL,
      seal_proof INTEGER NOT NULL,
      ticket_epoch INTEGER,
      ticket BLOB,
      comm_r BLOB,
      comm_d BLOB,
      message_uuid TEXT,
      pre_commit_message BLOB,
      pre_commit_epoch INTEGER,
      seed_epoch INTEGER,
      seed BLOB,
      proof BLOB,
      commit_message BLOB,
      invalid_proofs INTEGER NOT NULL,
      failure TEXT,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (miner, sector_number)
    ) WITHOUT ROWID;
    CREATE TABLE sealing_next_sector_numbers (
      miner INTEGER PRIMARY KEY NOT NULL,
      next_sector_number INTEGER NOT NULL
    );`,
  },
  {
    description: 'eth index: Ethereum transaction hash → message CID, Ethereum block hash → tipset key',
    sql: `CREATE TABLE eth_tx_hashes (
      hash BLOB PRIMARY KEY NOT NULL,
      message_cid BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE eth_tipset_hashes (
      hash BLOB PRIMARY KEY NOT NULL,
      tipset_key BLOB NOT NULL
    ) WITHOUT ROWID;`,
  },
  {
    description: 'drand: verified beacon entries per drand chain hash and round',
    sql: `CREATE TABLE drand_entries (
      chain_hash BLOB NOT NULL,
      round INTEGER NOT NULL,
      signature BLOB NOT NULL,
      previous_signature BLOB,
      PRIMARY KEY (chain_hash, round)
    ) WITHOUT ROWID;`,
  },
  {
    description: 'net: the peers, IPs and subnets NetBlockAdd refused, kept across restarts',
    sql: `CREATE TABLE net_blocklist (
      kind TEXT NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (kind, value)
    ) WITHOUT ROWID;`,
  },
  {
    description: "eth index: the EVM logs of executed tipsets (eth_getLogs) and each tipset's logs bloom",
    sql: `CREATE TABLE eth_log_tipsets (
      block_hash BLOB PRIMARY KEY NOT NULL,
      height INTEGER NOT NULL,
      bloom BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE eth_logs (
      block_hash BLOB NOT NULL,
      log_index INTEGER NOT NULL,
      height INTEGER NOT NULL,
      tx_index INTEGER NOT NULL,
      tx_hash BLOB NOT NULL,
      address BLOB NOT NULL,
      topic1 BLOB,
      topic2 BLOB,
      topic3 BLOB,
      topic4 BLOB,
      data BLOB NOT NULL,
      PRIMARY KEY (block_hash, log_index)
    ) WITHOUT ROWID;
    CREATE INDEX eth_logs_by_height ON eth_logs (height);
    CREATE INDEX eth_logs_by_address ON eth_logs (address, height);`,
  },
];

/** Brings the schema up to date, one transaction per migration; refuses a newer schema. */
export function migrate(db: Database.Database): void {
  const current = withSqlite('reading the schema version', () => db.pragma('user_version', { simple: true }) as number);
  if (current > migrations.length) throw new SchemaVersionError(current, migrations.length);
  for (let version = current + 1; version <= migrations.length; version++) {
    const migration = migrations[version - 1]!;
    const apply = db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${version}`);
    });
    withSqlite(`schema migration ${version} (${migration.description})`, apply);
  }
}
