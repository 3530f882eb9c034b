/**
 * What popping early terminations yields (builtin-actors `actors/miner/src/termination.rs`
 * `TerminationResult`): the terminated sectors by the epoch they terminated at, and how many
 * partitions and sectors were processed, against the per-call limits.
 */
import type { BitField } from '../../../ipld/index.js';

export interface TerminationResult {
  /** Sector numbers by termination epoch. */
  readonly sectors: Map<bigint, BitField>;
  partitionsProcessed: bigint;
  sectorsProcessed: bigint;
}

export function emptyTerminationResult(): TerminationResult {
  return { sectors: new Map(), partitionsProcessed: 0n, sectorsProcessed: 0n };
}

/** Adds `other` into `result` (builtin-actors `AddAssign`): counts summed, sectors merged per epoch. */
export function addTerminationResult(result: TerminationResult, other: TerminationResult): void {
  result.partitionsProcessed += other.partitionsProcessed;
  result.sectorsProcessed += other.sectorsProcessed;
  for (const [epoch, sectors] of other.sectors) {
    const existing = result.sectors.get(epoch);
    result.sectors.set(epoch, existing === undefined ? sectors : existing.union(sectors));
  }
}

/** True while both counts are under their limits. */
export function terminationBelowLimit(result: TerminationResult, partitionLimit: bigint, sectorLimit: bigint): boolean {
  return result.partitionsProcessed < partitionLimit && result.sectorsProcessed < sectorLimit;
}

export function isEmptyTerminationResult(result: TerminationResult): boolean {
  return result.sectorsProcessed === 0n;
}

/** The terminations in epoch order. */
export function terminationsByEpoch(result: TerminationResult): Array<[epoch: bigint, sectors: BitField]> {
  return [...result.sectors].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
