/**
 * Ending sectors early (builtin-actors v18 `actors/miner/src/lib.rs` `terminate_sectors`,
 * `process_early_terminations`): TerminateSectors removes live sectors from mutable deadlines at
 * once, and each termination — declared, or a sector faulty too long — is charged its fee (FIP-0098)
 * and releases its pledge when processed, at most ADDRESSED_PARTITIONS_MAX partitions and
 * ADDRESSED_SECTORS_MAX sectors at a time; the rest waits for the next epoch's cron.
 */
import { BitField } from '../../../ipld/index.js';
import { ExitCode } from '../../exit-code.js';
import type { Runtime } from '../../runtime.js';
import { decodeParams } from '../actor.js';
import type { FilterEstimate } from '../cbor.js';
import { deadlineIsMutable } from './deadline-info.js';
import { Deadlines } from './deadlines.js';
import { repayPartialDebt } from './funds.js';
import { pledgePenaltyForContinuedFault, pledgePenaltyForTermination } from './monies.js';
import { CronEventType, terminateSectorsParams, terminateSectorsReturn } from './params.js';
import { ADDRESSED_PARTITIONS_MAX, ADDRESSED_SECTORS_MAX } from './policy.js';
import { type PowerPair, subPower, ZERO_POWER } from './power-pair.js';
import { deadlineInfoNow, popEarlyTerminations, quantSpecOfDeadline } from './proving-state.js';
import { DeadlineSectorMap } from './sector-map.js';
import { qaPowerForSector, Sectors } from './sectors.js';
import {
  burnFunds,
  checkBalanceInvariants,
  currentPledgeInputs,
  enrollCronEvent,
  minerInfo,
  notifyPledgeChanged,
  requestUpdatePower,
  validateCallerIsControl,
} from './sends.js';
import { minerStateCodec } from './state.js';
import { terminationsByEpoch } from './termination.js';

export function scheduleEarlyTerminationWork(rt: Runtime): void {
  enrollCronEvent(rt, rt.epoch + 1n, CronEventType.ProcessEarlyTerminations);
}

export function terminateSectors(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const p = decodeParams(params, terminateSectorsParams);
  const policy = rt.networkParams.minerPolicy;
  const toProcess = DeadlineSectorMap.ofDeclarations(policy, p.terminations);
  const { hadEarlyTerminations, powerDelta } = rt.transaction(minerStateCodec, (state) => {
    const hadEarlyTerminations = !state.earlyTerminations.isEmpty();
    const info = minerInfo(rt, state);
    validateCallerIsControl(rt, info);
    const deadlines = Deadlines.load(rt.store, state.deadlines);
    const sectors = Sectors.load(rt.store, state.sectors);
    const periodStart = deadlineInfoNow(rt, state).periodStart;
    let powerDelta: PowerPair = ZERO_POWER;
    for (const [deadlineIndex, partitions] of toProcess.entries()) {
      if (!deadlineIsMutable(policy, periodStart, deadlineIndex, rt.epoch)) {
        rt.abort(ExitCode.UsrIllegalArgument, `cannot terminate sectors in immutable deadline ${deadlineIndex}`);
      }
      const deadline = deadlines.loadDeadline(rt.store, deadlineIndex);
      const removed = deadline.terminateSectors(
        rt.store,
        sectors,
        rt.epoch,
        partitions,
        info.sectorSize,
        quantSpecOfDeadline(policy, state, deadlineIndex),
      );
      state.earlyTerminations = state.earlyTerminations.union(BitField.of([deadlineIndex]));
      powerDelta = subPower(powerDelta, removed);
      deadlines.updateDeadline(rt.store, deadlineIndex, deadline);
    }
    state.deadlines = deadlines.flush(rt.store);
    return { hadEarlyTerminations, powerDelta };
  });
  const inputs = currentPledgeInputs(rt);
  const more = processEarlyTerminations(rt, inputs.rewardEstimate, inputs.networkQaPowerEstimate);
  if (more && !hadEarlyTerminations) scheduleEarlyTerminationWork(rt);
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  requestUpdatePower(rt, powerDelta);
  return terminateSectorsReturn.encode({ done: !more });
}

/**
 * Charges and releases the pledge of popped early terminations; returns whether more remain. The
 * fee per sector is FIP-0098's, from the sector's age at termination and its continued-fault fee.
 */
export function processEarlyTerminations(
  rt: Runtime,
  rewardSmoothed: FilterEstimate,
  qaPowerSmoothed: FilterEstimate,
): boolean {
  const outcome = rt.transaction(minerStateCodec, (state) => {
    const { result, more } = popEarlyTerminations(rt.store, state, ADDRESSED_PARTITIONS_MAX, ADDRESSED_SECTORS_MAX);
    const byEpoch = terminationsByEpoch(result);
    if (byEpoch.length === 0) return { more, penalty: 0n, pledgeDelta: 0n, empty: true };
    const info = minerInfo(rt, state);
    const sectors = Sectors.load(rt.store, state.sectors);
    let totalPledge = 0n;
    let totalPenalty = 0n;
    for (const [epoch, numbers] of byEpoch) {
      for (const sector of sectors.loadSectors(numbers)) {
        totalPledge += sector.initialPledge;
        const faultFee = pledgePenaltyForContinuedFault(
          rewardSmoothed,
          qaPowerSmoothed,
          qaPowerForSector(info.sectorSize, sector),
        );
        totalPenalty += pledgePenaltyForTermination(sector.initialPledge, epoch - sector.activation, faultFee);
      }
    }
    state.feeDebt += totalPenalty;
    state.initialPledge -= totalPledge;
    if (state.initialPledge < 0n)
      rt.abort(ExitCode.UsrIllegalState, `negative initial pledge after terminations: ${state.initialPledge}`);
    const { toBurn, totalUnlocked } = repayPartialDebt(rt, state);
    return { more, penalty: toBurn, pledgeDelta: -totalPledge - totalUnlocked, empty: false };
  });
  if (outcome.empty) return outcome.more;
  burnFunds(rt, outcome.penalty);
  notifyPledgeChanged(rt, outcome.pledgeDelta);
  return outcome.more;
}
