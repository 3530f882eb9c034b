/**
 * Storage miner policy (builtin-actors `actors/miner/src/policy.rs`, `runtime/src/runtime/policy.rs`,
 * go-state-types `abi/sector.go`): sector sizes and proof types, quality-adjusted power, reward
 * vesting (proving-period arithmetic is in deadline-info.ts).
 */
import { floorDiv } from '../math.js';

/** builtin-actors assumes 30-second epochs for every network (runtime/src/builtin/network.rs). */
export const EPOCHS_IN_DAY = 2880n;
const EPOCHS_IN_HOUR = 120n;
export const MAX_CONTROL_ADDRESSES = 10;
export const MAX_PEER_ID_LENGTH = 128;
export const MAX_MULTIADDR_DATA = 1024;
export const EPOCH_UNDEFINED = -1n;

const SECTOR_SIZES = [2048n, 8n << 20n, 512n << 20n, 32n << 30n, 64n << 30n];
/** Window PoSt partition sizes by sector size (go-state-types `WindowPoStPartitionSectors`). */
const WINDOW_POST_PARTITION_SECTORS = [2n, 2n, 2n, 2349n, 2300n];

/** Window PoSt V1_1 proof types are 10–14, one per sector size. */
const FIRST_WINDOW_POST_V1_1 = 10;

export function sectorSizeOfWindowPoStProof(proof: number): bigint | undefined {
  return SECTOR_SIZES[proof - FIRST_WINDOW_POST_V1_1];
}

export function windowPoStPartitionSectors(proof: number): bigint | undefined {
  return WINDOW_POST_PARTITION_SECTORS[proof - FIRST_WINDOW_POST_V1_1];
}

/** Seal proofs 0–4 (V1), 5–9 (V1_1), 10–14 (synthetic), 15–19 (NI-PoRep): the size is the index mod 5. */
export function sectorSizeOfSealProof(proof: number): bigint | undefined {
  return proof >= 0 && proof < 20 ? SECTOR_SIZES[proof % 5] : undefined;
}

/** The winning PoSt proof type (0–4) that goes with a seal proof. */
export function winningPoStProofOfSealProof(proof: number): number {
  return proof % 5;
}

const SECTOR_QUALITY_PRECISION = 20n;
const QUALITY_BASE_MULTIPLIER = 10n;
const VERIFIED_DEAL_WEIGHT_MULTIPLIER = 100n;

/** Quality-adjusted power of a sector whose verified deals have weight `verifiedWeight` over `duration`. */
export function qaPowerForWeight(size: bigint, duration: bigint, verifiedWeight: bigint): bigint {
  const spaceTime = size * duration;
  const weightedBase = (spaceTime - verifiedWeight) * QUALITY_BASE_MULTIPLIER;
  const weightedVerified = verifiedWeight * VERIFIED_DEAL_WEIGHT_MULTIPLIER;
  const quality = floorDiv(
    floorDiv((weightedBase + weightedVerified) << SECTOR_QUALITY_PRECISION, spaceTime),
    QUALITY_BASE_MULTIPLIER,
  );
  return (size * quality) >> SECTOR_QUALITY_PRECISION;
}

/** builtin-actors `VestSpec`. */
export interface VestSpec {
  readonly initialDelay: bigint;
  readonly vestPeriod: bigint;
  readonly stepDuration: bigint;
  readonly quantization: bigint;
}

/** Block rewards (and the create-miner deposit) vest linearly over 180 days, in daily steps. */
export const REWARD_VESTING_SPEC: VestSpec = {
  initialDelay: 0n,
  vestPeriod: 180n * EPOCHS_IN_DAY,
  stepDuration: EPOCHS_IN_DAY,
  quantization: 12n * EPOCHS_IN_HOUR,
};

// Sector lifecycle policy (builtin-actors `runtime/src/runtime/policy.rs` policy_constants and
// `actors/miner/src/policy.rs`). These do not change between networks; the proving-period geometry
// does, and comes from `NetworkParams.minerPolicy`.

/** A sector must live at least 180 days. */
export const MIN_SECTOR_EXPIRATION = 180n * EPOCHS_IN_DAY;
/** Expirations may be set at most 1278 days ahead. */
export const MAX_SECTOR_EXPIRATION_EXTENSION = 1278n * EPOCHS_IN_DAY;
/** How far back a pre-commit's seal ticket may be drawn: a day plus chain finality. */
export const MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK = EPOCHS_IN_DAY + 900n;
/** An expired pre-commit is cleaned up (its deposit burnt) 8 hours after its prove-commit deadline. */
export const EXPIRED_PRE_COMMIT_CLEAN_UP_DELAY = 8n * EPOCHS_IN_HOUR;
/** At most this many sectors in one PreCommitSectorBatch2. */
export const PRE_COMMIT_SECTOR_BATCH_MAX_SIZE = 256;
export const MAX_PARTITIONS_PER_DEADLINE = 3000n;
/** Per-message limits of fault, recovery, termination and extension declarations. */
export const ADDRESSED_PARTITIONS_MAX = 3000n;
export const ADDRESSED_SECTORS_MAX = 25_000n;
/** Partitions one SubmitWindowedPoSt may prove. */
export const POSTED_PARTITIONS_MAX = 3n;

/** The pre-commit clean-up queue's AMT bit width (builtin-actors PRECOMMIT_EXPIRY_AMT_BITWIDTH). */
export const PRECOMMIT_EXPIRY_AMT_BITWIDTH = 6;
/** The pre-commit HAMT's bit width (builtin-actors PRECOMMIT_CONFIG). */
export const PRECOMMIT_HAMT_BITWIDTH = 5;

/** V1 seal proofs (0–4) may take a day to prove; V1_1 and synthetic ones (5–14) thirty. */
export function maxProveCommitDuration(sealProof: number, preCommitChallengeDelay: bigint): bigint | undefined {
  if (sealProof >= 0 && sealProof < 5) return EPOCHS_IN_DAY + preCommitChallengeDelay;
  if (sealProof >= 5 && sealProof < 15) return 30n * EPOCHS_IN_DAY + preCommitChallengeDelay;
  return undefined;
}

/** The longest a sector of this seal proof may live: 540 days for V1, five years otherwise. */
export function sealProofSectorMaximumLifetime(sealProof: number): bigint | undefined {
  if (sealProof >= 0 && sealProof < 5) return 540n * EPOCHS_IN_DAY;
  if (sealProof >= 5 && sealProof < 20) return 5n * EPOCHS_IN_YEAR;
  return undefined;
}

/** builtin-actors EPOCHS_IN_YEAR: 365.25 days of 30-second epochs. */
export const EPOCHS_IN_YEAR = 1_051_897n;

/** The seal proof's size in bytes: 192 up to 512 MiB sectors, 1920 for 32 and 64 GiB (ref-fvm `proof_size`). */
export function sealProofSize(sealProof: number): number | undefined {
  const size = sectorSizeOfSealProof(sealProof);
  if (size === undefined) return undefined;
  return size >= 32n << 30n ? 1920 : 192;
}

/** The window PoSt proof (V1_1, 10–14) of a seal proof's sector size. */
export function windowPoStProofOfSealProof(sealProof: number): number {
  return (sealProof % 5) + FIRST_WINDOW_POST_V1_1;
}

/** Ten times a sector's size, the most QA power it can have: what a pre-commit deposit is priced on (builtin-actors `qa_power_max`). */
export function qaPowerMax(sectorSize: bigint): bigint {
  return (sectorSize * VERIFIED_DEAL_WEIGHT_MULTIPLIER) / QUALITY_BASE_MULTIPLIER;
}
