/**
 * The chain: block headers and messages, tipsets, the heaviest head and its changes, weights, base
 * fees and the state after each tipset. Validation is `consensus`'s job; this module stores what
 * consensus accepted and answers questions about it.
 */
export { childBaseFee } from './base-fee.js';
export {
  type BlockMessages,
  blockMessageCids,
  loadBlockMessages,
  putBlockMessages,
  putTxMeta,
  type StoredBlockMessages,
  txMetaCidOf,
} from './block-messages.js';
export { type AddedBlocks, ChainStore, type ChainStoreOptions } from './chain-store.js';
export { ChainError, ChainErrorCode } from './errors.js';
export { cidOfEthHash, ethBlockHash, ethHashOfCid, ethTxHashOf } from './eth-hashes.js';
export { EthIndexer } from './eth-indexer.js';
export {
  BLOOM_BYTES,
  bloomAdd,
  type ExecutedMessages,
  ethLogFromEvent,
  executedByChild,
  executedLogs,
  indexTipSetLogs,
  logsBloom,
  receiptEvents,
  signedMessageOfChainMessage,
} from './eth-logs.js';
export {
  type HeadChange,
  type HeadChangeListener,
  type HeadChangeSource,
  headChangePath,
  headChangeSteps,
} from './head-change.js';
export { ChainPruner, DEFAULT_PRUNE_WINDOW, type PruneOptions, type PruneSummary } from './prune.js';
export { PruneSchedule, type PruneScheduleOptions } from './prune-schedule.js';
export { type BeaconSchedule, ChainRandomness } from './randomness.js';
export { TipSetStates } from './tipset-states.js';
export { tipSetWeight } from './weight.js';
