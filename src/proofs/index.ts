export {
  commDFromCid,
  commRFromCid,
  FIL_COMMITMENT_SEALED,
  FIL_COMMITMENT_UNSEALED,
  sealedCid,
  unsealedCid,
  zeroCommDCid,
} from './commitments.js';
export { configureProofs, type ProofsDirs, parameterDir, proofsDirs } from './environment.js';
export { PROOFS_ERROR_CODES, ProofsError, type ProofsErrorCode } from './errors.js';
export type { DealProposalJson, GenesisMinerJson, KeyInfoJson, PreSealJson } from './genesis-miner.js';
export {
  ALL_CIRCUITS,
  type Circuit,
  ensureParameters,
  type ParameterOptions,
  type ParameterProgress,
  type ParameterStatus,
  POST_CIRCUITS,
  parameterStatus,
} from './parameters.js';
export {
  challengedSectors,
  generateWindowPost,
  generateWinningPost,
  type PoStRequest,
  type PoStSector,
  preloadWinningPostKey,
  verifyWindowPost,
  verifyWindowPostSync,
  verifyWinningPost,
  winningPostSectorChallenge,
} from './post.js';
export { type PreSealOptions, type PreSealResult, preSeal } from './preseal.js';
export {
  DEVNET_SEAL_PROOF,
  DEVNET_WINDOW_POST_PROOF,
  DEVNET_WINNING_POST_PROOF,
  RegisteredPoStProof,
  RegisteredSealProof,
  sectorSize,
  windowPostProofOf,
} from './registered-proofs.js';
export {
  addPiece,
  batchVerifySealsSync,
  type CommitPhase1Output,
  commitPhase1,
  commitPhase2,
  commitSector,
  finalizeSector,
  type PreCommitPhase1Output,
  precommitPhase1,
  precommitPhase2,
  precommitSector,
  presealSector,
  type SealVerifyInfo,
  type SectorCommitments,
  type SectorRef,
  verifySeal,
  verifySealSync,
} from './seal.js';
export { type Sealer, SealProcess } from './seal-process.js';
export {
  onProofTiming,
  type ProofKind,
  type ProofOperation,
  type ProofTiming,
  type ProofTimingListener,
} from './timing.js';
