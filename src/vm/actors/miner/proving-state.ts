/**
 * The miner state's proving schedule (builtin-actors v18 `actors/miner/src/state.rs`): a new state
 * with its 48 empty deadlines, which deadline an epoch falls in, assigning new sectors to
 * deadlines, advancing the schedule at each deadline end, and popping early terminations across
 * deadlines.
 */
import type { CID } from 'multiformats/cid';
import { BitField, type Blockstore } from '../../../ipld/index.js';
import type { MinerPolicy } from '../../../params/index.js';
import type { Runtime } from '../../runtime.js';
import { BitFieldQueue } from './bitfield-queue.js';
import type { Deadline } from './deadline.js';
import { assignDeadlines } from './deadline-assignment.js';
import {
  type DeadlineInfo,
  deadlineIsMutable,
  newDeadlineInfoFromOffsetAndEpoch,
  quantSpecForDeadline,
} from './deadline-info.js';
import { Deadlines } from './deadlines.js';
import { MAX_PARTITIONS_PER_DEADLINE, PRECOMMIT_EXPIRY_AMT_BITWIDTH } from './policy.js';
import { type PowerPair, subPower, ZERO_POWER } from './power-pair.js';
import { emptyAllocatedSectorsRoot, emptyPreCommitsRoot } from './precommits.js';
import type { QuantSpec } from './quantize.js';
import { Sectors } from './sectors.js';
import type { MinerInfo, MinerState, SectorOnChainInfo } from './state.js';
import {
  addTerminationResult,
  emptyTerminationResult,
  type TerminationResult,
  terminationBelowLimit,
} from './termination.js';

/** builtin-actors `State::new`: no funds, no sectors, 48 deadlines pointing at one empty Deadline. */
export function newMinerState(
  store: Blockstore,
  policy: MinerPolicy,
  info: CID,
  provingPeriodStart: bigint,
  currentDeadline: bigint,
): MinerState {
  return {
    info,
    preCommitDeposits: 0n,
    lockedFunds: 0n,
    vestingFunds: null,
    feeDebt: 0n,
    initialPledge: 0n,
    preCommittedSectors: emptyPreCommitsRoot(store),
    preCommittedSectorsCleanUp: BitFieldQueue.emptyRoot(store, PRECOMMIT_EXPIRY_AMT_BITWIDTH),
    allocatedSectors: emptyAllocatedSectorsRoot(store),
    sectors: Sectors.emptyRoot(store),
    provingPeriodStart,
    currentDeadline,
    deadlines: Deadlines.emptyRoot(store, policy),
    earlyTerminations: BitField.EMPTY,
    deadlineCronActive: false,
  };
}

/** The deadline `epoch` falls in, from the state's period offset (builtin-actors `State::deadline_info`). */
export function deadlineInfoAt(rt: Runtime, state: MinerState, epoch: bigint): DeadlineInfo {
  return newDeadlineInfoFromOffsetAndEpoch(rt.networkParams.minerPolicy, state.provingPeriodStart, epoch);
}

export function deadlineInfoNow(rt: Runtime, state: MinerState): DeadlineInfo {
  return deadlineInfoAt(rt, state, rt.epoch);
}

/** Where deadline `index` quantizes its expirations (builtin-actors `State::quant_spec_for_deadline`). */
export function quantSpecOfDeadline(policy: MinerPolicy, state: MinerState, index: bigint): QuantSpec {
  return quantSpecForDeadline(policy, state.provingPeriodStart, index);
}

/**
 * builtin-actors `State::assign_sectors_to_deadlines`: new sectors, by number, go to the mutable
 * deadlines by the assignment order, unproven and without power.
 */
export function assignSectorsToDeadlines(
  store: Blockstore,
  state: MinerState,
  policy: MinerPolicy,
  epoch: bigint,
  sectors: readonly SectorOnChainInfo[],
  info: MinerInfo,
): void {
  const deadlines = Deadlines.load(store, state.deadlines);
  const sorted = [...sectors].sort((a, b) => (a.sectorNumber < b.sectorNumber ? -1 : 1));
  const periodStart = newDeadlineInfoFromOffsetAndEpoch(policy, state.provingPeriodStart, epoch).periodStart;
  const candidates: Array<Deadline | undefined> = [];
  for (let index = 0n; index < policy.wPoStPeriodDeadlines; index++) {
    candidates.push(
      deadlineIsMutable(policy, periodStart, index, epoch) ? deadlines.loadDeadline(store, index) : undefined,
    );
  }
  const assigned = assignDeadlines(
    policy,
    MAX_PARTITIONS_PER_DEADLINE,
    info.windowPoStPartitionSectors,
    candidates,
    sorted,
  );
  assigned.forEach((deadlineSectors, i) => {
    if (deadlineSectors.length === 0) return;
    const index = BigInt(i);
    const deadline = candidates[i] as Deadline;
    deadline.addSectors(
      store,
      info.windowPoStPartitionSectors,
      false,
      true,
      deadlineSectors,
      info.sectorSize,
      quantSpecOfDeadline(policy, state, index),
    );
    deadlines.updateDeadline(store, index, deadline);
  });
  state.deadlines = deadlines.flush(store);
}

