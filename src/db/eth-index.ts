import type Database from 'better-sqlite3';
import { CID } from 'multiformats/cid';
import { TipSetKey } from '../types/tipset-key.js';
import { withSqlite } from './errors.js';

/** One EVM log of an executed tipset, where it sits included (filecoin-project/lotus `ethtypes.EthLog`). */
export interface EthLogRecord {
  /** The emitter's 20-byte Ethereum address. */
  readonly address: Uint8Array;
  /** Up to four 32-byte topics. */
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
  /** Block-wide: the event's position among all events of the tipset's messages. */
  readonly logIndex: number;
  readonly transactionIndex: number;
  readonly transactionHash: Uint8Array;
  readonly blockHash: Uint8Array;
  readonly blockNumber: bigint;
}

/**
 * What eth_getLogs asks the index for: logs in a height range (or of one block hash), from any of
 * `addresses` (all when empty), each topic position matching one of its values (any when null).
 */
export interface EthLogQuery {
  readonly minHeight: bigint;
  readonly maxHeight: bigint;
  readonly blockHash?: Uint8Array | undefined;
  readonly addresses: readonly Uint8Array[];
  readonly topics: readonly (readonly Uint8Array[] | null)[];
}

interface EthLogRow {
  block_hash: Uint8Array;
  log_index: number;
  height: number | bigint;
  tx_index: number;
  tx_hash: Uint8Array;
  address: Uint8Array;
  topic1: Uint8Array | null;
  topic2: Uint8Array | null;
  topic3: Uint8Array | null;
  topic4: Uint8Array | null;
  data: Uint8Array;
}

const TOPIC_COLUMNS = ['topic1', 'topic2', 'topic3', 'topic4'] as const;

function logOfRow(row: EthLogRow): EthLogRecord {
  const topics: Uint8Array[] = [];
  for (const column of TOPIC_COLUMNS) {
    const topic = row[column];
    if (topic === null) break;
    topics.push(topic);
  }
  return {
    address: row.address,
    topics,
    data: row.data,
    logIndex: row.log_index,
    transactionIndex: row.tx_index,
    transactionHash: row.tx_hash,
    blockHash: row.block_hash,
    blockNumber: BigInt(row.height),
  };
}

/**
 * The Ethereum JSON-RPC's lookups (Lotus keeps the same in its chain index, `chain/index/ddls.go`
 * `eth_tx_hash`): the message CID behind the Ethereum hash of each delegated-signed transaction
 * (its keccak hash cannot be derived from the CID), and the tipset key behind each tipset's
 * Ethereum block hash (the digest of the key's CID). Other messages' hashes are their CID digests
 * and need no row.
 */
