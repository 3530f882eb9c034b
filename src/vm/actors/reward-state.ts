/**
 * The reward actor's state and minting schedule (builtin-actors `actors/reward/src/{state,logic,
 * expneg}.rs`): block rewards follow Filecoin's hybrid minting — a simple exponential decay of
 * 330M FIL plus a baseline part of 770M FIL released as the network's realized power keeps up with
 * the baseline (which grows 100% a year from 2.5 EiB). The arithmetic is builtin-actors', bit for
 * bit; on a devnet the baseline part stays near zero because the network is tiny.
 */

import { declareStruct, kinds, type StructValue } from '../../types/index.js';
import type { Mutable, StateCodec } from '../runtime.js';
import { filterEstimateStruct } from './cbor.js';
import { floorDiv, PRECISION, polyVal } from './math.js';
import { newFilterEstimate, nextEstimate } from './smoothing.js';

const FIL = 10n ** 18n;

const BASELINE_EXPONENT = 340282591298641078465964189926313473653n;
const BASELINE_INITIAL_VALUE = 2_888_888_880_000_000_000n;
const INIT_BASELINE_POWER = ((BASELINE_INITIAL_VALUE << (2n * PRECISION)) / BASELINE_EXPONENT) >> PRECISION;
const SIMPLE_TOTAL = 330_000_000n * FIL;
const BASELINE_TOTAL = 770_000_000n * FIL;
const EXP_LAM_SUB_ONE = 37396273494747879394193016954629n;
const LAMBDA = 37396271439864487274534522888786n;
const INITIAL_REWARD_POSITION_ESTIMATE = 36266260308195979333n;
const INITIAL_REWARD_VELOCITY_ESTIMATE = -109897758509n;
const EPOCH_UNDEFINED = -1n;

const EXP_NUM = [
  -648770010757830093818553637600n,
  67469480939593786226847644286976n,
  -3197587544499098424029388939001856n,
  89244641121992890118377641805348864n,
  -1579656163641440567800982336819953664n,
  17685496037279256458459817590917169152n,
  -115682590513835356866803355398940131328n,
  340282366920938463463374607431768211456n,
];
const EXP_DENOM = [
  1225524182432722209606361n,
  114095592300906098243859450n,
  5665570424063336070530214243n,
  194450132448609991765137938448n,
  5068267641632683791026134915072n,
  104716890604972796896895427629056n,
  1748338658439454459487681798864896n,
  23704654329841312470660182937960448n,
  259380097567996910282699886670381056n,
  2250336698853390384720606936038375424n,
  14978272436876548034486263159246028800n,
  72144088983913131323343765784380833792n,
  224599776407103106596571252037123047424n,
  340282366920938463463374607431768211456n,
];

/** e^−x for Q.128 x, as a Q.128 (a Padé approximation). */
function expneg(x: bigint): bigint {
  return floorDiv(polyVal(EXP_NUM, x) << PRECISION, polyVal(EXP_DENOM, x));
}

