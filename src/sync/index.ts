/**
 * Chain sync: the block intake (the one way blocks enter the chain), the sync manager (catch up,
 * follow heads, forks), its workers' state as Lotus reports it, the bad-block cache, gossip block
 * checks and the wiring to the network.
 */
export { BAD_BLOCK_CACHE_SIZE, BadBlockCache, type BadBlockReason } from './bad-blocks.js';
export {
  BlockIntake,
  type BlockIntakeOptions,
  type BlockOrigin,
  isLastingValidationFailure,
  type SubmitOptions,
  type TipSetValidator,
} from './block-intake.js';
export { SyncError, SyncErrorCode } from './errors.js';
export { checkGossipBlock, type GossipBlockResult } from './gossip-block-check.js';
export { connectSyncToNetwork, type NetworkSyncOptions } from './network-sync.js';
export { type PeerPenalizer, SyncManager, type SyncManagerOptions } from './sync-manager.js';
export {
  type ActiveSyncJson,
  SyncStage,
  type SyncStateJson,
  SyncWorkerState,
  syncStageName,
  workerStateToLotusJson,
} from './sync-state.js';
