/**
 * Reward actor (f02): holds the not-yet-minted block rewards and pays each block's miner
 * (builtin-actors `actors/reward`). AwardBlockReward pays `thisEpochReward × WinCount / 5` plus the
 * block's gas tips to the miner's ApplyRewards, with the penalty ×3; if the miner refuses, the
 * total is burnt. The power actor's cron hook advances the schedule every epoch (UpdateNetworkKPI).
 */
import { BURNT_FUNDS_ACTOR_ID, STORAGE_POWER_ACTOR_ID, SYSTEM_ACTOR_ID } from '../../state/index.js';
import { Address, encodeCbor } from '../../types/index.js';
import { ExitCode } from '../exit-code.js';
import { METHOD_CONSTRUCTOR, METHOD_SEND, MinerMethod, RewardMethod } from '../methods.js';
import type { Runtime } from '../runtime.js';
import { type ActorImplementation, decodeParams, encodeReturn, type MethodHandler } from './actor.js';
import {
  bigInt,
  type CborNode,
  filterEstimateToCborNode,
  readAddress,
  readBigInt,
  readInt64,
  readTuple,
} from './cbor.js';
import { floorDiv } from './math.js';
import {
  newRewardState,
  rewardStateCodec,
  updateSmoothedEstimates,
  updateToNextEpoch,
  updateToNextEpochWithReward,
} from './reward-state.js';

/** Gas penalties are burnt from the miner three times over (builtin-actors PENALTY_MULTIPLIER). */
export const PENALTY_MULTIPLIER = 3n;

export interface AwardBlockRewardParams {
  readonly miner: Address;
  readonly penalty: bigint;
  readonly gasReward: bigint;
  readonly winCount: bigint;
}

export function encodeAwardBlockRewardParams(params: AwardBlockRewardParams): Uint8Array {
  return encodeCbor([params.miner.bytes, bigInt(params.penalty), bigInt(params.gasReward), params.winCount]);
}

/** `Option<BigInt>` params (Constructor, UpdateNetworkKPI): the power, or null. */
function readOptionalPower(params: Uint8Array | null, what: string, rt: Runtime): bigint {
  const power = decodeParams(params, what, (node: CborNode, path) => (node === null ? null : readBigInt(node, path)));
  if (power === null) rt.abort(ExitCode.UsrIllegalArgument, 'argument should not be nil');
  return power;
}

function awardBlockReward(rt: Runtime, params: Uint8Array | null): null {
  const award = decodeParams(params, 'AwardBlockRewardParams', (node, path) => {
    const [miner, penalty, gasReward, winCount] = readTuple(node, path, 4);
    return {
      miner: readAddress(miner, `${path}.Miner`),
      penalty: readBigInt(penalty, `${path}.Penalty`),
      gasReward: readBigInt(gasReward, `${path}.GasReward`),
      winCount: readInt64(winCount, `${path}.WinCount`),
    };
  });
  rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
  const priorBalance = rt.currentBalance();
  if (award.penalty < 0n) rt.abort(ExitCode.UsrIllegalArgument, `negative penalty ${award.penalty}`);
  if (award.gasReward < 0n) rt.abort(ExitCode.UsrIllegalArgument, `negative gas reward ${award.gasReward}`);
  if (priorBalance < award.gasReward) {
    rt.abort(
      ExitCode.UsrIllegalState,
      `actor current balance ${priorBalance} insufficient to pay gas reward ${award.gasReward}`,
    );
  }
  if (award.winCount <= 0n) rt.abort(ExitCode.UsrIllegalArgument, `invalid win count ${award.winCount}`);
  const minerId = rt.resolveAddress(award.miner);
  if (minerId === undefined) rt.abort(ExitCode.UsrNotFound, 'failed to resolve given owner address');

  const totalReward = rt.transaction(rewardStateCodec, (state) => {
    let blockReward = floorDiv(state.thisEpochReward * award.winCount, rt.networkParams.blocksPerEpoch);
    let total = award.gasReward + blockReward;
    const balance = rt.currentBalance();
    if (total > balance) {
      total = balance;
      blockReward = total - award.gasReward;
    }
    state.totalStoragePowerReward += blockReward;
    return total;
  });

  const applied = rt.send(
    Address.newId(minerId),
    MinerMethod.ApplyRewards,
    encodeCbor([bigInt(totalReward), bigInt(award.penalty * PENALTY_MULTIPLIER)]),
    totalReward,
  );
  // A miner that cannot take its reward (wrong type, broken state) forfeits it to the burnt funds.
  if (applied.exitCode !== ExitCode.Ok) rt.send(Address.newId(BURNT_FUNDS_ACTOR_ID), METHOD_SEND, null, totalReward);
  return null;
}

/** builtin-actors `ThisEpochRewardReturn`: `[ThisEpochRewardSmoothed, ThisEpochBaselinePower]`. */
function thisEpochReward(rt: Runtime): Uint8Array {
  rt.validateImmediateCallerAcceptAny();
  const state = rt.state(rewardStateCodec);
  return encodeReturn([filterEstimateToCborNode(state.thisEpochRewardSmoothed), bigInt(state.thisEpochBaselinePower)]);
}

function updateNetworkKpi(rt: Runtime, params: Uint8Array | null): null {
  const realizedPower = readOptionalPower(params, 'UpdateNetworkKPIParams', rt);
  rt.validateImmediateCallerIs(STORAGE_POWER_ACTOR_ID);
  rt.transaction(rewardStateCodec, (state) => {
    const previous = state.epoch;
    while (state.epoch < rt.epoch) updateToNextEpoch(state, realizedPower);
    updateToNextEpochWithReward(state, realizedPower);
    updateSmoothedEstimates(state, state.epoch - previous);
  });
  return null;
}

export const rewardActor: ActorImplementation = {
  type: 'reward',
  methods: new Map<bigint, MethodHandler>([
    [
      METHOD_CONSTRUCTOR,
      (rt, params) => {
        rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
        rt.createState(rewardStateCodec, newRewardState(readOptionalPower(params, 'RewardConstructorParams', rt)));
        return null;
      },
    ],
    [RewardMethod.AwardBlockReward, awardBlockReward],
    [RewardMethod.ThisEpochReward, thisEpochReward],
    [RewardMethod.UpdateNetworkKPI, updateNetworkKpi],
  ]),
};
