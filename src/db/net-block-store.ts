import type Database from 'better-sqlite3';
import { withSqlite } from './errors.js';

/** The kinds of entry NetBlockAdd takes (Lotus `api.NetBlockList`: Peers, IPAddrs, IPSubnets). */
export type NetBlockKind = 'peer' | 'ip' | 'subnet';

/**
 * The peers, IPs and subnets the node refuses, kept across restarts as Lotus keeps its connection
 * gater's list in the datastore (go-libp2p `p2p/net/conngater`). Values are stored as the caller
 * gives them, already canonical (src/net/peer-block-list.ts).
 */
export class NetBlockStore {
  readonly #db: Database.Database;
  readonly #all: Database.Statement<[], { kind: NetBlockKind; value: string }>;
  readonly #insert: Database.Statement<[NetBlockKind, string]>;
  readonly #delete: Database.Statement<[NetBlockKind, string]>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#all = db.prepare('SELECT kind, value FROM net_blocklist ORDER BY kind, value');
    this.#insert = db.prepare('INSERT INTO net_blocklist (kind, value) VALUES (?, ?) ON CONFLICT DO NOTHING');
    this.#delete = db.prepare('DELETE FROM net_blocklist WHERE kind = ? AND value = ?');
  }

  list(): { kind: NetBlockKind; value: string }[] {
    return withSqlite('reading the net block list', () => this.#all.all());
  }

  /** Adds (or, with `remove`, removes) every entry in one transaction. */
  update(entries: readonly { kind: NetBlockKind; value: string }[], remove = false): void {
    const statement = remove ? this.#delete : this.#insert;
    const run = this.#db.transaction(() => {
      for (const { kind, value } of entries) statement.run(kind, value);
    });
    withSqlite('writing the net block list', run);
  }
}
