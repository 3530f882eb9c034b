// Where build caches live: outside the clone, so fresh clones and CI runs reuse them.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const cacheRoot = process.env.LEDGER_CACHE_DIR ?? join(homedir(), '.cache', 'ledger-node');
export const cargoTargetDir = process.env.CARGO_TARGET_DIR ?? join(cacheRoot, 'target');