export class EthIndex {
  readonly #insertTx: Database.Statement<[Uint8Array, Uint8Array]>;
  readonly #selectTx: Database.Statement<[Uint8Array], Uint8Array>;
  readonly #insertTipSet: Database.Statement<[Uint8Array, Uint8Array]>;
  readonly #selectTipSet: Database.Statement<[Uint8Array], Uint8Array>;
  readonly #db: Database.Database;
  readonly #insertLogTipSet: Database.Statement<[Uint8Array, bigint, Uint8Array]>;
  readonly #insertLog: Database.Statement<unknown[]>;
  readonly #selectBloom: Database.Statement<[Uint8Array], Uint8Array>;
  /** Log queries by their shape (which filters, how many values each): the SQL differs per shape. */
  readonly #queries = new Map<string, Database.Statement<unknown[], EthLogRow>>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.#insertLogTipSet = db.prepare(
      'INSERT INTO eth_log_tipsets (block_hash, height, bloom) VALUES (?, ?, ?) ON CONFLICT (block_hash) DO NOTHING',
    );
    this.#insertLog = db.prepare(
      `INSERT INTO eth_logs (block_hash, log_index, height, tx_index, tx_hash, address, topic1, topic2, topic3, topic4, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (block_hash, log_index) DO NOTHING`,
    );
    this.#selectBloom = db
      .prepare<[Uint8Array], Uint8Array>('SELECT bloom FROM eth_log_tipsets WHERE block_hash = ?')
      .pluck();
    this.#insertTx = db.prepare(
      'INSERT INTO eth_tx_hashes (hash, message_cid) VALUES (?, ?) ON CONFLICT (hash) DO UPDATE SET message_cid = excluded.message_cid',
    );
    this.#selectTx = db
      .prepare<[Uint8Array], Uint8Array>('SELECT message_cid FROM eth_tx_hashes WHERE hash = ?')
      .pluck();
    this.#insertTipSet = db.prepare(
      'INSERT INTO eth_tipset_hashes (hash, tipset_key) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING',
    );
    this.#selectTipSet = db
      .prepare<[Uint8Array], Uint8Array>('SELECT tipset_key FROM eth_tipset_hashes WHERE hash = ?')
      .pluck();
  }

  putTransaction(hash: Uint8Array, message: CID): void {
    withSqlite('indexing an Ethereum transaction hash', () => this.#insertTx.run(hash, message.bytes));
  }

  /** The message CID of a delegated transaction's Ethereum hash, if indexed. */
  messageOf(hash: Uint8Array): CID | undefined {
    const bytes = withSqlite('reading an Ethereum transaction hash', () => this.#selectTx.get(hash));
    return bytes === undefined ? undefined : CID.decode(bytes);
  }

  putTipSet(hash: Uint8Array, key: TipSetKey): void {
    withSqlite('indexing an Ethereum block hash', () => this.#insertTipSet.run(hash, key.bytes));
  }

  /** The tipset key of an Ethereum block hash, if indexed. */
  tipSetOf(hash: Uint8Array): TipSetKey | undefined {
    const bytes = withSqlite('reading an Ethereum block hash', () => this.#selectTipSet.get(hash));
    return bytes === undefined ? undefined : TipSetKey.fromBytes(bytes);
  }

  /**
   * Records the logs of an executed tipset and its bloom, once: a tipset's execution never
   * changes, so a second call (a tipset applied again after a reorg) writes nothing.
   */
  putLogs(blockHash: Uint8Array, height: bigint, bloom: Uint8Array, logs: readonly EthLogRecord[]): void {
    withSqlite('indexing Ethereum logs', () =>
      this.#db.transaction(() => {
        if (this.#insertLogTipSet.run(blockHash, height, bloom).changes === 0) return;
        for (const log of logs) {
          this.#insertLog.run(
            blockHash,
            log.logIndex,
            height,
            log.transactionIndex,
            log.transactionHash,
            log.address,
            ...TOPIC_COLUMNS.map((_, i) => log.topics[i] ?? null),
            log.data,
          );
        }
      })(),
    );
  }

  /** The logs bloom of an indexed tipset; undefined when its logs are not indexed. */
  bloomOf(blockHash: Uint8Array): Uint8Array | undefined {
    return withSqlite('reading a logs bloom', () => this.#selectBloom.get(blockHash));
  }

  /**
   * The indexed logs a query matches, by (height, log index), of every tipset indexed in the range
   * (the caller keeps the canonical ones).
   */
  *logs(query: EthLogQuery): Generator<EthLogRecord> {
    const conditions = ['height BETWEEN ? AND ?'];
    const values: unknown[] = [query.minHeight, query.maxHeight];
    const shape: string[] = [];
    if (query.blockHash !== undefined) {
      conditions.push('block_hash = ?');
      values.push(query.blockHash);
      shape.push('h');
    }
    if (query.addresses.length > 0) {
      conditions.push(`address IN (${query.addresses.map(() => '?').join(', ')})`);
      values.push(...query.addresses);
      shape.push(`a${query.addresses.length}`);
    }
    query.topics.forEach((wanted, i) => {
      if (wanted === null || wanted.length === 0) return;
      conditions.push(`${TOPIC_COLUMNS[i]} IN (${wanted.map(() => '?').join(', ')})`);
      values.push(...wanted);
      shape.push(`t${i}:${wanted.length}`);
    });
    const key = shape.join(',');
    let statement = this.#queries.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare<unknown[], EthLogRow>(
        `SELECT * FROM eth_logs WHERE ${conditions.join(' AND ')} ORDER BY height, block_hash, log_index`,
      );
      // Bounded: a client choosing many shapes does not grow the cache without limit.
      if (this.#queries.size >= 256) this.#queries.clear();
      this.#queries.set(key, statement);
    }
    const rows = withSqlite('reading Ethereum logs', () => statement.iterate(...values));
    for (const row of rows) yield logOfRow(row);
  }
}
