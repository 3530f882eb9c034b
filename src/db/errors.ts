import { LedgerError } from '../utils/errors.js';

/** SQLite refused an operation; `details.sqliteCode` keeps SQLite's own code (e.g. SQLITE_BUSY). */
export class DatabaseError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown; sqliteCode?: string }) {
    super('ERR_DATABASE', message, {
      cause: options?.cause,
      details: options?.sqliteCode === undefined ? undefined : { sqliteCode: options.sqliteCode },
    });
  }
}

/** The database was written by a newer node whose schema this one does not know. */
export class SchemaVersionError extends LedgerError {
  constructor(found: number, supported: number) {
    super(
      'ERR_SCHEMA_VERSION',
      `database schema version ${found} is newer than this node supports (${supported}); upgrade the node`,
      { details: { found, supported } },
    );
  }
}

/**
 * Runs a SQLite call, turning better-sqlite3's errors into a DatabaseError that says what was
 * being done. Errors that are already LedgerErrors, or not SQLite's, pass through unchanged.
 */
export function withSqlite<T>(what: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw asDatabaseError(what, error);
  }
}

export function asDatabaseError(what: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof LedgerError || typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  return new DatabaseError(`${what} failed: ${(error as Error).message} (${code})`, { cause: error, sqliteCode: code });
}
