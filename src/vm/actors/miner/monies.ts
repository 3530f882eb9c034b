/**
 * Pledge, rewards and fees of storage miners (builtin-actors `actors/miner/src/monies.rs` and
 * `policy.rs`), bit for bit: the expected block reward BR(qa, T) everything else is measured in, the
 * pre-commit deposit and the initial pledge a sector locks, the create-miner deposit (FIP-0077), the
 * share of block rewards that vests, the fault, termination (FIP-0098) and invalid-PoSt penalties,
 * and the daily proof fee (FIP-0100).
 */
import type { FilterEstimate } from '../cbor.js';
import { bigMax, bigMin, floorDiv, PRECISION } from '../math.js';
import { estimateOf, extrapolatedCumSumOfRatio } from '../smoothing.js';
import { EPOCHS_IN_DAY } from './policy.js';

const FIL = 10n ** 18n;
const PRE_COMMIT_DEPOSIT_PROJECTION_PERIOD = 20n * EPOCHS_IN_DAY;
const INITIAL_PLEDGE_PROJECTION_PERIOD = 20n * EPOCHS_IN_DAY;
/** FF = BR(qa, 3.51 days): what a sector pays for each further proving period it stays faulty. */
const CONTINUED_FAULT_PROJECTION_PERIOD = (EPOCHS_IN_DAY * 351n) / 100n;
/** FF plus two days of reward (builtin-actors INVALID_WINDOW_POST_PROJECTION_PERIOD). */
const INVALID_WINDOW_POST_PROJECTION_PERIOD = CONTINUED_FAULT_PROJECTION_PERIOD + 2n * EPOCHS_IN_DAY;
/** FIP-0098: the termination fee is 8.5% of the pledge, scaled down for sectors younger than 140 days. */
const TERM_FEE_PLEDGE_MULTIPLE_NUM = 85n;
const TERM_FEE_PLEDGE_MULTIPLE_DENOM = 1000n;
const TERM_FEE_MIN_PLEDGE_MULTIPLE_NUM = 2n;
const TERM_FEE_MIN_PLEDGE_MULTIPLE_DENOM = 100n;
const TERM_FEE_MAX_FAULT_FEE_MULTIPLE_NUM = 105n;
const TERM_FEE_MAX_FAULT_FEE_MULTIPLE_DENOM = 100n;
const TERMINATION_LIFETIME_CAP_DAYS = 140n;
/** What a successful DisputeWindowedPoSt costs the miner on top of BR, and what it pays the disputer. */
const BASE_PENALTY_FOR_DISPUTED_WINDOW_POST = 20n * FIL;
export const BASE_REWARD_FOR_DISPUTED_WINDOW_POST = 4n * FIL;
const LOCK_TARGET_FACTOR_NUM = 3n;
const LOCK_TARGET_FACTOR_DENOM = 10n;
const LOCKED_REWARD_FACTOR_NUM = 3n;
const LOCKED_REWARD_FACTOR_DENOM = 4n;
const INITIAL_PLEDGE_MAX_PER_BYTE = floorDiv(FIL, 32n << 30n);
const GAMMA_FIXED_POINT_FACTOR = 1000n;
const FIP_0081_ACTIVATION_PERMILLE = 300n;
const DAILY_FEE_MULTIPLIER_NUM = 161817n;
const DAILY_FEE_MULTIPLIER_DENOM = 10n ** 30n;
/** FIP-0100: a deadline's fees are capped at half the reward its live power is expected to earn in a day. */
const DAILY_FEE_BLOCK_REWARD_CAP_DENOM = 2n;
/** Lotus's pledge and deposit estimators (`node/impl/full/state.go` initialPledgeNum/Den) add 10%. */
const LOTUS_ESTIMATE_MARGIN_NUM = 110n;
const LOTUS_ESTIMATE_MARGIN_DENOM = 100n;

/**
 * BR(qa, T): the reward `qaPower` is expected to earn over `projectionDuration` epochs, never negative.
 * With a zero network power estimate it is the whole per-epoch reward estimate, as builtin-actors has it.
 */
export function expectedRewardForPower(
  rewardEstimate: FilterEstimate,
  networkQaPowerEstimate: FilterEstimate,
  qaPower: bigint,
  projectionDuration: bigint,
): bigint {
  if (estimateOf(networkQaPowerEstimate) === 0n) return estimateOf(rewardEstimate);
  const rewardRatio = extrapolatedCumSumOfRatio(projectionDuration, 0n, rewardEstimate, networkQaPowerEstimate);
  return bigMax((qaPower * rewardRatio) >> PRECISION, 0n);
}

