/**
 * The storage power actor's state (builtin-actors `actors/power/src/state.rs`, 17 fields, exact
 * shape): network power totals, the smoothed quality-adjusted power estimate, and each miner's
 * claim in a HAMT keyed by its ID address.
 */
import { type Blockstore, Hamt } from '../../ipld/index.js';
import { type Address, declareStruct, kinds, type StructValue } from '../../types/index.js';
import type { Mutable, StateCodec } from '../runtime.js';
import { filterEstimateStruct } from './cbor.js';
import { newFilterEstimate } from './smoothing.js';

/** Below this many miners at the consensus minimum, every miner's power counts (builtin-actors policy). */
const CONSENSUS_MINER_MIN_MINERS = 4n;
/** The cron event queue's HAMT bit width (builtin-actors CRON_QUEUE_HAMT_BITWIDTH). */
const CRON_QUEUE_HAMT_BITWIDTH = 6;

/** builtin-actors `actors/power/src/state.rs` `State`; JSON names as go-state-types `builtin/v16/power`. */
export const powerStateStruct = declareStruct('PowerState', [
  { key: 'totalRawBytePower', json: 'TotalRawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalBytesCommitted', json: 'TotalBytesCommitted', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalQualityAdjPower', json: 'TotalQualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalQaBytesCommitted', json: 'TotalQABytesCommitted', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalPledgeCollateral', json: 'TotalPledgeCollateral', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'thisEpochRawBytePower', json: 'ThisEpochRawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'thisEpochQualityAdjPower', json: 'ThisEpochQualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'thisEpochPledgeCollateral', json: 'ThisEpochPledgeCollateral', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'thisEpochQaPowerSmoothed', json: 'ThisEpochQAPowerSmoothed', kind: filterEstimateStruct.kind },
  { key: 'minerCount', json: 'MinerCount', kind: kinds.int64 },
  { key: 'minerAboveMinPowerCount', json: 'MinerAboveMinPowerCount', kind: kinds.int64 },
  { key: 'rampStartEpoch', json: 'RampStartEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'rampDurationEpochs', json: 'RampDurationEpochs', kind: kinds.uint64, description: 'epochs' },
  // Deferred miner cron events; always empty here, because no miner enrolls any (no window PoSt).
  { key: 'cronEventQueue', json: 'CronEventQueue', kind: kinds.cid },
  { key: 'firstCronEpoch', json: 'FirstCronEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'claims', json: 'Claims', kind: kinds.cid },
  { key: 'proofValidationBatch', json: 'ProofValidationBatch', kind: kinds.nullable(kinds.cid) },
]);
export type PowerState = Mutable<StructValue<typeof powerStateStruct>>;

/** A miner's power (builtin-actors `actors/power/src/state.rs` `Claim`). */
export const claimStruct = declareStruct('Claim', [
  { key: 'windowPoStProofType', json: 'WindowPoStProofType', kind: kinds.int64 },
  { key: 'rawBytePower', json: 'RawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qualityAdjPower', json: 'QualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
]);
export type Claim = StructValue<typeof claimStruct>;

export const powerStateCodec: StateCodec<PowerState> = powerStateStruct;

const INITIAL_QA_POWER_ESTIMATE_POSITION = 750_000n << 30n;
const INITIAL_QA_POWER_ESTIMATE_VELOCITY = 3_840n << 30n;

export function newPowerState(store: Blockstore): PowerState {
  return {
    totalRawBytePower: 0n,
    totalBytesCommitted: 0n,
    totalQualityAdjPower: 0n,
    totalQaBytesCommitted: 0n,
    totalPledgeCollateral: 0n,
    thisEpochRawBytePower: 0n,
    thisEpochQualityAdjPower: 0n,
    thisEpochPledgeCollateral: 0n,
    thisEpochQaPowerSmoothed: newFilterEstimate(INITIAL_QA_POWER_ESTIMATE_POSITION, INITIAL_QA_POWER_ESTIMATE_VELOCITY),
    minerCount: 0n,
    minerAboveMinPowerCount: 0n,
    rampStartEpoch: 0n,
    rampDurationEpochs: 0n,
    cronEventQueue: Hamt.create(store, { bitWidth: CRON_QUEUE_HAMT_BITWIDTH }).flush(),
    firstCronEpoch: 0n,
    claims: Hamt.create(store).flush(),
    proofValidationBatch: null,
  };
}

export function loadClaims(store: Blockstore, state: PowerState): Hamt {
  return Hamt.load(store, state.claims);
}

export function getClaim(claims: Hamt, miner: Address): Claim | undefined {
  const bytes = claims.getBytes(miner.bytes);
  return bytes === undefined ? undefined : claimStruct.decode(bytes);
}

/** The network's power as consensus counts it: totals of miners above the minimum, or all while fewer than 4 are. */
export function currentTotalPower(state: PowerState): { raw: bigint; qa: bigint } {
  if (state.minerAboveMinPowerCount < CONSENSUS_MINER_MIN_MINERS) {
    return { raw: state.totalBytesCommitted, qa: state.totalQaBytesCommitted };
  }
  return { raw: state.totalRawBytePower, qa: state.totalQualityAdjPower };
}

/**
 * Whether a miner's raw power lets it win blocks (builtin-actors
 * `miner_nominal_power_meets_consensus_minimum`): at least the minimum, or any power while fewer
 * than 4 miners have the minimum.
 */
export function meetsConsensusMinimum(state: PowerState, claim: Claim, consensusMinerMinPower: bigint): boolean {
  if (claim.rawBytePower >= consensusMinerMinPower) return true;
  if (state.minerAboveMinPowerCount >= CONSENSUS_MINER_MIN_MINERS) return false;
  return claim.rawBytePower > 0n;
}
