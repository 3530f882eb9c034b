/**
 * The storage power actor's state (builtin-actors `actors/power/src/state.rs`, 17 fields, exact
 * shape): network power totals, the smoothed quality-adjusted power estimate, and each miner's
 * claim in a HAMT keyed by its ID address.
 */
import type { CID } from 'multiformats/cid';
import { type Blockstore, Hamt } from '../../ipld/index.js';
import { decodeChainCbor } from '../../types/cbor-node.js';
import { type Address, encodeCbor } from '../../types/index.js';
import type { StateCodec } from '../runtime.js';
import {
  bigInt,
  type CborNode,
  type FilterEstimate,
  filterEstimateToCborNode,
  readBigInt,
  readCid,
  readFilterEstimate,
  readInt64,
  readTuple,
  readUint64,
} from './cbor.js';
import { newFilterEstimate } from './smoothing.js';

/** Below this many miners at the consensus minimum, every miner's power counts (builtin-actors policy). */
const CONSENSUS_MINER_MIN_MINERS = 4n;
/** The cron event queue's HAMT bit width (builtin-actors CRON_QUEUE_HAMT_BITWIDTH). */
const CRON_QUEUE_HAMT_BITWIDTH = 6;

export interface PowerState {
  totalRawBytePower: bigint;
  totalBytesCommitted: bigint;
  totalQualityAdjPower: bigint;
  totalQaBytesCommitted: bigint;
  totalPledgeCollateral: bigint;
  thisEpochRawBytePower: bigint;
  thisEpochQualityAdjPower: bigint;
  thisEpochPledgeCollateral: bigint;
  thisEpochQaPowerSmoothed: FilterEstimate;
  minerCount: bigint;
  minerAboveMinPowerCount: bigint;
  rampStartEpoch: bigint;
  rampDurationEpochs: bigint;
  /** Deferred miner cron events; always empty here, because no miner enrolls any (no window PoSt). */
  cronEventQueue: CID;
  firstCronEpoch: bigint;
  claims: CID;
  proofValidationBatch: CID | null;
}

export interface Claim {
  readonly windowPoStProofType: bigint;
  readonly rawBytePower: bigint;
  readonly qualityAdjPower: bigint;
}

export const powerStateCodec: StateCodec<PowerState> = {
  decode(bytes) {
    const p = 'PowerState';
    const f = readTuple(decodeChainCbor(bytes, p), p, 17);
    return {
      totalRawBytePower: readBigInt(f[0], `${p}.TotalRawBytePower`),
      totalBytesCommitted: readBigInt(f[1], `${p}.TotalBytesCommitted`),
      totalQualityAdjPower: readBigInt(f[2], `${p}.TotalQualityAdjPower`),
      totalQaBytesCommitted: readBigInt(f[3], `${p}.TotalQABytesCommitted`),
      totalPledgeCollateral: readBigInt(f[4], `${p}.TotalPledgeCollateral`),
      thisEpochRawBytePower: readBigInt(f[5], `${p}.ThisEpochRawBytePower`),
      thisEpochQualityAdjPower: readBigInt(f[6], `${p}.ThisEpochQualityAdjPower`),
      thisEpochPledgeCollateral: readBigInt(f[7], `${p}.ThisEpochPledgeCollateral`),
      thisEpochQaPowerSmoothed: readFilterEstimate(f[8], `${p}.ThisEpochQAPowerSmoothed`),
      minerCount: readInt64(f[9], `${p}.MinerCount`),
      minerAboveMinPowerCount: readInt64(f[10], `${p}.MinerAboveMinPowerCount`),
      rampStartEpoch: readInt64(f[11], `${p}.RampStartEpoch`),
      rampDurationEpochs: readUint64(f[12], `${p}.RampDurationEpochs`),
      cronEventQueue: readCid(f[13], `${p}.CronEventQueue`),
      firstCronEpoch: readInt64(f[14], `${p}.FirstCronEpoch`),
      claims: readCid(f[15], `${p}.Claims`),
      proofValidationBatch: f[16] === null ? null : readCid(f[16], `${p}.ProofValidationBatch`),
    };
  },
  encode: (s) =>
    encodeCbor([
      bigInt(s.totalRawBytePower),
      bigInt(s.totalBytesCommitted),
      bigInt(s.totalQualityAdjPower),
      bigInt(s.totalQaBytesCommitted),
      bigInt(s.totalPledgeCollateral),
      bigInt(s.thisEpochRawBytePower),
      bigInt(s.thisEpochQualityAdjPower),
      bigInt(s.thisEpochPledgeCollateral),
      filterEstimateToCborNode(s.thisEpochQaPowerSmoothed),
      s.minerCount,
      s.minerAboveMinPowerCount,
      s.rampStartEpoch,
      s.rampDurationEpochs,
      s.cronEventQueue,
      s.firstCronEpoch,
      s.claims,
      s.proofValidationBatch,
    ]),
};

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

export function claimToCborNode(claim: Claim): CborNode[] {
  return [claim.windowPoStProofType, bigInt(claim.rawBytePower), bigInt(claim.qualityAdjPower)];
}

function readClaim(node: CborNode, path = 'Claim'): Claim {
  const [proof, raw, qa] = readTuple(node, path, 3);
  return {
    windowPoStProofType: readInt64(proof, `${path}.WindowPoStProofType`),
    rawBytePower: readBigInt(raw, `${path}.RawBytePower`),
    qualityAdjPower: readBigInt(qa, `${path}.QualityAdjPower`),
  };
}

export function loadClaims(store: Blockstore, state: PowerState): Hamt {
  return Hamt.load(store, state.claims);
}

export function getClaim(claims: Hamt, miner: Address): Claim | undefined {
  const bytes = claims.getBytes(miner.bytes);
  return bytes === undefined ? undefined : readClaim(decodeChainCbor(bytes, 'Claim'));
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
