/**
 * Proving-period and deadline arithmetic of the storage miner (builtin-actors
 * `actors/miner/src/deadline_info.rs`, `deadlines.rs`, and the proving-period helpers of `lib.rs`).
 * A miner's proving period is `wPoStPeriodDeadlines` challenge windows long and starts at a
 * per-miner offset; each window is one deadline, whose proofs answer a challenge drawn
 * `wPoStChallengeLookback` epochs before it opens. Every function takes the network's `MinerPolicy`
 * where builtin-actors takes `&Policy`.
 */
import type { MinerPolicy } from '../../../params/index.js';
import { declareStruct, kinds } from '../../../types/index.js';
import { type QuantSpec, quantizeDown } from './quantize.js';

/** The policy values a DeadlineInfo carries with it (and Lotus JSON shows). */
export type DeadlineGeometry = Pick<
  MinerPolicy,
  | 'wPoStPeriodDeadlines'
  | 'wPoStProvingPeriod'
  | 'wPoStChallengeWindow'
  | 'wPoStChallengeLookback'
  | 'faultDeclarationCutoff'
>;

/**
 * One deadline of one proving period, seen from `currentEpoch`. Windows are the half-open ranges
 * `[open, close)`; the challenge is drawn before the window opens. An index past the last deadline
 * stands for the end of the period (open = close = challenge = the next period's start).
 */
export class DeadlineInfo implements DeadlineGeometry {
  /** First epoch from which a proof may be submitted. */
  readonly open: bigint;
  /** First epoch from which a proof may no longer be submitted. */
  readonly close: bigint;
  /** Epoch whose randomness challenges the proofs. */
  readonly challenge: bigint;
  /** First epoch at which a fault or recovery declaration for this deadline is refused. */
  readonly faultCutoff: bigint;
  readonly wPoStPeriodDeadlines: bigint;
  readonly wPoStProvingPeriod: bigint;
  readonly wPoStChallengeWindow: bigint;
  readonly wPoStChallengeLookback: bigint;
  readonly faultDeclarationCutoff: bigint;

  constructor(
    geometry: DeadlineGeometry,
    readonly periodStart: bigint,
    readonly index: bigint,
    readonly currentEpoch: bigint,
  ) {
    this.wPoStPeriodDeadlines = geometry.wPoStPeriodDeadlines;
    this.wPoStProvingPeriod = geometry.wPoStProvingPeriod;
    this.wPoStChallengeWindow = geometry.wPoStChallengeWindow;
    this.wPoStChallengeLookback = geometry.wPoStChallengeLookback;
    this.faultDeclarationCutoff = geometry.faultDeclarationCutoff;
    if (index < geometry.wPoStPeriodDeadlines) {
      this.open = periodStart + index * geometry.wPoStChallengeWindow;
      this.close = this.open + geometry.wPoStChallengeWindow;
      this.challenge = this.open - geometry.wPoStChallengeLookback;
      this.faultCutoff = this.open - geometry.faultDeclarationCutoff;
    } else {
      const afterLastDeadline = periodStart + geometry.wPoStProvingPeriod;
      this.open = afterLastDeadline;
      this.close = afterLastDeadline;
      this.challenge = afterLastDeadline;
      this.faultCutoff = 0n;
    }
  }

  /** Whether the proving period has begun. */
  periodStarted(): boolean {
    return this.currentEpoch >= this.periodStart;
  }

  /** Whether the proving period has elapsed. */
  periodElapsed(): boolean {
    return this.currentEpoch >= this.nextPeriodStart();
  }

  /** The last epoch of the proving period. */
  periodEnd(): bigint {
    return this.periodStart + this.wPoStProvingPeriod - 1n;
  }

  nextPeriodStart(): bigint {
    return this.periodStart + this.wPoStProvingPeriod;
  }

  isOpen(): boolean {
    return this.currentEpoch >= this.open && this.currentEpoch < this.close;
  }

  hasElapsed(): boolean {
    return this.currentEpoch >= this.close;
  }

  /** The last epoch in which a proof may be submitted; the deadline's cron runs then. */
  last(): bigint {
    return this.close - 1n;
  }

  /** The epoch the following deadline opens. */
  nextOpen(): bigint {
    return this.close;
  }

  faultCutoffPassed(): boolean {
    return this.currentEpoch >= this.faultCutoff;
  }

  /** This deadline if it has not closed yet, else its first instance in a later period that has not. */
  nextNotElapsed(): DeadlineInfo {
    if (!this.hasElapsed()) return this;
    const periods = 1n + (this.currentEpoch - this.close) / this.wPoStProvingPeriod;
    return new DeadlineInfo(this, this.periodStart + this.wPoStProvingPeriod * periods, this.index, this.currentEpoch);
  }

  /** Expirations in this deadline round up to its last epoch, once per proving period. */
  quantSpec(): QuantSpec {
    return { unit: this.wPoStProvingPeriod, offset: this.last() };
  }
}

/**
 * go-state-types `dline.Info`, the Lotus JSON of a DeadlineInfo (`StateMinerProvingDeadline`). Only
 * JSON is used: the chain never stores one.
 */
