/**
 * The node's sealing pipeline for committed-capacity sectors (lotus-miner's `storage/pipeline`):
 * the per-sector state machine persisted in the node database, and the narrow chain API it runs on.
 */
export type {
  PreCommitOnChain,
  SealingChainApi,
  SealingHead,
  SealingMessage,
  SealingMessageLookup,
  SealingMinerInfo,
} from './chain-api.js';
export { committedCapacityExpiration, preCommitMessage, proveCommitMessage } from './messages.js';
export { type NodeSealingChainOptions, nodeSealingChainApi } from './node-chain-api.js';
export {
  DEFAULT_CC_SECTOR_LIFETIME,
  DEFAULT_MESSAGE_CONFIDENCE,
  INTERACTIVE_POREP_CONFIDENCE,
  packingSector,
  SealingPipeline,
  type SealingPipelineOptions,
  type SealingSector,
} from './pipeline.js';
export { isTerminalState, parseSectorState, SectorState } from './sector-state.js';
