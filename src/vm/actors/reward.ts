/**
 * Reward actor (f02): holds the not-yet-minted block rewards and pays each block's miner
 * (builtin-actors `actors/reward`). AwardBlockReward pays `thisEpochReward × WinCount / 5` plus the
 * block's gas tips to the miner's ApplyRewards, with the penalty ×3; if the miner refuses, the
 * total is burnt. The power actor's cron hook advances the schedule every epoch (UpdateNetworkKPI).
 */
import { BURNT_FUNDS_ACTOR_ID, STORAGE_POWER_ACTOR_ID, SYSTEM_ACTOR_ID } from '../../state/index.js';
import { Address, addressKind, declareStruct, kinds } from '../../types/index.js';
import { ExitCode } from '../exit-code.js';
import { METHOD_SEND, MinerMethod, RewardMethod } from '../methods.js';
import type { Runtime } from '../runtime.js';
import { decodeParams, defineActor } from './actor.js';
import { type CborNode, readBigInt } from './cbor.js';
import { floorDiv } from './math.js';
import { applyRewardParams, thisEpochRewardReturn } from './method-params.js';
import {
  newRewardState,
  rewardStateCodec,
  updateSmoothedEstimates,
  updateToNextEpoch,
  updateToNextEpochWithReward,
} from './reward-state.js';

/** Gas penalties are burnt from the miner three times over (builtin-actors PENALTY_MULTIPLIER). */
export const PENALTY_MULTIPLIER = 3n;

/** builtin-actors `AwardBlockRewardParams`: what the VM passes for each block of a tipset. */
const awardBlockRewardParams = declareStruct('AwardBlockRewardParams', [
  { key: 'miner', json: 'Miner', kind: addressKind },
  { key: 'penalty', json: 'Penalty', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'gasReward', json: 'GasReward', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'winCount', json: 'WinCount', kind: kinds.int64 },
]);
export const encodeAwardBlockRewardParams = awardBlockRewardParams.encode;

/** `Option<BigInt>` params (Constructor, UpdateNetworkKPI): the power, or null. */
function readOptionalPower(params: Uint8Array | null, what: string, rt: Runtime): bigint {
  const power = decodeParams(params, what, (node: CborNode, path) => (node === null ? null : readBigInt(node, path)));
  if (power === null) rt.abort(ExitCode.UsrIllegalArgument, 'argument should not be nil');
  return power;
}

function awardBlockReward(rt: Runtime, params: Uint8Array | null): null {
  const award = decodeParams(params, awardBlockRewardParams);
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
    applyRewardParams.encode({ reward: totalReward, penalty: award.penalty * PENALTY_MULTIPLIER }),
    totalReward,
  );
  // A miner that cannot take its reward (wrong type, broken state) forfeits it to the burnt funds.
  if (applied.exitCode !== ExitCode.Ok) rt.send(Address.newId(BURNT_FUNDS_ACTOR_ID), METHOD_SEND, null, totalReward);
  return null;
}

function thisEpochReward(rt: Runtime): Uint8Array {
  rt.validateImmediateCallerAcceptAny();
  return thisEpochRewardReturn.encode(rt.state(rewardStateCodec));
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

export const rewardActor = defineActor('reward', RewardMethod, {
  Constructor: (rt, params) => {
    rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
    rt.createState(rewardStateCodec, newRewardState(readOptionalPower(params, 'RewardConstructorParams', rt)));
    return null;
  },
  AwardBlockReward: awardBlockReward,
  ThisEpochReward: thisEpochReward,
  UpdateNetworkKPI: updateNetworkKpi,
});
