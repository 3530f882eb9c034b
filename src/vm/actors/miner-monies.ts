/**
 * Pledge, rewards and fees of storage miners (builtin-actors `actors/miner/src/monies.rs` and
 * `policy.rs`), bit for bit: the initial pledge a sector locks, the create-miner deposit
 * (FIP-0077), the share of block rewards that vests, and the daily proof fee (FIP-0100).
 */
import type { FilterEstimate } from './cbor.js';
import { bigMax, bigMin, floorDiv, PRECISION } from './math.js';
import { EPOCHS_IN_DAY } from './miner-policy.js';
import { estimateOf, extrapolatedCumSumOfRatio } from './smoothing.js';

const FIL = 10n ** 18n;
const INITIAL_PLEDGE_PROJECTION_PERIOD = 20n * EPOCHS_IN_DAY;
const LOCK_TARGET_FACTOR_NUM = 3n;
const LOCK_TARGET_FACTOR_DENOM = 10n;
const LOCKED_REWARD_FACTOR_NUM = 3n;
const LOCKED_REWARD_FACTOR_DENOM = 4n;
const INITIAL_PLEDGE_MAX_PER_BYTE = floorDiv(FIL, 32n << 30n);
const GAMMA_FIXED_POINT_FACTOR = 1000n;
const FIP_0081_ACTIVATION_PERMILLE = 300n;
const DAILY_FEE_MULTIPLIER_NUM = 161817n;
const DAILY_FEE_MULTIPLIER_DENOM = 10n ** 30n;

/** The reward `qaPower` is expected to earn over `projectionDuration` epochs. */
function expectedRewardForPower(
  rewardEstimate: FilterEstimate,
  networkQaPowerEstimate: FilterEstimate,
  qaPower: bigint,
  projectionDuration: bigint,
): bigint {
  if (estimateOf(networkQaPowerEstimate) === 0n) return estimateOf(rewardEstimate);
  const rewardRatio = extrapolatedCumSumOfRatio(projectionDuration, 0n, rewardEstimate, networkQaPowerEstimate);
  return bigMax((qaPower * rewardRatio) >> PRECISION, 0n);
}

export interface PledgeInputs {
  readonly baselinePower: bigint;
  readonly rewardEstimate: FilterEstimate;
  readonly networkQaPowerEstimate: FilterEstimate;
  readonly circulatingSupply: bigint;
  readonly epochsSinceRampStart: bigint;
  readonly rampDurationEpochs: bigint;
}

/** The pledge a sector of `qaPower` locks: 20 days of expected reward plus a share of the lock target. */
export function initialPledgeForPower(qaPower: bigint, inputs: PledgeInputs): bigint {
  const expected = expectedRewardForPower(
    inputs.rewardEstimate,
    inputs.networkQaPowerEstimate,
    qaPower,
    INITIAL_PLEDGE_PROJECTION_PERIOD,
  );
  const pledgeBase = expected <= 0n ? 1n : expected;
  const lockTargetNum = inputs.circulatingSupply * LOCK_TARGET_FACTOR_NUM;
  const networkQaPower = estimateOf(inputs.networkQaPowerEstimate);
  let skew: bigint;
  if (inputs.epochsSinceRampStart < 0n) skew = 0n;
  else if (inputs.rampDurationEpochs === 0n || inputs.epochsSinceRampStart >= inputs.rampDurationEpochs) {
    skew = FIP_0081_ACTIVATION_PERMILLE;
  } else skew = (inputs.epochsSinceRampStart * FIP_0081_ACTIVATION_PERMILLE) / inputs.rampDurationEpochs;
  const gamma = GAMMA_FIXED_POINT_FACTOR - skew;
  const additionalNum = lockTargetNum * qaPower;
  const baselineDenom = bigMax(bigMax(networkQaPower, inputs.baselinePower), qaPower) * LOCK_TARGET_FACTOR_DENOM;
  const simpleDenom = bigMax(networkQaPower, qaPower) * LOCK_TARGET_FACTOR_DENOM;
  const additionalBaseline = floorDiv(gamma * additionalNum, baselineDenom * GAMMA_FIXED_POINT_FACTOR);
  const additionalSimple = floorDiv(
    (GAMMA_FIXED_POINT_FACTOR - gamma) * additionalNum,
    simpleDenom * GAMMA_FIXED_POINT_FACTOR,
  );
  return bigMin(pledgeBase + additionalBaseline + additionalSimple, INITIAL_PLEDGE_MAX_PER_BYTE * qaPower);
}

/** FIP-0077: a new miner locks the pledge of a tenth of the consensus minimum power. */
export function createMinerDeposit(consensusMinerMinPower: bigint, inputs: PledgeInputs): bigint {
  return initialPledgeForPower(consensusMinerMinPower / 10n, inputs);
}

/** Three quarters of a block reward vest; the rest is available at once. */
export function lockedRewardFromReward(reward: bigint): bigint {
  return floorDiv(reward * LOCKED_REWARD_FACTOR_NUM, LOCKED_REWARD_FACTOR_DENOM);
}

/** FIP-0100's daily fee for a sector of `qaPower`. */
export function dailyProofFee(circulatingSupply: bigint, qaPower: bigint): bigint {
  return floorDiv(DAILY_FEE_MULTIPLIER_NUM * circulatingSupply * qaPower, DAILY_FEE_MULTIPLIER_DENOM);
}
