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
