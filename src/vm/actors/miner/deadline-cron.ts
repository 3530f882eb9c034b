/**
 * The miner's cron (builtin-actors v18 `actors/miner/src/lib.rs` `on_deferred_cron_event`,
 * `handle_proving_deadline`): at the last epoch of each deadline the power actor calls back, and
 * the miner burns expired pre-commit deposits, turns partitions that missed their window PoSt
 * faulty, expires sectors, charges the continued-fault fee on power that was already faulty and the
 * daily fee, vests funds, and enrolls for the next deadline while it has anything locked.
 */
import { putCborBytes, STORAGE_POWER_ACTOR_ID } from '../../../state/index.js';
import { ExitCode } from '../../exit-code.js';
import type { Runtime } from '../../runtime.js';
import { decodeParams } from '../actor.js';
import type { FilterEstimate } from '../cbor.js';
import { repayPartialDebt, unlockVestedFundsNow } from './funds.js';
import { dailyProofFeePayable, expectedRewardForPower, pledgePenaltyForContinuedFault } from './monies.js';
import { CronEventType, cronEventPayloadStruct, deferredCronEventParams } from './params.js';
import { EPOCHS_IN_DAY } from './policy.js';
import { cleanUpExpiredPreCommits } from './precommits.js';
import { advanceDeadline, deadlineInfoAt } from './proving-state.js';
import {
  burnFunds,
  checkBalanceInvariants,
  enrollCronEvent,
  minerInfo,
  notifyPledgeChanged,
  requestUpdatePower,
} from './sends.js';
import { type MinerInfo, type MinerState, minerInfoStruct, minerStateCodec } from './state.js';
import { processEarlyTerminations, scheduleEarlyTerminationWork } from './terminate-sectors.js';

export function onDeferredCronEvent(rt: Runtime, params: Uint8Array | null): null {
  rt.validateImmediateCallerIs(STORAGE_POWER_ACTOR_ID);
  const p = decodeParams(params, deferredCronEventParams);
  let eventType: bigint;
  try {
    eventType = cronEventPayloadStruct.decode(p.eventPayload).eventType;
  } catch (error) {
    rt.abort(
      ExitCode.UsrIllegalState,
      `failed to unmarshal miner cron payload into expected structure: ${(error as Error).message}`,
    );
  }
  if (eventType === CronEventType.ProvingDeadline) {
    handleProvingDeadline(rt, p.rewardSmoothed, p.qualityAdjPowerSmoothed);
  } else if (eventType === CronEventType.ProcessEarlyTerminations) {
    if (processEarlyTerminations(rt, p.rewardSmoothed, p.qualityAdjPowerSmoothed)) scheduleEarlyTerminationWork(rt);
  }
  // builtin-actors logs any other event type and carries on.
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  return null;
}

/** A worker key change whose delay has passed takes effect (builtin-actors `process_pending_worker`). */
function processPendingWorker(rt: Runtime, state: MinerState, info: MinerInfo): void {
  const pending = info.pendingWorkerKey;
  if (pending === null || rt.epoch < pending.effectiveAt) return;
  state.info = putCborBytes(
    rt.store,
    minerInfoStruct.encode({ ...info, worker: pending.newWorker, pendingWorkerKey: null }),
  );
}

/** Whether anything is still locked, so the deadline cron must keep running. */
function continueDeadlineCron(state: MinerState): boolean {
  return state.preCommitDeposits !== 0n || state.initialPledge !== 0n || state.lockedFunds !== 0n;
}

function handleProvingDeadline(rt: Runtime, rewardSmoothed: FilterEstimate, qaPowerSmoothed: FilterEstimate): void {
  const policy = rt.networkParams.minerPolicy;
  let hadEarlyTerminations = false;
  const outcome = rt.transaction(minerStateCodec, (state) => {
    processPendingWorker(rt, state, minerInfo(rt, state));
    state.feeDebt += cleanUpExpiredPreCommits(rt.store, state, policy, rt.epoch);
    hadEarlyTerminations = !state.earlyTerminations.isEmpty();

    const result = advanceDeadline(rt.store, state, policy, rt.epoch);
    const powerDelta = result.powerDelta;
    let pledgeDelta = result.pledgeDelta;
    // Faults detected at this deadline's end pay from the next one on.
    state.feeDebt += pledgePenaltyForContinuedFault(rewardSmoothed, qaPowerSmoothed, result.previouslyFaultyPower.qa);
    if (result.dailyFee > 0n) {
      const dayReward = expectedRewardForPower(rewardSmoothed, qaPowerSmoothed, result.livePower.qa, EPOCHS_IN_DAY);
      state.feeDebt += dailyProofFeePayable(result.dailyFee, dayReward);
    }
    const { toBurn, totalUnlocked } = repayPartialDebt(rt, state);
    pledgeDelta -= totalUnlocked;
    pledgeDelta -= unlockVestedFundsNow(rt, state);
    const continueCron = continueDeadlineCron(state);
    if (!continueCron) state.deadlineCronActive = false;
    return { powerDelta, pledgeDelta, toBurn, continueCron };
  });
  requestUpdatePower(rt, outcome.powerDelta);
  burnFunds(rt, outcome.toBurn);
  notifyPledgeChanged(rt, outcome.pledgeDelta);
  const state = rt.state(minerStateCodec);
  if (outcome.continueCron) {
    enrollCronEvent(rt, deadlineInfoAt(rt, state, rt.epoch + 1n).last(), CronEventType.ProvingDeadline);
  }
  // Early terminations that appeared at this deadline end are processed now; later ones wait for their own cron.
  if (!hadEarlyTerminations && !state.earlyTerminations.isEmpty()) {
    if (processEarlyTerminations(rt, rewardSmoothed, qaPowerSmoothed)) scheduleEarlyTerminationWork(rt);
  }
}