/** BR, but at least 1 attoFIL, so that a deposit or pledge is never zero (builtin-actors `detail`). */
export function expectedRewardForPowerClampedAtAttoFil(
  rewardEstimate: FilterEstimate,
  networkQaPowerEstimate: FilterEstimate,
  qaPower: bigint,
  projectionDuration: bigint,
): bigint {
  const reward = expectedRewardForPower(rewardEstimate, networkQaPowerEstimate, qaPower, projectionDuration);
  return reward <= 0n ? 1n : reward;
}

/** The deposit a pre-commit locks per sector: 20 days of BR of `qaPower` (the miner passes `qaPowerMax` of the size). */
export function preCommitDepositForPower(
  rewardEstimate: FilterEstimate,
  networkQaPowerEstimate: FilterEstimate,
  qaPower: bigint,
): bigint {
  return expectedRewardForPowerClampedAtAttoFil(
    rewardEstimate,
    networkQaPowerEstimate,
    qaPower,
    PRE_COMMIT_DEPOSIT_PROJECTION_PERIOD,
  );
}

/** FF: charged at each deadline end for the power that was already faulty before it. */
export function pledgePenaltyForContinuedFault(
  rewardEstimate: FilterEstimate,
  networkQaPowerEstimate: FilterEstimate,
  qaPower: bigint,
): bigint {
  return expectedRewardForPower(rewardEstimate, networkQaPowerEstimate, qaPower, CONTINUED_FAULT_PROJECTION_PERIOD);
}

/**
 * FIP-0098's termination fee of a sector `sectorAge` epochs old: 8.5% of its pledge, pro rata below
 * 140 days of age, but never below 2% of the pledge nor below 105% of its fault fee.
 */
export function pledgePenaltyForTermination(initialPledge: bigint, sectorAge: bigint, faultFee: bigint): bigint {
  const simpleFee = floorDiv(initialPledge * TERM_FEE_PLEDGE_MULTIPLE_NUM, TERM_FEE_PLEDGE_MULTIPLE_DENOM);
  const durationFee = floorDiv(sectorAge * simpleFee, TERMINATION_LIFETIME_CAP_DAYS * EPOCHS_IN_DAY);
  const baseFee = bigMin(simpleFee, durationFee);
  const minimumFromPledge = floorDiv(
    initialPledge * TERM_FEE_MIN_PLEDGE_MULTIPLE_NUM,
    TERM_FEE_MIN_PLEDGE_MULTIPLE_DENOM,
  );
  const minimumFromFaultFee = floorDiv(
    faultFee * TERM_FEE_MAX_FAULT_FEE_MULTIPLE_NUM,
    TERM_FEE_MAX_FAULT_FEE_MULTIPLE_DENOM,
  );
  return bigMax(baseFee, bigMax(minimumFromPledge, minimumFromFaultFee));
}

/** What a window PoSt proven invalid by DisputeWindowedPoSt costs: BR over FF + 2 days, plus 20 FIL. */
export function pledgePenaltyForInvalidWindowPoSt(
  rewardEstimate: FilterEstimate,
  networkQaPowerEstimate: FilterEstimate,
  qaPower: bigint,
): bigint {
  return (
    expectedRewardForPower(rewardEstimate, networkQaPowerEstimate, qaPower, INVALID_WINDOW_POST_PROJECTION_PERIOD) +
    BASE_PENALTY_FOR_DISPUTED_WINDOW_POST
  );
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
  const pledgeBase = expectedRewardForPowerClampedAtAttoFil(
    inputs.rewardEstimate,
    inputs.networkQaPowerEstimate,
    qaPower,
    INITIAL_PLEDGE_PROJECTION_PERIOD,
  );
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

/** A sector's daily fee scaled with its QA power when that changes (builtin-actors `daily_proof_fee_adjust`). */
export function dailyProofFeeAdjust(dailyFee: bigint, oldQaPower: bigint, newQaPower: bigint): bigint {
  if (oldQaPower === newQaPower) return dailyFee;
  return floorDiv(dailyFee * newQaPower, oldQaPower);
}

/** The fee a deadline pays at its end: its sectors' daily fees, capped at half their expected day reward. */
export function dailyProofFeePayable(dailyFee: bigint, estimatedDayReward: bigint): bigint {
  return bigMin(floorDiv(estimatedDayReward, DAILY_FEE_BLOCK_REWARD_CAP_DENOM), dailyFee);
}

/** Lotus's estimate of a deposit or pledge for its RPC (StateMinerPreCommitDepositForPower and kin): 110%. */
export function withLotusEstimateMargin(amount: bigint): bigint {
  return floorDiv(amount * LOTUS_ESTIMATE_MARGIN_NUM, LOTUS_ESTIMATE_MARGIN_DENOM);
}
