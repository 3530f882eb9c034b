/**
 * Which deadline each newly proven sector joins (builtin-actors `actors/miner/src/deadline_assignment.rs`).
 * Every later state root depends on this choice, so the order below is builtin-actors' exactly.
 * Each sector goes, one after the other, to the candidate deadline that is smallest under:
 *
 *   1. partitions after compaction, counting the sector: ceil((live + 1) / partitionSize);
 *   2. partitions before compaction, counting the sector: ceil((total + 1) / partitionSize);
 *   3. a deadline with an open (non-full) partition before one without;
 *   4. of two with open partitions, the fuller one (more total sectors), to keep runs together;
 *   5. fewer live sectors;
 *   6. the lower index.
 *
 * builtin-actors keeps the candidates in a binary heap; a linear scan for the minimum of the same
 * total order picks the same deadline.
 */
import type { MinerPolicy } from '../../../params/index.js';
import { ActorError } from '../../errors.js';
import { ExitCode } from '../../exit-code.js';
import { illegalState } from './abort.js';

/** The counters of a deadline that assignment reads (builtin-actors `Deadline.live_sectors`, `total_sectors`). */
export interface DeadlineSectorCounts {
  readonly liveSectors: bigint;
  readonly totalSectors: bigint;
}

interface Candidate {
  readonly index: number;
  liveSectors: bigint;
  totalSectors: bigint;
}

const divRoundingUp = (dividend: bigint, divisor: bigint) => (dividend + divisor - 1n) / divisor;

/** Negative when `a` should take the next sector before `b`. */
function compareCandidates(a: Candidate, b: Candidate, partitionSize: bigint): number {
  const compactA = divRoundingUp(a.liveSectors + 1n, partitionSize);
  const compactB = divRoundingUp(b.liveSectors + 1n, partitionSize);
  if (compactA !== compactB) return compactA < compactB ? -1 : 1;
  const partitionsA = divRoundingUp(a.totalSectors + 1n, partitionSize);
  const partitionsB = divRoundingUp(b.totalSectors + 1n, partitionSize);
  if (partitionsA !== partitionsB) return partitionsA < partitionsB ? -1 : 1;
  const fullA = a.totalSectors % partitionSize === 0n;
  const fullB = b.totalSectors % partitionSize === 0n;
  if (fullA !== fullB) return fullA ? 1 : -1;
  if (!fullA && !fullB && a.totalSectors !== b.totalSectors) return a.totalSectors > b.totalSectors ? -1 : 1;
  if (a.liveSectors !== b.liveSectors) return a.liveSectors < b.liveSectors ? -1 : 1;
  return a.index - b.index;
}

/**
 * Assigns `sectors`, in the order given (the caller sorts them by number), to the deadlines that
 * are candidates (`undefined` for the others: the immutable ones). Returns one list per deadline
 * of the period. Throws USR_ILLEGAL_STATE when the chosen deadline already holds `maxPartitions`
 * full partitions: then every deadline is full.
 */
export function assignDeadlines<S>(
  policy: MinerPolicy,
  maxPartitions: bigint,
  partitionSize: bigint,
  deadlines: readonly (DeadlineSectorCounts | undefined)[],
  sectors: readonly S[],
): S[][] {
  const candidates: Candidate[] = [];
  deadlines.forEach((deadline, index) => {
    if (deadline !== undefined)
      candidates.push({ index, liveSectors: deadline.liveSectors, totalSectors: deadline.totalSectors });
  });
  // builtin-actors asserts this; a period always has mutable deadlines.
  if (candidates.length === 0) throw new ActorError(ExitCode.UsrAssertionFailed, 'no deadline to assign sectors to');

  const changes: S[][] = Array.from({ length: Number(policy.wPoStPeriodDeadlines) }, () => []);
  for (const sector of sectors) {
    let best = candidates[0]!;
    for (const candidate of candidates) if (compareCandidates(candidate, best, partitionSize) < 0) best = candidate;
    if (best.totalSectors >= partitionSize * maxPartitions)
      illegalState(`max partitions limit ${maxPartitions} reached for all deadlines`);
    changes[best.index]!.push(sector);
    best.liveSectors++;
    best.totalSectors++;
  }
  return changes;
}
