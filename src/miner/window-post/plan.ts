/**
 * The window PoSt scheduler's decisions, as pure functions of the miner's proving state
 * (filecoin-project/lotus `storage/wdpost/wdpost_run.go`, `wdpost_run_faults.go`,
 * `wdpost_changehandler.go`): which deadlines to prove and when, what each partition proves and
 * skips, the sector list with stand-ins the proof is checked against, when to submit, and which
 * faulty sectors to declare recovered for which deadline.
 */
import { BitField } from '../../ipld/index.js';
import type { MinerPolicy } from '../../params/index.js';
import { type DeadlineInfo, newDeadlineInfo } from '../../vm/actors/miner/deadline-info.js';
import type { SectorLocation } from '../../vm/actors/miner/params.js';
import type { Partition } from '../../vm/actors/miner/partition.js';
import { POSTED_PARTITIONS_MAX } from '../../vm/actors/miner/policy.js';
import type { SectorOnChainInfo } from '../../vm/actors/miner/state.js';
import type { ProvingView } from './chain-api.js';

/**
 * Epochs on top of a deadline's challenge before proving it: the beacon draw at the challenge can
 * still change under a reorg near null rounds (lotus#5764, lotus#6805), so the scheduler waits a
 * little and re-draws before it submits.
 */
export const CHALLENGE_CONFIDENCE = 2n;
/**
 * Epochs before a deadline opens at which its proof is pushed: a message pushed on head `open − 1`
 * executes at `open` or later, inside the window, and the devnet's window is only 4 epochs.
 */
export const SUBMIT_LEAD = 1n;
/** Epochs of slack a recovery declaration needs to land before its deadline's fault cutoff. */
export const RECOVERY_MARGIN = 2n;

/** One partition of a proof: its index, what it skips and the sectors the proof is checked against. */
export interface PartitionProof {
  readonly index: bigint;
  /** Sectors to prove that cannot be read: declared faulty by the submission. */
  readonly skipped: BitField;
  /** Every sector of the partition in order, the first good one standing in for each other. */
  readonly sectors: readonly SectorOnChainInfo[];
}

/** The sectors a partition's proof must cover: live, not faulty unless recovering (Lotus `wdpost_run.go`). */
export function sectorsToProve(partition: Partition): BitField {
  return partition.liveSectors().subtract(partition.faults).union(partition.recoveries);
}

/**
 * The proof's sector list for a partition: all its sectors in order (`infos`, as `StateMinerSectors`
 * returns them), each sector not in `good` replaced by the first good one, as the miner actor
 * loads them for verification (builtin-actors `Sectors::load_for_proof`). Undefined when nothing
 * is good: such a partition is left out of the message.
 */
export function proofSectors(
  infos: readonly SectorOnChainInfo[],
  good: BitField,
): readonly SectorOnChainInfo[] | undefined {
  const standIn = infos.find((info) => good.has(info.sectorNumber));
  if (standIn === undefined) return undefined;
  return infos.map((info) => (good.has(info.sectorNumber) ? info : standIn));
}

/**
 * The partitions of `deadline` still to prove, in messages of at most `POSTED_PARTITIONS_MAX`:
 * partitions already posted in this window and partitions with no readable sector to prove are
 * left out (the deadline's cron marks the latter faulty, as skipping them all would).
 */
export function provingBatches(view: ProvingView, deadline: DeadlineInfo, readable: BitField): PartitionProof[][] {
  const posted = view.postedPartitions(deadline.index);
  const proofs: PartitionProof[] = [];
  view.partitions(deadline.index).forEach((partition, position) => {
    const index = BigInt(position);
    if (posted.has(index)) return;
    const toProve = sectorsToProve(partition);
    const good = toProve.intersect(readable);
    const sectors = proofSectors(view.sectors(partition.sectors), good);
    if (sectors === undefined) return;
    proofs.push({ index, skipped: toProve.subtract(good), sectors });
  });
  const batches: PartitionProof[][] = [];
  for (let start = 0; start < proofs.length; start += Number(POSTED_PARTITIONS_MAX)) {
    batches.push(proofs.slice(start, start + Number(POSTED_PARTITIONS_MAX)));
  }
  return batches;
}

/** Every sector the deadline's partitions would prove, readable or not: the ones to check on disk. */
export function sectorsToCheck(view: ProvingView, deadline: DeadlineInfo): BitField {
  return BitField.unionAll(view.partitions(deadline.index).map(sectorsToProve));
}

