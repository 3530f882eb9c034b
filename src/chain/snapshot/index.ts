/**
 * Chain snapshots: export (Lotus v1 CAR, full or minimal) and import (validated, transactional),
 * and the state window a node started from a minimal snapshot has.
 */
export { SnapshotError, SnapshotErrorCode, StateNotAvailableError } from './errors.js';
export {
  DEFAULT_RECENT_STATE_ROOTS,
  type ExportOptions,
  type ExportProgress,
  type ExportSummary,
  exportSnapshot,
  exportSnapshotToFile,
} from './export.js';
export { ExportJobs } from './export-jobs.js';
export {
  IMPORT_PAGE_CACHE_MIB,
  type ImportMode,
  type ImportOptions,
  type ImportProgress,
  type ImportSummary,
  importSnapshot,
} from './import.js';
export { openSnapshotSource, type SnapshotSource } from './source.js';
export {
  assertStateAvailable,
  oldestStateEpoch,
  type StateWindowChain,
  type StateWindowSource,
  statePruned,
} from './state-window.js';
export { SnapshotWalk, type SnapshotWalkOptions } from './walk.js';