/** builtin-actors `actors/reward/src/state.rs` `State`; JSON names as go-state-types `builtin/v16/reward`. */
export const rewardStateStruct = declareStruct('RewardState', [
  { key: 'cumsumBaseline', json: 'CumsumBaseline', kind: kinds.bigInt, description: 'byte-epochs' },
  { key: 'cumsumRealized', json: 'CumsumRealized', kind: kinds.bigInt, description: 'byte-epochs' },
  { key: 'effectiveNetworkTime', json: 'EffectiveNetworkTime', kind: kinds.int64, description: 'epochs' },
  { key: 'effectiveBaselinePower', json: 'EffectiveBaselinePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'thisEpochReward', json: 'ThisEpochReward', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'thisEpochRewardSmoothed', json: 'ThisEpochRewardSmoothed', kind: filterEstimateStruct.kind },
  { key: 'thisEpochBaselinePower', json: 'ThisEpochBaselinePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'epoch', json: 'Epoch', kind: kinds.int64, description: 'epoch' },
  { key: 'totalStoragePowerReward', json: 'TotalStoragePowerReward', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'simpleTotal', json: 'SimpleTotal', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'baselineTotal', json: 'BaselineTotal', kind: kinds.bigInt, description: 'attoFIL' },
]);
export type RewardState = Mutable<StructValue<typeof rewardStateStruct>>;

export const rewardStateCodec: StateCodec<RewardState> = rewardStateStruct;

function baselinePowerFromPrevious(previous: bigint): bigint {
  return (previous * BASELINE_EXPONENT) >> PRECISION;
}

function computeRTheta(
  effectiveNetworkTime: bigint,
  baselinePowerAtEffectiveNetworkTime: bigint,
  cumsumRealized: bigint,
  cumsumBaseline: bigint,
): bigint {
  if (effectiveNetworkTime === 0n) return 0n;
  const rewardTheta = effectiveNetworkTime << PRECISION;
  const diff = floorDiv((cumsumBaseline - cumsumRealized) << PRECISION, baselinePowerAtEffectiveNetworkTime);
  return rewardTheta - diff;
}

function computeBaselineSupply(theta: bigint, baselineTotal: bigint): bigint {
  const thetaLambda = (theta * LAMBDA) >> PRECISION;
  return ((1n << PRECISION) - expneg(thetaLambda)) * baselineTotal;
}

export function computeReward(
  epoch: bigint,
  previousTheta: bigint,
  currentTheta: bigint,
  simpleTotal: bigint,
  baselineTotal: bigint,
): bigint {
  const simpleReward = (simpleTotal * EXP_LAM_SUB_ONE * expneg(LAMBDA * epoch)) >> PRECISION;
  const baselineReward =
    computeBaselineSupply(currentTheta, baselineTotal) - computeBaselineSupply(previousTheta, baselineTotal);
  return (simpleReward + baselineReward) >> PRECISION;
}

/** Advances the state one epoch with the network's realized power (capped at the baseline). */
export function updateToNextEpoch(state: RewardState, currentRealizedPower: bigint): void {
  state.epoch += 1n;
  state.thisEpochBaselinePower = baselinePowerFromPrevious(state.thisEpochBaselinePower);
  const capped =
    state.thisEpochBaselinePower < currentRealizedPower ? state.thisEpochBaselinePower : currentRealizedPower;
  state.cumsumRealized += capped;
  while (state.cumsumRealized > state.cumsumBaseline) {
    state.effectiveNetworkTime += 1n;
    state.effectiveBaselinePower = baselinePowerFromPrevious(state.effectiveBaselinePower);
    state.cumsumBaseline += state.effectiveBaselinePower;
  }
}

/** Advances one epoch and computes that epoch's reward. */
export function updateToNextEpochWithReward(state: RewardState, currentRealizedPower: bigint): void {
  const previousTheta = computeRTheta(
    state.effectiveNetworkTime,
    state.effectiveBaselinePower,
    state.cumsumRealized,
    state.cumsumBaseline,
  );
  updateToNextEpoch(state, currentRealizedPower);
  const currentTheta = computeRTheta(
    state.effectiveNetworkTime,
    state.effectiveBaselinePower,
    state.cumsumRealized,
    state.cumsumBaseline,
  );
  state.thisEpochReward = computeReward(
    state.epoch,
    previousTheta,
    currentTheta,
    state.simpleTotal,
    state.baselineTotal,
  );
}

export function updateSmoothedEstimates(state: RewardState, delta: bigint): void {
  state.thisEpochRewardSmoothed = nextEstimate(state.thisEpochRewardSmoothed, state.thisEpochReward, delta);
}

/** The state the reward actor's constructor creates for the network's current realized power. */
export function newRewardState(currentRealizedPower: bigint): RewardState {
  const state: RewardState = {
    cumsumBaseline: 0n,
    cumsumRealized: 0n,
    effectiveNetworkTime: 0n,
    effectiveBaselinePower: BASELINE_INITIAL_VALUE,
    thisEpochReward: 0n,
    thisEpochRewardSmoothed: newFilterEstimate(INITIAL_REWARD_POSITION_ESTIMATE, INITIAL_REWARD_VELOCITY_ESTIMATE),
    thisEpochBaselinePower: INIT_BASELINE_POWER,
    epoch: EPOCH_UNDEFINED,
    totalStoragePowerReward: 0n,
    simpleTotal: SIMPLE_TOTAL,
    baselineTotal: BASELINE_TOTAL,
  };
  updateToNextEpochWithReward(state, currentRealizedPower);
  return state;
}
