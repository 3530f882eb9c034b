/**
 * What the miner asks of other actors (builtin-actors `actors/miner/src/lib.rs` `burn_funds`,
 * `notify_pledge_changed`, `request_update_power`, `enroll_cron_event`, `request_current_*`), and the
 * reads of its own state every method starts with. Sends that would carry nothing are not made, as
 * builtin-actors skips them: that keeps gas and traces the same.
 */
import { getBlock } from '../../../ipld/index.js';
import { BURNT_FUNDS_ACTOR_ID, REWARD_ACTOR_ID, STORAGE_POWER_ACTOR_ID } from '../../../state/index.js';
import { Address, encodeCbor } from '../../../types/index.js';
import { METHOD_SEND, PowerMethod, RewardMethod } from '../../methods.js';
import type { Runtime } from '../../runtime.js';
import { callForReturn, extractSendResult } from '../actor.js';
import { bigInt } from '../cbor.js';
import {
  currentTotalPowerReturn,
  enrollCronEventParams,
  thisEpochRewardReturn,
  updateClaimedPowerParams,
} from '../method-params.js';
import type { PledgeInputs } from './monies.js';
import { cronEventPayloadStruct } from './params.js';
import type { PowerPair } from './power-pair.js';
import { balanceInvariantViolation, decodeMinerInfo, type MinerInfo, type MinerState } from './state.js';

/** The miner's balance no longer covers what it has locked (builtin-actors ERR_BALANCE_INVARIANTS_BROKEN). */
export const ERR_BALANCE_INVARIANTS_BROKEN = 1000;

const powerActor = Address.newId(STORAGE_POWER_ACTOR_ID);

export function minerInfo(rt: Runtime, state: MinerState): MinerInfo {
  return decodeMinerInfo(getBlock(rt.store, state.info, 'miner info'));
}

/** Aborts unless the caller is the owner, the worker or a control address. */
export function validateCallerIsControl(rt: Runtime, info: MinerInfo): void {
  rt.validateImmediateCallerIs(...info.controlAddresses.map((a) => a.id()), info.worker.id(), info.owner.id());
}

export function checkBalanceInvariants(rt: Runtime, state: MinerState): void {
  const violation = balanceInvariantViolation(state, rt.currentBalance());
  if (violation !== undefined) rt.abort(ERR_BALANCE_INVARIANTS_BROKEN, `balance invariants broken: ${violation}`);
}

export function burnFunds(rt: Runtime, amount: bigint): void {
  if (amount > 0n)
    extractSendResult(rt.send(Address.newId(BURNT_FUNDS_ACTOR_ID), METHOD_SEND, null, amount), 'burning funds');
}

export function notifyPledgeChanged(rt: Runtime, delta: bigint): void {
  if (delta === 0n) return;
  extractSendResult(
    rt.send(powerActor, PowerMethod.UpdatePledgeTotal, encodeCbor(bigInt(delta)), 0n),
    'updating pledge total',
  );
}

export function requestUpdatePower(rt: Runtime, delta: PowerPair): void {
  if (delta.raw === 0n && delta.qa === 0n) return;
  extractSendResult(
    rt.send(
      powerActor,
      PowerMethod.UpdateClaimedPower,
      updateClaimedPowerParams.encode({ rawByteDelta: delta.raw, qualityAdjustedDelta: delta.qa }),
      0n,
    ),
    `failed to update power with ${delta.raw} raw, ${delta.qa} QA`,
  );
}

/** Asks the power actor to call OnDeferredCronEvent with `eventType` at `epoch`. */
export function enrollCronEvent(rt: Runtime, epoch: bigint, eventType: bigint): void {
  const payload = cronEventPayloadStruct.encode({ eventType });
  extractSendResult(
    rt.send(powerActor, PowerMethod.EnrollCronEvent, enrollCronEventParams.encode({ eventEpoch: epoch, payload }), 0n),
    'enrolling cron event',
  );
}

/** The reward and power actors' current estimates, for pledge and deposit calculations. */
export function currentPledgeInputs(rt: Runtime): PledgeInputs {
  const reward = callForReturn(
    rt,
    REWARD_ACTOR_ID,
    RewardMethod.ThisEpochReward,
    thisEpochRewardReturn,
    'failed to check epoch reward',
  );
  const power = callForReturn(
    rt,
    STORAGE_POWER_ACTOR_ID,
    PowerMethod.CurrentTotalPower,
    currentTotalPowerReturn,
    'failed to check current power',
  );
  return {
    rewardEstimate: reward.thisEpochRewardSmoothed,
    baselinePower: reward.thisEpochBaselinePower,
    networkQaPowerEstimate: power.qualityAdjPowerSmoothed,
    circulatingSupply: rt.totalFilCirculatingSupply(),
    epochsSinceRampStart: rt.epoch - power.rampStartEpoch,
    rampDurationEpochs: power.rampDurationEpochs,
  };
}