export const deadlineInfoStruct = declareStruct('DeadlineInfo', [
  { key: 'currentEpoch', json: 'CurrentEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'periodStart', json: 'PeriodStart', kind: kinds.int64, description: 'epoch' },
  { key: 'index', json: 'Index', kind: kinds.uint64 },
  { key: 'open', json: 'Open', kind: kinds.int64, description: 'epoch' },
  { key: 'close', json: 'Close', kind: kinds.int64, description: 'epoch' },
  { key: 'challenge', json: 'Challenge', kind: kinds.int64, description: 'epoch' },
  { key: 'faultCutoff', json: 'FaultCutoff', kind: kinds.int64, description: 'epoch' },
  { key: 'wPoStPeriodDeadlines', json: 'WPoStPeriodDeadlines', kind: kinds.uint64 },
  { key: 'wPoStProvingPeriod', json: 'WPoStProvingPeriod', kind: kinds.int64, description: 'epochs' },
  { key: 'wPoStChallengeWindow', json: 'WPoStChallengeWindow', kind: kinds.int64, description: 'epochs' },
  { key: 'wPoStChallengeLookback', json: 'WPoStChallengeLookback', kind: kinds.int64, description: 'epochs' },
  { key: 'faultDeclarationCutoff', json: 'FaultDeclarationCutoff', kind: kinds.int64, description: 'epochs' },
]);

/** builtin-actors `new_deadline_info`. */
export function newDeadlineInfo(
  policy: MinerPolicy,
  provingPeriodStart: bigint,
  deadlineIndex: bigint,
  currentEpoch: bigint,
): DeadlineInfo {
  return new DeadlineInfo(policy, provingPeriodStart, deadlineIndex, currentEpoch);
}

/**
 * The deadline `currentEpoch` is in, from any epoch congruent to the miner's period start (the
 * state's `proving_period_start`), whether or not its cron has kept the recorded index current.
 */
export function newDeadlineInfoFromOffsetAndEpoch(
  policy: MinerPolicy,
  periodStartSeed: bigint,
  currentEpoch: bigint,
): DeadlineInfo {
  const periodStart = quantizeDown({ unit: policy.wPoStProvingPeriod, offset: periodStartSeed }, currentEpoch);
  return newDeadlineInfo(policy, periodStart, currentDeadlineIndex(policy, currentEpoch, periodStart), currentEpoch);
}

/** The quantization of expirations in deadline `deadlineIndex` (builtin-actors `State::quant_spec_for_deadline`). */
export function quantSpecForDeadline(
  policy: MinerPolicy,
  provingPeriodStart: bigint,
  deadlineIndex: bigint,
): QuantSpec {
  return newDeadlineInfo(policy, provingPeriodStart, deadlineIndex, 0n).quantSpec();
}

/**
 * Whether sectors may be added to, terminated in or moved within a deadline now: at least one whole
 * challenge window before its next opening, so neither the current nor the next deadline.
 */
export function deadlineIsMutable(
  policy: MinerPolicy,
  provingPeriodStart: bigint,
  deadlineIndex: bigint,
  currentEpoch: bigint,
): boolean {
  const next = newDeadlineInfo(policy, provingPeriodStart, deadlineIndex, currentEpoch).nextNotElapsed();
  return currentEpoch < next.open - policy.wPoStChallengeWindow;
}

/**
 * Whether the proofs optimistically accepted at a deadline may be disputed now: not while its window
 * is open, and only within the dispute window after it closed (before the miner may compact it).
 */
export function deadlineAvailableForOptimisticPoStDispute(
  policy: MinerPolicy,
  provingPeriodStart: bigint,
  deadlineIndex: bigint,
  currentEpoch: bigint,
): boolean {
  if (provingPeriodStart > currentEpoch) return false;
  const info = newDeadlineInfo(policy, provingPeriodStart, deadlineIndex, currentEpoch).nextNotElapsed();
  return !info.isOpen() && currentEpoch < info.close - policy.wPoStProvingPeriod + policy.wPoStDisputeWindow;
}

/** Whether a deadline's partitions may be compacted now: mutable, and its proofs past dispute. */
export function deadlineAvailableForCompaction(
  policy: MinerPolicy,
  provingPeriodStart: bigint,
  deadlineIndex: bigint,
  currentEpoch: bigint,
): boolean {
  return (
    deadlineIsMutable(policy, provingPeriodStart, deadlineIndex, currentEpoch) &&
    !deadlineAvailableForOptimisticPoStDispute(policy, provingPeriodStart, deadlineIndex, currentEpoch)
  );
}

/**
 * A new miner's proving-period offset (builtin-actors `assign_proving_period_offset`): the first
 * 8 bytes, big-endian, of blake2b-256(CBOR(address) ‖ i64be(epoch)), modulo the proving period.
 */
export function provingPeriodOffset(
  policy: MinerPolicy,
  addressCbor: Uint8Array,
  epoch: bigint,
  blake2b256: (data: Uint8Array) => Uint8Array,
): bigint {
  const data = new Uint8Array(addressCbor.length + 8);
  data.set(addressCbor);
  new DataView(data.buffer).setBigInt64(addressCbor.length, epoch);
  const digest = blake2b256(data);
  return new DataView(digest.buffer, digest.byteOffset).getBigUint64(0) % policy.wPoStProvingPeriod;
}

/**
 * The start of the proving period containing `epoch` for a miner with this offset: never after
 * `epoch`, so a new miner's first period has already begun (specs-actors#1079).
 */
export function currentProvingPeriodStart(policy: MinerPolicy, epoch: bigint, offset: bigint): bigint {
  const modulus = epoch % policy.wPoStProvingPeriod;
  const progress = modulus >= offset ? modulus - offset : policy.wPoStProvingPeriod - (offset - modulus);
  return epoch - progress;
}

/** The index of the deadline `epoch` falls in, for a period starting at `periodStart`. */
export function currentDeadlineIndex(policy: MinerPolicy, epoch: bigint, periodStart: bigint): bigint {
  return (epoch - periodStart) / policy.wPoStChallengeWindow;
}
