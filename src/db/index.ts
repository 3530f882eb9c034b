export { BlockStaging, type EncodedBlockData } from './block-staging.js';
export { BlockSweep, type DatabaseSize, type SweepBatch } from './block-sweep.js';
export {
  ChainIndex,
  type MessageInclusion,
  type MinedBlockRecord,
  type TipSetRecord,
  type TipSetStateRecord,
} from './chain-index.js';
export { DiskCidSet } from './cid-set.js';
export { LedgerDatabase } from './database.js';
export { DrandStore, type StoredDrandEntry } from './drand-store.js';
export { DatabaseError, SchemaVersionError } from './errors.js';
export { EthIndex, type EthLogQuery, type EthLogRecord } from './eth-index.js';
export { MpoolStore } from './mpool-store.js';
export { type NetBlockKind, NetBlockStore } from './net-block-store.js';
export { type SealingSectorRecord, SealingStore } from './sealing-store.js';
export { SqliteBlockstore } from './sqlite-blockstore.js';
