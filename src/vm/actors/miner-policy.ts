/**
 * Storage miner policy (builtin-actors `actors/miner/src/policy.rs`, `runtime/src/runtime/policy.rs`,
 * go-state-types `abi/sector.go`): sector sizes and proof types, quality-adjusted power, reward
 * vesting and the proving-period offset.
 */
import { floorDiv } from './math.js';

/** builtin-actors assumes 30-second epochs for every network (runtime/src/builtin/network.rs). */
export const EPOCHS_IN_DAY = 2880n;
const EPOCHS_IN_HOUR = 120n;
export const WPOST_PROVING_PERIOD = EPOCHS_IN_DAY;
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

/** Rounds `epoch` up to the next `unit` boundary shifted by `offset` (builtin-actors QuantSpec). */
export function quantizeUp(epoch: bigint, unit: bigint, offset: bigint): bigint {
  const shift = offset % unit;
  const remainder = (epoch - shift) % unit;
  const quotient = (epoch - shift) / unit;
  if (remainder === 0n || epoch - shift < 0n) return unit * quotient + shift;
  return unit * (quotient + 1n) + shift;
}

/** A miner's proving period offset, from blake2b-256(CBOR(address) ‖ i64be(epoch)). */
export function provingPeriodOffset(
  addressCbor: Uint8Array,
  epoch: bigint,
  blake2b256: (data: Uint8Array) => Uint8Array,
): bigint {
  const data = new Uint8Array(addressCbor.length + 8);
  data.set(addressCbor);
  new DataView(data.buffer).setBigInt64(addressCbor.length, epoch);
  const digest = blake2b256(data);
  return new DataView(digest.buffer, digest.byteOffset).getBigUint64(0) % WPOST_PROVING_PERIOD;
}

/** The start of the proving period containing `epoch`, for a miner with this offset. */
export function currentProvingPeriodStart(epoch: bigint, offset: bigint): bigint {
  const modulus = epoch % WPOST_PROVING_PERIOD;
  const progress = modulus >= offset ? modulus - offset : WPOST_PROVING_PERIOD - (offset - modulus);
  return epoch - progress;
}
