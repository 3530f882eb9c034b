import type Database from 'better-sqlite3';
import { CID } from 'multiformats/cid';
import { TipSetKey } from '../types/tipset-key.js';
import { withSqlite } from './errors.js';

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

  constructor(db: Database.Database) {
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
}
