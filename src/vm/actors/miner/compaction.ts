/**
 * CompactPartitions (builtin-actors v18 `actors/miner/src/lib.rs` `compact_partitions`): moves the
 * live sectors of some partitions of a deadline into new partitions and drops the dead ones, so a
 * deadline full of terminated sectors stops costing proofs. Only outside the deadline's challenge
 * windows and its dispute window.
 */
import { ExitCode } from '../../exit-code.js';
import type { Runtime } from '../../runtime.js';
import { decodeParams } from '../actor.js';
import { bigMin } from '../math.js';
import { deadlineAvailableForCompaction } from './deadline-info.js';
import { Deadlines } from './deadlines.js';
import { compactPartitionsParams } from './params.js';
import { ADDRESSED_PARTITIONS_MAX, ADDRESSED_SECTORS_MAX } from './policy.js';
import { deadlineInfoNow, quantSpecOfDeadline } from './proving-state.js';
import { Sectors } from './sectors.js';
import { minerInfo, validateCallerIsControl } from './sends.js';
import { minerStateCodec } from './state.js';

/** Partitions one message may address (builtin-actors `load_partitions_sectors_max`). */
export function loadPartitionsSectorsMax(partitionSectors: bigint): bigint {
  return bigMin(ADDRESSED_SECTORS_MAX / partitionSectors, ADDRESSED_PARTITIONS_MAX);
}

export function compactPartitions(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, compactPartitionsParams);
  const policy = rt.networkParams.minerPolicy;
  if (p.deadline >= policy.wPoStPeriodDeadlines)
    rt.abort(ExitCode.UsrIllegalArgument, `invalid deadline ${p.deadline}`);
  rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    validateCallerIsControl(rt, info);
    const periodStart = deadlineInfoNow(rt, state).periodStart;
    if (!deadlineAvailableForCompaction(policy, periodStart, p.deadline, rt.epoch)) {
      rt.abort(
        ExitCode.UsrForbidden,
        `cannot compact deadline ${p.deadline} during its challenge window, or the prior challenge window, or before ${policy.wPoStDisputeWindow} epochs have passed since its last challenge window ended`,
      );
    }
    const limit = loadPartitionsSectorsMax(info.windowPoStPartitionSectors);
    if (p.partitions.size > limit)
      rt.abort(ExitCode.UsrIllegalArgument, `too many partitions ${p.partitions.size}, limit ${limit}`);
    const deadlines = Deadlines.load(rt.store, state.deadlines);
    const deadline = deadlines.loadDeadline(rt.store, p.deadline);
    const dailyFeeBefore = deadline.dailyFee;
    const sectors = Sectors.load(rt.store, state.sectors);
    const dead = deadline.compactPartitions(
      rt.store,
      sectors,
      info.sectorSize,
      info.windowPoStPartitionSectors,
      p.partitions,
      quantSpecOfDeadline(policy, state, p.deadline),
    );
    sectors.deleteSectors(dead);
    state.sectors = sectors.flush();
    deadlines.updateDeadline(rt.store, p.deadline, deadline);
    state.deadlines = deadlines.flush(rt.store);
    if (deadline.dailyFee !== dailyFeeBefore)
      rt.abort(ExitCode.UsrIllegalState, 'unexpected daily fee change during partition compaction');
  });
  return null;
}