/** What advancing past a deadline did (builtin-actors `AdvanceDeadlineResult`). */
export interface AdvanceDeadlineResult {
  readonly pledgeDelta: bigint;
  readonly powerDelta: PowerPair;
  /** Faulty power before this deadline's missed proofs were detected: what pays the continued-fault fee. */
  readonly previouslyFaultyPower: PowerPair;
  readonly detectedFaultyPower: PowerPair;
  readonly totalFaultyPower: PowerPair;
  readonly dailyFee: bigint;
  readonly livePower: PowerPair;
}

const NOTHING_ADVANCED = {
  pledgeDelta: 0n,
  powerDelta: ZERO_POWER,
  detectedFaultyPower: ZERO_POWER,
  dailyFee: 0n,
  livePower: ZERO_POWER,
} as const;

/**
 * builtin-actors `State::advance_deadline`, at the last epoch of the current deadline: the index
 * moves on (and the period with it after the 48th), partitions without a proof turn faulty, and
 * sectors due expire.
 */
export function advanceDeadline(
  store: Blockstore,
  state: MinerState,
  policy: MinerPolicy,
  epoch: bigint,
): AdvanceDeadlineResult {
  const info = newDeadlineInfoFromOffsetAndEpoch(policy, state.provingPeriodStart, epoch);
  if (!info.periodStarted()) {
    return { ...NOTHING_ADVANCED, previouslyFaultyPower: ZERO_POWER, totalFaultyPower: ZERO_POWER };
  }
  state.currentDeadline = (info.index + 1n) % policy.wPoStPeriodDeadlines;
  if (state.currentDeadline === 0n) state.provingPeriodStart = info.periodStart + policy.wPoStProvingPeriod;

  const deadlines = Deadlines.load(store, state.deadlines);
  const deadline = deadlines.loadDeadline(store, info.index);
  const previouslyFaultyPower = deadline.faultyPower;
  if (!deadline.isLive()) {
    return { ...NOTHING_ADVANCED, previouslyFaultyPower, totalFaultyPower: deadline.faultyPower };
  }
  const quant = info.quantSpec();
  const faultExpiration = info.last() + policy.faultMaxAge;
  const ended = deadline.processDeadlineEnd(store, quant, faultExpiration, state.sectors);
  const totalFaultyPower = deadline.faultyPower;
  const expired = deadline.popExpiredSectors(store, info.last(), quant);
  // Pledge of sectors expiring early is kept for the termination fee charged when they are processed.
  state.initialPledge -= expired.onTimePledge;
  if (!expired.earlySectors.isEmpty()) {
    state.earlyTerminations = state.earlyTerminations.union(BitField.of([info.index]));
  }
  deadlines.updateDeadline(store, info.index, deadline);
  state.deadlines = deadlines.flush(store);
  return {
    pledgeDelta: -expired.onTimePledge,
    powerDelta: subPower(ended.powerDelta, expired.activePower),
    previouslyFaultyPower,
    detectedFaultyPower: ended.detectedFaultyPower,
    totalFaultyPower,
    dailyFee: deadline.dailyFee,
    livePower: deadline.livePower,
  };
}

/**
 * builtin-actors `State::pop_early_terminations`: up to the limits, across the deadlines marked in
 * `earlyTerminations`; returns whether any remain.
 */
export function popEarlyTerminations(
  store: Blockstore,
  state: MinerState,
  maxPartitions: bigint,
  maxSectors: bigint,
): { result: TerminationResult; more: boolean } {
  const result = emptyTerminationResult();
  if (state.earlyTerminations.isEmpty()) return { result, more: false };
  const deadlines = Deadlines.load(store, state.deadlines);
  const done: bigint[] = [];
  for (const index of state.earlyTerminations.values()) {
    const deadline = deadlines.loadDeadline(store, index);
    const popped = deadline.popEarlyTerminations(
      store,
      maxPartitions - result.partitionsProcessed,
      maxSectors - result.sectorsProcessed,
    );
    addTerminationResult(result, popped.result);
    if (!popped.hasMore) done.push(index);
    deadlines.updateDeadline(store, index, deadline);
    if (!terminationBelowLimit(result, maxPartitions, maxSectors)) break;
  }
  state.earlyTerminations = state.earlyTerminations.subtract(BitField.of(done));
  state.deadlines = deadlines.flush(store);
  return { result, more: !state.earlyTerminations.isEmpty() };
}

/**
 * Marks every sector proven (Lotus's genesis `EraseAllUnproven`, filecoin-project/lotus
 * `chain/actors/builtin/miner/v18.go`): genesis sectors have no first window PoSt to wait for. Their
 * power is claimed by genesis directly, so the activated power is not reported anywhere.
 */
export function activateAllUnproven(store: Blockstore, root: CID): CID {
  const deadlines = Deadlines.load(store, root);
  for (let index = 0n; index < deadlines.count; index++) {
    const deadline = deadlines.loadDeadline(store, index);
    deadline.activateAllUnproven(store);
    deadlines.updateDeadline(store, index, deadline);
  }
  return deadlines.flush(store);
}