/** Whether two proofs' inputs are the same: then a proof made for one serves the other. */
export function sameBatches(a: readonly PartitionProof[][], b: readonly PartitionProof[][]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (batch, i) =>
        batch.length === b[i]?.length &&
        batch.every((p, j) => {
          const q = b[i]?.[j];
          return (
            q !== undefined &&
            p.index === q.index &&
            p.skipped.equals(q.skipped) &&
            p.sectors.length === q.sectors.length &&
            p.sectors.every(
              (s, k) => s.sectorNumber === q.sectors[k]?.sectorNumber && s.sealedCid.equals(q.sectors[k]?.sealedCid),
            )
          );
        }),
    )
  );
}

/** Deadline `index` of the period starting at `periodStart`, an index past the last one wrapping into later periods. */
function deadlineAt(policy: MinerPolicy, periodStart: bigint, index: bigint, height: bigint): DeadlineInfo {
  const periods = index / policy.wPoStPeriodDeadlines;
  return newDeadlineInfo(
    policy,
    periodStart + periods * policy.wPoStProvingPeriod,
    index % policy.wPoStPeriodDeadlines,
    height,
  );
}

/**
 * The deadlines to prove now: the proving deadline and those after it whose challenge is at least
 * `CHALLENGE_CONFIDENCE` epochs deep, while a proof can still land in their window (proving ahead,
 * since the challenge is drawn `wPoStChallengeLookback` epochs before the window opens).
 */
export function deadlinesToProve(policy: MinerPolicy, view: ProvingView): DeadlineInfo[] {
  const due: DeadlineInfo[] = [];
  for (let k = 0n; k < policy.wPoStPeriodDeadlines; k++) {
    const deadline = deadlineAt(policy, view.deadline.periodStart, view.deadline.index + k, view.height);
    if (deadline.challenge + CHALLENGE_CONFIDENCE > view.height) break;
    if (submissionWindowOpen(deadline, view.height)) due.push(deadline);
  }
  return due;
}

/** Whether a message pushed at `height` executes inside the deadline's window (from `open − SUBMIT_LEAD` on). */
export function submissionDue(deadline: DeadlineInfo, height: bigint): boolean {
  return height >= deadline.open - SUBMIT_LEAD && submissionWindowOpen(deadline, height);
}

/** Whether a message pushed at `height` can still execute before the deadline closes. */
function submissionWindowOpen(deadline: DeadlineInfo, height: bigint): boolean {
  return height + 1n < deadline.close;
}

/**
 * The deadline to declare recoveries for: the first whose fault cutoff is still `RECOVERY_MARGIN`
 * epochs ahead. Lotus declares for `index + 2` (`wdpost_run_faults.go`), the first such deadline
 * with mainnet's 60-epoch windows and 70-epoch cutoff; this is the same rule for any geometry.
 */
export function recoveryDeadline(policy: MinerPolicy, view: ProvingView): DeadlineInfo {
  for (let k = 0n; k <= policy.wPoStPeriodDeadlines; k++) {
    const deadline = deadlineAt(policy, view.deadline.periodStart, view.deadline.index + k, view.height);
    if (deadline.faultCutoff > view.height + RECOVERY_MARGIN) return deadline;
  }
  throw new Error(`no deadline of the period starting at ${view.deadline.periodStart} accepts recoveries`);
}

/**
 * DeclareFaultsRecovered entries for a deadline: per partition, its faulty sectors not yet
 * recovering that are readable again. Lotus never declares faults itself: they come from skipped
 * sectors and missed proofs.
 */
export function recoveryDeclarations(
  deadlineIndex: bigint,
  partitions: readonly Partition[],
  readable: BitField,
): SectorLocation[] {
  return partitions.flatMap((partition, position) => {
    const sectors = partition.faults.subtract(partition.recoveries).intersect(readable);
    return sectors.isEmpty() ? [] : [{ deadline: deadlineIndex, partition: BigInt(position), sectors }];
  });
}

/** The faulty, not recovering sectors of a deadline: the ones to check on disk for recovery. */
export function recoveryCandidates(partitions: readonly Partition[]): BitField {
  return BitField.unionAll(partitions.map((partition) => partition.faults.subtract(partition.recoveries)));
}
