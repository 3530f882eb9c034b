/**
 * The node's window PoSt scheduler (lotus-miner's `storage/wdpost`): proves each deadline's
 * partitions of a local miner in time, skips the sectors it cannot read and declares them
 * recovered once they are readable again.
 */
export type { ProvingView, WindowPostChainApi } from './chain-api.js';
export { headProvingView, nodeWindowPostChainApi } from './node-chain-api.js';
export {
  CHALLENGE_CONFIDENCE,
  deadlinesToProve,
  type PartitionProof,
  proofSectors,
  provingBatches,
  RECOVERY_MARGIN,
  recoveryDeadline,
  recoveryDeclarations,
  SUBMIT_LEAD,
  sectorsToProve,
  submissionDue,
} from './plan.js';
export { challengeRandomness, proveBatch, provenSectors } from './prover.js';
export {
  WindowPostScheduler,
  type WindowPostSchedulerOptions,
  type WindowPostStatus,
  type WindowPostSubmission,
} from './scheduler.js';
export { readableSectors, sectorFiles } from './sector-files.js';
