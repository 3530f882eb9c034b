/**
 * Fault and recovery declarations (builtin-actors v18 `actors/miner/src/lib.rs` `declare_faults`,
 * `declare_faults_recovered`). Both target a deadline's next challenge window and must arrive
 * before its fault cutoff. A declared fault loses its power at once (and pays the continued-fault
 * fee from the next deadline end); a declared recovery regains power only with the window PoSt that
 * proves it, which is then verified on chain.
 */
import { ExitCode } from '../../exit-code.js';
import type { Runtime } from '../../runtime.js';
import { decodeParams } from '../actor.js';
import { type DeadlineInfo, newDeadlineInfo } from './deadline-info.js';
import { Deadlines } from './deadlines.js';
import { repayDebtsOrAbort } from './funds.js';
import { consensusFaultActive } from './onboarding.js';
import { declareFaultsParams, declareFaultsRecoveredParams } from './params.js';
import { addPower, type PowerPair, ZERO_POWER } from './power-pair.js';
import { deadlineInfoNow } from './proving-state.js';
import { DeadlineSectorMap } from './sector-map.js';
import { Sectors } from './sectors.js';
import { burnFunds, checkBalanceInvariants, minerInfo, requestUpdatePower, validateCallerIsControl } from './sends.js';
import { minerStateCodec } from './state.js';

/** The next challenge window of deadline `index`, which a declaration must reach before its cutoff. */
function declarationDeadline(rt: Runtime, periodStart: bigint, index: bigint, what: string): DeadlineInfo {
  const target = newDeadlineInfo(rt.networkParams.minerPolicy, periodStart, index, rt.epoch).nextNotElapsed();
  if (target.faultCutoffPassed()) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `failed ${what} declaration at deadline ${index}: late fault or recovery declaration`,
    );
  }
  return target;
}

export function declareFaults(rt: Runtime, params: Uint8Array | null): null {
  const toProcess = DeadlineSectorMap.ofDeclarations(
    rt.networkParams.minerPolicy,
    decodeParams(params, declareFaultsParams).faults,
  );
  const policy = rt.networkParams.minerPolicy;
  const powerDelta = rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    validateCallerIsControl(rt, info);
    const deadlines = Deadlines.load(rt.store, state.deadlines);
    const sectors = Sectors.load(rt.store, state.sectors);
    const periodStart = deadlineInfoNow(rt, state).periodStart;
    let total: PowerPair = ZERO_POWER;
    for (const [index, partitions] of toProcess.entries()) {
      const target = declarationDeadline(rt, periodStart, index, 'fault');
      const deadline = deadlines.loadDeadline(rt.store, index);
      const delta = deadline.recordFaults(
        rt.store,
        sectors,
        info.sectorSize,
        target.quantSpec(),
        target.last() + policy.faultMaxAge,
        partitions,
      );
      deadlines.updateDeadline(rt.store, index, deadline);
      total = addPower(total, delta);
    }
    state.deadlines = deadlines.flush(rt.store);
    return total;
  });
  requestUpdatePower(rt, powerDelta);
  return null;
}

export function declareFaultsRecovered(rt: Runtime, params: Uint8Array | null): null {
  const toProcess = DeadlineSectorMap.ofDeclarations(
    rt.networkParams.minerPolicy,
    decodeParams(params, declareFaultsRecoveredParams).recoveries,
  );
  const feeToBurn = rt.transaction(minerStateCodec, (state) => {
    const feeToBurn = repayDebtsOrAbort(rt, state);
    const info = minerInfo(rt, state);
    validateCallerIsControl(rt, info);
    if (consensusFaultActive(info, rt.epoch))
      rt.abort(ExitCode.UsrForbidden, 'recovery not allowed during active consensus fault');
    const deadlines = Deadlines.load(rt.store, state.deadlines);
    const sectors = Sectors.load(rt.store, state.sectors);
    const periodStart = deadlineInfoNow(rt, state).periodStart;
    for (const [index, partitions] of toProcess.entries()) {
      declarationDeadline(rt, periodStart, index, 'recovery');
      const deadline = deadlines.loadDeadline(rt.store, index);
      deadline.declareFaultsRecovered(rt.store, sectors, info.sectorSize, partitions);
      deadlines.updateDeadline(rt.store, index, deadline);
    }
    state.deadlines = deadlines.flush(rt.store);
    return feeToBurn;
  });
  burnFunds(rt, feeToBurn);
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  return null;
}
