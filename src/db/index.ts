export { LedgerDatabase } from './database.js';
export { DatabaseError, SchemaVersionError } from './errors.js';
export { SqliteBlockstore } from './sqlite-blockstore.js';
