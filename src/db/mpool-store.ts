import type Database from 'better-sqlite3';
import { withSqlite } from './errors.js';

/**
 * What the message pool keeps across restarts (Lotus keeps the same in its metadata datastore):
 * the local messages still pending, as SignedMessage CBOR keyed by their CID bytes; the pool's
 * config as Lotus JSON; the next nonce MpoolPushMessage hands out per sender; and the message each
 * MpoolPushMessage UUID produced, so a retried send returns it instead of sending again.
 */
export class MpoolStore {
  readonly #insertLocal: Database.Statement<[Uint8Array, Uint8Array]>;
  readonly #deleteLocal: Database.Statement<[Uint8Array]>;
  readonly #deleteAllLocal: Database.Statement<[]>;
  readonly #selectLocal: Database.Statement<[], Uint8Array>;
  readonly #selectConfig: Database.Statement<[], string>;
  readonly #upsertConfig: Database.Statement<[string]>;
  readonly #selectNonce: Database.Statement<[Uint8Array], bigint>;
  readonly #upsertNonce: Database.Statement<[Uint8Array, bigint]>;
  readonly #selectSent: Database.Statement<[string], Uint8Array>;
  readonly #insertSent: Database.Statement<[string, Uint8Array]>;

  constructor(db: Database.Database) {
    this.#insertLocal = db.prepare(
      'INSERT INTO mpool_local_messages (cid, signed_message) VALUES (?, ?) ON CONFLICT (cid) DO NOTHING',
    );
    this.#deleteLocal = db.prepare('DELETE FROM mpool_local_messages WHERE cid = ?');
    this.#deleteAllLocal = db.prepare('DELETE FROM mpool_local_messages');
    this.#selectLocal = db.prepare<[], Uint8Array>('SELECT signed_message FROM mpool_local_messages').pluck();
    this.#selectConfig = db.prepare<[], string>('SELECT json FROM mpool_config WHERE id = 1').pluck();
    this.#upsertConfig = db.prepare(
      'INSERT INTO mpool_config (id, json) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json',
    );
    this.#selectNonce = db
      .prepare<[Uint8Array], bigint>('SELECT next_nonce FROM mpool_next_nonces WHERE address = ?')
      .pluck()
      .safeIntegers();
    this.#upsertNonce = db.prepare(
      'INSERT INTO mpool_next_nonces (address, next_nonce) VALUES (?, ?) ON CONFLICT (address) DO UPDATE SET next_nonce = excluded.next_nonce',
    );
    this.#selectSent = db
      .prepare<[string], Uint8Array>('SELECT signed_message FROM mpool_sent_by_uuid WHERE uuid = ?')
      .pluck();
    this.#insertSent = db.prepare(
      'INSERT INTO mpool_sent_by_uuid (uuid, signed_message) VALUES (?, ?) ON CONFLICT (uuid) DO NOTHING',
    );
  }

  putLocalMessage(cid: Uint8Array, signedMessage: Uint8Array): void {
    withSqlite('storing a local message', () => this.#insertLocal.run(cid, signedMessage));
  }

  deleteLocalMessage(cid: Uint8Array): void {
    withSqlite('deleting a local message', () => this.#deleteLocal.run(cid));
  }

  deleteAllLocalMessages(): void {
    withSqlite('deleting the local messages', () => this.#deleteAllLocal.run());
  }

  /** Every stored local message, as SignedMessage CBOR. */
  localMessages(): Uint8Array[] {
    return withSqlite('reading the local messages', () => this.#selectLocal.all());
  }

  /** The stored config (Lotus MpoolConfig JSON), or undefined before the first MpoolSetConfig. */
  config(): string | undefined {
    return withSqlite('reading the mpool config', () => this.#selectConfig.get());
  }

  saveConfig(json: string): void {
    withSqlite('saving the mpool config', () => this.#upsertConfig.run(json));
  }

  /** The next nonce MpoolPushMessage recorded for a sender (by address bytes). */
  nextNonce(address: Uint8Array): bigint | undefined {
    return withSqlite('reading a sender nonce', () => this.#selectNonce.get(address));
  }

  saveNextNonce(address: Uint8Array, nonce: bigint): void {
    withSqlite('saving a sender nonce', () => this.#upsertNonce.run(address, nonce));
  }

  /** The SignedMessage CBOR an MpoolPushMessage UUID produced. */
  sentMessage(uuid: string): Uint8Array | undefined {
    return withSqlite('reading a sent message', () => this.#selectSent.get(uuid));
  }

  saveSentMessage(uuid: string, signedMessage: Uint8Array): void {
    withSqlite('saving a sent message', () => this.#insertSent.run(uuid, signedMessage));
  }
}
