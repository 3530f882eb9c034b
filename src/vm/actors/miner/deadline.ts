/**
 * One deadline of a miner (builtin-actors `actors/miner/src/deadline_state.rs` `Deadline`): the
 * partitions proven together in its challenge window, the epochs at which they may have sectors
 * expiring, the window PoSts accepted optimistically in the current window, and the snapshots of
 * the previous window that a DisputeWindowedPoSt checks them against.
 *
 * Exported: deadlineStruct, DeadlineState, windowedPoStStruct, WindowedPoSt, PoStResult,
 * DisputeInfo, the AMT bit widths, and the class Deadline with builtin-actors' operations in
 * camelCase, same arguments, a named object where builtin-actors returns a tuple: create,
 * fromState, toState, loadPartition, loadPartitionSnapshot, savePartition, forEachPartition,
 * addExpirationPartitions, popExpiredSectors → ExpirationSet, addSectors → {power, dailyFee},
 * popEarlyTerminations → {result, hasMore}, popExpiredPartitions → {popped, modified},
 * terminateSectors → PowerPair, compactPartitions (builtin-actors' `RemovePartitions`) → dead sectors,
 * recordFaults → PowerPair, declareFaultsRecovered, processDeadlineEnd → {powerDelta,
 * detectedFaultyPower}, recordProvenSectors → PoStResult, recordPoStProofs, takePoStProofs →
 * {partitions, proofs}, rescheduleSectorExpirations → SectorOnChainInfo[], loadPartitionsForDispute
 * → DisputeInfo, isLive, validateState, activateAllUnproven (Lotus genesis).
 *
 * builtin-actors passes `&Policy` to `terminate_sectors` only for the partition's AddressedSectorsMax,
 * the same on every network, so no policy is passed here (see partition.ts). Errors keep builtin-actors'
 * exit codes: USR_NOT_FOUND for a partition that is not there, USR_ILLEGAL_ARGUMENT for a bad
 * request, USR_ILLEGAL_STATE for what a method's caller maps an internal error to.
 */
import type { CID } from 'multiformats/cid';
import { Amt, BitField, type Blockstore, bitFieldKind } from '../../../ipld/index.js';
import type { CborNode } from '../../../types/cbor-node.js';
import { declareStruct, kinds, postProofStruct, type StructValue } from '../../../types/index.js';
import type { Mutable } from '../../runtime.js';
import { illegalArgument, illegalState, notFound, orIllegalState } from './abort.js';
import { BitFieldQueue } from './bitfield-queue.js';
import {
  addToExpirationSet,
  type ExpirationSet,
  emptyExpirationSet,
  expirationSetLength,
  isEmptyExpirationSet,
} from './expiration-queue.js';
import type { PoStPartition, PoStProof } from './params.js';
import { Partition } from './partition.js';
import {
  addPower,
  formatPower,
  isNegativePower,
  isZeroPower,
  type PowerPair,
  powerEquals,
  powerPairStruct,
  subPower,
  ZERO_POWER,
} from './power-pair.js';
import type { QuantSpec } from './quantize.js';
import { PartitionSectorMap } from './sector-map.js';
import type { Sectors } from './sectors.js';
import { SECTORS_AMT_BITWIDTH, type SectorOnChainInfo } from './state.js';
import {
  addTerminationResult,
  emptyTerminationResult,
  type TerminationResult,
  terminationBelowLimit,
} from './termination.js';

/** builtin-actors `DEADLINE_PARTITIONS_AMT_BITWIDTH`: usually a small array. */
export const DEADLINE_PARTITIONS_AMT_BITWIDTH = 3;
/** builtin-actors `DEADLINE_EXPIRATIONS_AMT_BITWIDTH`. */
export const DEADLINE_EXPIRATIONS_AMT_BITWIDTH = 5;
/** builtin-actors `DEADLINE_OPTIMISTIC_POST_SUBMISSIONS_AMT_BITWIDTH`: a few PoSts per window. */
export const DEADLINE_OPTIMISTIC_POST_SUBMISSIONS_AMT_BITWIDTH = 2;

/** builtin-actors `WindowedPoSt`: an optimistically accepted proof and the partitions it proves. */
export const windowedPoStStruct = declareStruct('WindowedPoSt', [
  { key: 'partitions', json: 'Partitions', kind: bitFieldKind },
  { key: 'proofs', json: 'Proofs', kind: kinds.array(postProofStruct.kind) },
]);
export type WindowedPoSt = StructValue<typeof windowedPoStStruct>;

/** builtin-actors `Deadline` (13 fields; JSON names as go-state-types `builtin/v18/miner` `Deadline`). */
export const deadlineStruct = declareStruct('Deadline', [
  { key: 'partitions', json: 'Partitions', kind: kinds.cid, description: 'AMT partition index → Partition' },
  {
    key: 'expirationsEpochs',
    json: 'ExpirationsEpochs',
    kind: kinds.cid,
    description: 'AMT quantized epoch → BitField of partitions that may have sectors expiring then',
  },
  {
    key: 'partitionsPoSted',
    json: 'PartitionsPoSted',
    kind: bitFieldKind,
    description: 'partitions proven in the current challenge window',
  },
  { key: 'earlyTerminations', json: 'EarlyTerminations', kind: bitFieldKind, description: 'partitions' },
  { key: 'liveSectors', json: 'LiveSectors', kind: kinds.uint64, description: 'not terminated, faulty included' },
  { key: 'totalSectors', json: 'TotalSectors', kind: kinds.uint64, description: 'terminated included' },
  { key: 'faultyPower', json: 'FaultyPower', kind: powerPairStruct.kind },
  {
    key: 'optimisticPoStSubmissions',
    json: 'OptimisticPoStSubmissions',
    kind: kinds.cid,
    description: 'AMT of WindowedPoSt accepted in the current window',
  },
  {
    key: 'sectorsSnapshot',
    json: 'SectorsSnapshot',
    kind: kinds.cid,
    description: 'sectors AMT at the last window end',
  },
  {
    key: 'partitionsSnapshot',
    json: 'PartitionsSnapshot',
    kind: kinds.cid,
    description: 'partitions AMT at the last window end',
  },
  {
    key: 'optimisticPoStSubmissionsSnapshot',
    json: 'OptimisticPoStSubmissionsSnapshot',
    kind: kinds.cid,
    description: 'the proofs of the last window, open to dispute',
  },
  { key: 'livePower', json: 'LivePower', kind: powerPairStruct.kind, description: 'active, faulty and unproven' },
  { key: 'dailyFee', json: 'DailyFee', kind: kinds.bigInt, description: 'attoFIL (FIP-0100)' },
]);
export type DeadlineState = Mutable<StructValue<typeof deadlineStruct>>;

/** builtin-actors `PoStResult`: what recording a window PoSt changed, and the sectors it must prove. */
export interface PoStResult {
  /** Power activated or deactivated. */
  readonly powerDelta: PowerPair;
  readonly newFaultyPower: PowerPair;
  readonly retractedRecoveryPower: PowerPair;
  readonly recoveredPower: PowerPair;
  /** Every sector of the proven partitions. */
  readonly sectors: BitField;
  /** Those of `sectors` the proof does not cover (faulty or terminated). */
  readonly ignoredSectors: BitField;
  /** The partitions proven. */
  readonly partitions: BitField;
}

/** builtin-actors `DisputeInfo`: what a disputed PoSt claimed, from the partitions snapshot. */
export interface DisputeInfo {
  readonly allSectorNos: BitField;
  readonly ignoredSectorNos: BitField;
  /** The active sectors, by partition: they turn faulty when the dispute succeeds. */
  readonly disputedSectors: PartitionSectorMap;
  readonly disputedPower: PowerPair;
}

/** An AMT of partitions (the deadline's, or its snapshot), decoded into Partition objects. */
class PartitionsArray {
  readonly #amt: Amt;

  private constructor(amt: Amt) {
    this.#amt = amt;
  }

  static load(store: Blockstore, root: CID): PartitionsArray {
    return new PartitionsArray(orIllegalState('failed to load partitions', () => Amt.load(store, root)));
  }

  static create(store: Blockstore): PartitionsArray {
    return new PartitionsArray(Amt.create(store, { bitWidth: DEADLINE_PARTITIONS_AMT_BITWIDTH }));
  }

  get count(): bigint {
    return BigInt(this.#amt.count);
  }

  get(index: bigint): Partition | undefined {
    const node = orIllegalState(`failed to load partition ${index}`, () => this.#amt.get(index));
    if (node === undefined) return undefined;
    return orIllegalState(`failed to decode partition ${index}`, () =>
      Partition.fromCborNode(node as CborNode, `Partition ${index}`),
    );
  }

  set(index: bigint, partition: Partition): void {
    this.#amt.set(index, partition.toCborNode());
  }

  *entries(): Generator<[index: bigint, partition: Partition]> {
    for (const [index, node] of this.#amt.entries()) {
      yield [index, Partition.fromCborNode(node as CborNode, `Partition ${index}`)];
    }
  }

  flush(): CID {
    return orIllegalState('failed to store partitions', () => this.#amt.flush());
  }
}

const emptyAmtRoot = (store: Blockstore, bitWidth: number) => Amt.create(store, { bitWidth }).flush();

export class Deadline implements DeadlineState {
  partitions: CID;
  expirationsEpochs: CID;
  partitionsPoSted: BitField;
  earlyTerminations: BitField;
  liveSectors: bigint;
  totalSectors: bigint;
  faultyPower: PowerPair;
  optimisticPoStSubmissions: CID;
  sectorsSnapshot: CID;
  partitionsSnapshot: CID;
  optimisticPoStSubmissionsSnapshot: CID;
  livePower: PowerPair;
  dailyFee: bigint;

  private constructor(state: DeadlineState) {
    this.partitions = state.partitions;
    this.expirationsEpochs = state.expirationsEpochs;
    this.partitionsPoSted = state.partitionsPoSted;
    this.earlyTerminations = state.earlyTerminations;
    this.liveSectors = state.liveSectors;
    this.totalSectors = state.totalSectors;
    this.faultyPower = state.faultyPower;
    this.optimisticPoStSubmissions = state.optimisticPoStSubmissions;
    this.sectorsSnapshot = state.sectorsSnapshot;
    this.partitionsSnapshot = state.partitionsSnapshot;
    this.optimisticPoStSubmissionsSnapshot = state.optimisticPoStSubmissionsSnapshot;
    this.livePower = state.livePower;
    this.dailyFee = state.dailyFee;
  }

  /** An empty deadline, its empty collections written to `store` (builtin-actors `Deadline::new`). */
  static create(store: Blockstore): Deadline {
    const emptyPartitions = emptyAmtRoot(store, DEADLINE_PARTITIONS_AMT_BITWIDTH);
    const emptyProofs = emptyAmtRoot(store, DEADLINE_OPTIMISTIC_POST_SUBMISSIONS_AMT_BITWIDTH);
    return new Deadline({
      partitions: emptyPartitions,
      expirationsEpochs: emptyAmtRoot(store, DEADLINE_EXPIRATIONS_AMT_BITWIDTH),
      partitionsPoSted: BitField.EMPTY,
      earlyTerminations: BitField.EMPTY,
      liveSectors: 0n,
      totalSectors: 0n,
      faultyPower: ZERO_POWER,
      optimisticPoStSubmissions: emptyProofs,
      sectorsSnapshot: emptyAmtRoot(store, SECTORS_AMT_BITWIDTH),
      partitionsSnapshot: emptyPartitions,
      optimisticPoStSubmissionsSnapshot: emptyProofs,
      livePower: ZERO_POWER,
      dailyFee: 0n,
    });
  }

  static fromState(state: DeadlineState): Deadline {
    return new Deadline(state);
  }

  toState(): DeadlineState {
    return {
      partitions: this.partitions,
      expirationsEpochs: this.expirationsEpochs,
      partitionsPoSted: this.partitionsPoSted,
      earlyTerminations: this.earlyTerminations,
      liveSectors: this.liveSectors,
      totalSectors: this.totalSectors,
      faultyPower: this.faultyPower,
      optimisticPoStSubmissions: this.optimisticPoStSubmissions,
      sectorsSnapshot: this.sectorsSnapshot,
      partitionsSnapshot: this.partitionsSnapshot,
      optimisticPoStSubmissionsSnapshot: this.optimisticPoStSubmissionsSnapshot,
      livePower: this.livePower,
      dailyFee: this.dailyFee,
    };
  }

  #partitionsArray(store: Blockstore): PartitionsArray {
    return PartitionsArray.load(store, this.partitions);
  }

  #expirations(store: Blockstore, quant: QuantSpec): BitFieldQueue {
    return BitFieldQueue.load(store, this.expirationsEpochs, quant);
  }

  #proofsArray(store: Blockstore, root: CID): Amt {
    return orIllegalState('failed to load post proofs', () => Amt.load(store, root));
  }

  /** Partition `index`; USR_NOT_FOUND when there is none. */
  loadPartition(store: Blockstore, index: bigint): Partition {
    return this.#partitionsArray(store).get(index) ?? notFound(`no partition ${index}`);
  }

  /** Partition `index` as it was at the end of the last challenge window; USR_NOT_FOUND when there is none. */
  loadPartitionSnapshot(store: Blockstore, index: bigint): Partition {
    return (
      PartitionsArray.load(store, this.partitionsSnapshot).get(index) ?? notFound(`no partition snapshot ${index}`)
    );
  }

  /** Writes partition `index` back (builtin-actors' callers set it in the partitions AMT directly). */
  savePartition(store: Blockstore, index: bigint, partition: Partition): void {
    const partitions = this.#partitionsArray(store);
    partitions.set(index, partition);
    this.partitions = partitions.flush();
  }

  /** The partitions in index order. */
  *forEachPartition(store: Blockstore): Generator<[index: bigint, partition: Partition]> {
    yield* this.#partitionsArray(store).entries();
  }

  /** Adds partitions to the set that may have sectors expiring at `expirationEpoch` (quantized). */
  addExpirationPartitions(
    store: Blockstore,
    expirationEpoch: bigint,
    partitions: readonly bigint[],
    quant: QuantSpec,
  ): void {
    if (partitions.length === 0) return;
    const queue = this.#expirations(store, quant);
    queue.addToQueueValues(expirationEpoch, partitions);
    this.expirationsEpochs = queue.flush();
  }

  /**
   * Terminates the sectors expiring up to `until`, on time or early (faulty too long), in every
   * partition the expiration queue names. Returns what expired, summed.
   */
  popExpiredSectors(store: Blockstore, until: bigint, quant: QuantSpec): ExpirationSet {
    const { popped: expiredPartitions, modified } = this.popExpiredPartitions(store, until, quant);
    if (!modified) return emptyExpirationSet();

    const partitions = this.#partitionsArray(store);
    const total = emptyExpirationSet();
    const withEarlyTerminations: bigint[] = [];
    for (const index of expiredPartitions.values()) {
      const partition = partitions.get(index) ?? illegalState(`missing expected partition ${index}`);
      const expired = partition.popExpiredSectors(store, until, quant);
      if (!expired.earlySectors.isEmpty()) withEarlyTerminations.push(index);
      addToExpirationSet(total, expired);
      partitions.set(index, partition);
    }
    this.partitions = partitions.flush();

    this.earlyTerminations = this.earlyTerminations.union(BitField.of(withEarlyTerminations));
    this.liveSectors -= total.onTimeSectors.size + total.earlySectors.size;
    this.faultyPower = subPower(this.faultyPower, total.faultyPower);
    this.livePower = subPower(subPower(this.livePower, total.faultyPower), total.activePower);
    this.dailyFee -= total.feeDeduction;
    return total;
  }

  /**
   * Adds sectors, filling the last partition before opening new ones of `partitionSize`. The caller
   * makes sure the deadline is not being proven now. Unproven unless `proven`; their daily fee is
   * added to the deadline's only if `newFees` (not when compaction moves them). Returns the power
   * and the daily fee they add.
   */
  addSectors(
    store: Blockstore,
    partitionSize: bigint,
    proven: boolean,
    newFees: boolean,
    sectors: readonly SectorOnChainInfo[],
    sectorSize: bigint,
    quant: QuantSpec,
  ): { power: PowerPair; dailyFee: bigint } {
    let power: PowerPair = ZERO_POWER;
    let dailyFee = 0n;
    if (sectors.length === 0) return { power, dailyFee };

    this.liveSectors += BigInt(sectors.length);
    this.totalSectors += BigInt(sectors.length);
    const partitions = this.#partitionsArray(store);
    const expirationUpdates: [epoch: bigint, partition: bigint][] = [];
    let rest = sectors;
    const last = partitions.count > 0n ? partitions.count - 1n : 0n;
    for (let index = last; rest.length > 0; index++) {
      const partition = partitions.get(index) ?? Partition.create(store);
      const sectorCount = partition.sectors.size;
      if (sectorCount >= partitionSize) continue;
      const size = Number(
        partitionSize - sectorCount < BigInt(rest.length) ? partitionSize - sectorCount : rest.length,
      );
      const added = rest.slice(0, size);
      rest = rest.slice(size);
      const result = partition.addSectors(store, proven, added, sectorSize, quant);
      power = addPower(power, result.power);
      if (newFees) dailyFee += result.dailyFee;
      partitions.set(index, partition);
      for (const sector of added) expirationUpdates.push([sector.expiration, index]);
    }
    this.partitions = partitions.flush();

    const expirations = this.#expirations(store, quant);
    expirations.addManyToQueueValues(expirationUpdates);
    this.expirationsEpochs = expirations.flush();
    this.dailyFee += dailyFee;
    this.livePower = addPower(this.livePower, power);
    return { power, dailyFee };
  }

  /**
   * Pops early-terminated sectors, partition by partition in index order, up to the limits.
   * `hasMore`: whether partitions with early terminations remain.
   */
  popEarlyTerminations(
    store: Blockstore,
    maxPartitions: bigint,
    maxSectors: bigint,
  ): { result: TerminationResult; hasMore: boolean } {
    const partitions = this.#partitionsArray(store);
    const finished: bigint[] = [];
    const result = emptyTerminationResult();
    for (const index of this.earlyTerminations.values()) {
      const partition = partitions.get(index);
      if (partition === undefined) {
        finished.push(index);
        continue;
      }
      const popped = partition.popEarlyTerminations(store, maxSectors - result.sectorsProcessed);
      addTerminationResult(result, popped.result);
      if (!popped.hasMore) finished.push(index);
      partitions.set(index, partition);
      if (!terminationBelowLimit(result, maxPartitions, maxSectors)) break;
    }
    this.earlyTerminations = this.earlyTerminations.subtract(BitField.of(finished));
    this.partitions = partitions.flush();
    return { result, hasMore: !this.earlyTerminations.isEmpty() };
  }

  /** Removes the expiration-queue entries up to `until`; the partitions they named, and whether any. */
  popExpiredPartitions(store: Blockstore, until: bigint, quant: QuantSpec): { popped: BitField; modified: boolean } {
    const expirations = this.#expirations(store, quant);
    const { popped, modified } = expirations.popUntil(until);
    if (modified) this.expirationsEpochs = expirations.flush();
    return { popped, modified };
  }

  /**
   * Terminates live sectors at `epoch`, partition by partition; the partitions join the early
   * terminations awaiting their fee. Returns the active power lost.
   */
  terminateSectors(
    store: Blockstore,
    sectors: Sectors,
    epoch: bigint,
    partitionSectors: PartitionSectorMap,
    sectorSize: bigint,
    quant: QuantSpec,
  ): PowerPair {
    const partitions = this.#partitionsArray(store);
    let powerLost: PowerPair = ZERO_POWER;
    for (const [index, sectorNumbers] of partitionSectors.entries()) {
      const partition = partitions.get(index) ?? notFound(`failed to find partition ${index}`);
      const { removed, removedUnprovenPower } = partition.terminateSectors(
        store,
        sectors,
        epoch,
        sectorNumbers,
        sectorSize,
        quant,
      );
      partitions.set(index, partition);
      if (!isEmptyExpirationSet(removed)) {
        this.earlyTerminations = this.earlyTerminations.union(BitField.of([index]));
        this.liveSectors -= expirationSetLength(removed);
      }
      this.faultyPower = subPower(this.faultyPower, removed.faultyPower);
      this.livePower = subPower(
        subPower(subPower(this.livePower, removed.activePower), removed.faultyPower),
        removedUnprovenPower,
      );
      this.dailyFee -= removed.feeDeduction;
      powerLost = addPower(powerLost, removed.activePower);
    }
    this.partitions = partitions.flush();
    return powerLost;
  }

  /**
   * builtin-actors `compact_partitions` (RemovePartitions): removes the partitions `toRemove`, which
   * must have no faults, unproven sectors or pending early terminations, shifts the others down, and
   * adds their live sectors back as proven sectors in partitions of `partitionSize`. Returns their
   * dead (terminated) sectors. The daily fee is left to the caller, as builtin-actors leaves it.
   */
  compactPartitions(
    store: Blockstore,
    sectors: Sectors,
    sectorSize: bigint,
    partitionSize: bigint,
    toRemove: BitField,
    quant: QuantSpec,
  ): BitField {
    const oldPartitions = this.#partitionsArray(store);
    const partitionCount = oldPartitions.count;
    if (toRemove.size > partitionCount) illegalArgument('partitions to remove exceeds total');
    const maxPartition = toRemove.last();
    if (maxPartition === undefined) return BitField.EMPTY;
    if (maxPartition >= partitionCount)
      illegalArgument(`partition index ${maxPartition} out of range [0, ${partitionCount})`);
    if (!this.earlyTerminations.isEmpty())
      illegalArgument('cannot remove partitions from deadline with early terminations');

    const newPartitions = PartitionsArray.create(store);
    let kept = 0n;
    const dead: BitField[] = [];
    const live: BitField[] = [];
    let removedPower: PowerPair = ZERO_POWER;
    for (const [index, partition] of oldPartitions.entries()) {
      if (!toRemove.has(index)) {
        newPartitions.set(kept++, partition);
        continue;
      }
      if (!partition.faults.isEmpty()) illegalArgument(`cannot remove partition ${index}: has faults`);
      if (!partition.unproven.isEmpty()) illegalArgument(`cannot remove partition ${index}: has unproven sectors`);
      dead.push(partition.terminated);
      live.push(partition.liveSectors());
      removedPower = addPower(removedPower, partition.livePower);
    }
    this.partitions = newPartitions.flush();

    const deadSectors = BitField.unionAll(dead);
    const liveSectors = BitField.unionAll(live);
    this.liveSectors -= liveSectors.size;
    this.totalSectors -= liveSectors.size + deadSectors.size;
    // No faults in removed partitions, so the faulty power stays as it is.
    this.livePower = subPower(this.livePower, removedPower);

    const expirations = this.#expirations(store, quant);
    expirations.cut(toRemove);
    this.expirationsEpochs = expirations.flush();

    const moved = this.addSectors(
      store,
      partitionSize,
      true,
      false,
      sectors.loadSectors(liveSectors),
      sectorSize,
      quant,
    );
    if (moved.dailyFee !== 0n) illegalState(`unexpected fee when adding back moved sectors: ${moved.dailyFee}`);
    if (!powerEquals(removedPower, moved.power)) {
      illegalState(
        `power changed when compacting partitions: was ${formatPower(removedPower)}, is now ${formatPower(moved.power)}`,
      );
    }
    return deadSectors;
  }

  /**
   * Declares sectors faulty, expiring early at `faultExpirationEpoch`. Returns the power delta (the
   * active power that turned faulty, negated).
   */
  recordFaults(
    store: Blockstore,
    sectors: Sectors,
    sectorSize: bigint,
    quant: QuantSpec,
    faultExpirationEpoch: bigint,
    partitionSectors: PartitionSectorMap,
  ): PowerPair {
    const partitions = this.#partitionsArray(store);
    const withFaults: bigint[] = [];
    let powerDelta: PowerPair = ZERO_POWER;
    for (const [index, sectorNumbers] of partitionSectors.entries()) {
      const partition = partitions.get(index) ?? notFound(`no such partition ${index}`);
      const recorded = partition.recordFaults(store, sectors, sectorNumbers, faultExpirationEpoch, sectorSize, quant);
      this.faultyPower = addPower(this.faultyPower, recorded.newFaultyPower);
      powerDelta = addPower(powerDelta, recorded.powerDelta);
      if (!recorded.newFaults.isEmpty()) withFaults.push(index);
      partitions.set(index, partition);
    }
    this.partitions = partitions.flush();
    this.addExpirationPartitions(store, faultExpirationEpoch, withFaults, quant);
    return powerDelta;
  }

  /** Declares faulty sectors recovering; their power returns only when a window PoSt proves them. */
  declareFaultsRecovered(
    store: Blockstore,
    sectors: Sectors,
    sectorSize: bigint,
    partitionSectors: PartitionSectorMap,
  ): void {
    const partitions = this.#partitionsArray(store);
    for (const [index, sectorNumbers] of partitionSectors.entries()) {
      const partition = partitions.get(index) ?? notFound(`no such partition ${index}`);
      partition.declareFaultsRecovered(sectors, sectorSize, sectorNumbers);
      partitions.set(index, partition);
    }
    this.partitions = partitions.flush();
  }

  /**
   * The end of the challenge window: every partition not proven turns faulty (unless it was
   * entirely faulty already, with nothing recovering), failed recoveries are dropped, and the
   * partitions and proofs of the window become the snapshots open to dispute. `sectors` is the
   * miner's sectors root, kept only if there is a proof to dispute. Returns the power delta and
   * the power to penalize (new faults and failed recoveries; builtin-actors' `penalized_power`,
   * which `State::advance_deadline` calls `detected_faulty_power`).
   */
  processDeadlineEnd(
    store: Blockstore,
    quant: QuantSpec,
    faultExpirationEpoch: bigint,
    sectors: CID,
  ): { powerDelta: PowerPair; detectedFaultyPower: PowerPair } {
    const partitions = this.#partitionsArray(store);
    let detectedAny = false;
    const rescheduled: bigint[] = [];
    let powerDelta: PowerPair = ZERO_POWER;
    let penalizedPower: PowerPair = ZERO_POWER;
    for (let index = 0n; index < partitions.count; index++) {
      if (this.partitionsPoSted.has(index)) continue;
      const partition = partitions.get(index) ?? illegalState(`no partition ${index}`);
      // A partition entirely faulty, with nothing recovering, has nothing more to lose.
      if (isZeroPower(partition.recoveringPower) && powerEquals(partition.faultyPower, partition.livePower)) continue;
      detectedAny = true;
      const missed = partition.recordMissedPost(store, faultExpirationEpoch, quant);
      // Only new faults move expirations; failed recoveries are merely penalized.
      if (!isZeroPower(missed.newFaultyPower)) rescheduled.push(index);
      partitions.set(index, partition);
      this.faultyPower = addPower(this.faultyPower, missed.newFaultyPower);
      powerDelta = addPower(powerDelta, missed.powerDelta);
      penalizedPower = addPower(penalizedPower, missed.penalizedPower);
    }
    if (detectedAny) this.partitions = partitions.flush();
    this.addExpirationPartitions(store, faultExpirationEpoch, rescheduled, quant);

    this.partitionsPoSted = BitField.EMPTY;
    this.partitionsSnapshot = this.partitions;
    this.optimisticPoStSubmissionsSnapshot = this.optimisticPoStSubmissions;
    this.optimisticPoStSubmissions = emptyAmtRoot(store, DEADLINE_OPTIMISTIC_POST_SUBMISSIONS_AMT_BITWIDTH);
    // Keep the sectors only if a proof might be disputed (the proofs snapshot is not empty).
    this.sectorsSnapshot = this.optimisticPoStSubmissions.equals(this.optimisticPoStSubmissionsSnapshot)
      ? emptyAmtRoot(store, SECTORS_AMT_BITWIDTH)
      : sectors;
    return { powerDelta, detectedFaultyPower: penalizedPower };
  }

  /**
   * Records a window PoSt over `postPartitions` without verifying it: skipped sectors turn faulty,
   * declared recoveries are recovered, unproven sectors are activated, and the partitions are
   * marked proven. USR_ILLEGAL_ARGUMENT for a partition listed twice or already proven,
   * USR_NOT_FOUND for one that does not exist. The result names the sectors the proof must cover.
   */
  recordProvenSectors(
    store: Blockstore,
    sectors: Sectors,
    sectorSize: bigint,
    quant: QuantSpec,
    faultExpiration: bigint,
    postPartitions: readonly PoStPartition[],
  ): PoStResult {
    const partitionIndexes = BitField.of(postPartitions.map((post) => post.index));
    if (partitionIndexes.size !== BigInt(postPartitions.length)) illegalArgument('duplicate partitions proven');
    const alreadyProven = this.partitionsPoSted.intersect(partitionIndexes);
    if (!alreadyProven.isEmpty())
      illegalArgument(`partition already proven: ${[...alreadyProven.values()].join(', ')}`);

    const partitions = this.#partitionsArray(store);
    const allSectors: BitField[] = [];
    const allIgnored: BitField[] = [];
    let newFaultyPower: PowerPair = ZERO_POWER;
    let retractedRecoveryPower: PowerPair = ZERO_POWER;
    let recoveredPower: PowerPair = ZERO_POWER;
    let powerDelta: PowerPair = ZERO_POWER;
    const rescheduled: bigint[] = [];
    for (const post of postPartitions) {
      const partition = partitions.get(post.index) ?? notFound(`no such partition ${post.index}`);
      // Skipped sectors become faults before the sectors to prove are worked out.
      const skipped = partition.recordSkippedFaults(store, sectors, sectorSize, quant, faultExpiration, post.skipped);
      if (skipped.hasNewFaults) rescheduled.push(post.index);
      const recovered = partition.recoverFaults(store, sectors, sectorSize, quant);
      const activated = partition.activateUnproven();
      allSectors.push(partition.sectors);
      allIgnored.push(partition.faults, partition.terminated);
      partitions.set(post.index, partition);

      newFaultyPower = addPower(newFaultyPower, skipped.newFaultPower);
      retractedRecoveryPower = addPower(retractedRecoveryPower, skipped.retractedRecoveryPower);
      recoveredPower = addPower(recoveredPower, recovered);
      powerDelta = addPower(addPower(addPower(powerDelta, skipped.powerDelta), activated), recovered);
      this.partitionsPoSted = this.partitionsPoSted.union(BitField.of([post.index]));
    }
    this.addExpirationPartitions(store, faultExpiration, rescheduled, quant);
    this.faultyPower = addPower(subPower(this.faultyPower, recoveredPower), newFaultyPower);
    this.partitions = partitions.flush();

    return {
      powerDelta,
      newFaultyPower,
      retractedRecoveryPower,
      recoveredPower,
      sectors: BitField.unionAll(allSectors),
      ignoredSectors: BitField.unionAll(allIgnored),
      partitions: partitionIndexes,
    };
  }

  /** Stores an optimistically accepted proof of `partitions`, for a dispute after the window. */
  recordPoStProofs(store: Blockstore, partitions: BitField, proofs: readonly PoStProof[]): void {
    const proofsArray = this.#proofsArray(store, this.optimisticPoStSubmissions);
    proofsArray.set(proofsArray.count, windowedPoStStruct.toCborNode({ partitions, proofs }));
    this.optimisticPoStSubmissions = proofsArray.flush();
  }

  /**
   * Removes proof `index` from the last window's proofs snapshot, leaving a hole so that the other
   * proofs keep their indices; USR_ILLEGAL_ARGUMENT when there is no such proof.
   */
  takePoStProofs(store: Blockstore, index: bigint): { partitions: BitField; proofs: readonly PoStProof[] } {
    const proofsArray = this.#proofsArray(store, this.optimisticPoStSubmissionsSnapshot);
    const node = proofsArray.get(index);
    if (node === undefined) illegalArgument(`proof ${index} not found`);
    const post = orIllegalState(`failed to decode proof ${index}`, () =>
      windowedPoStStruct.fromCborNode(node as CborNode, `WindowedPoSt ${index}`),
    );
    proofsArray.delete(index);
    this.optimisticPoStSubmissionsSnapshot = proofsArray.flush();
    return { partitions: post.partitions, proofs: post.proofs };
  }

  /**
   * Moves the active ones of the given sectors to expire at `expiration`, skipping partitions that
   * are gone (compacted) and sectors it cannot find. Returns the infos of the sectors moved.
   */
  rescheduleSectorExpirations(
    store: Blockstore,
    sectors: Sectors,
    expiration: bigint,
    partitionSectors: PartitionSectorMap,
    sectorSize: bigint,
    quant: QuantSpec,
  ): SectorOnChainInfo[] {
    const partitions = this.#partitionsArray(store);
    const rescheduled: bigint[] = [];
    const allReplaced: SectorOnChainInfo[] = [];
    for (const [index, sectorNumbers] of partitionSectors.entries()) {
      const partition = partitions.get(index);
      if (partition === undefined) continue;
      const replaced = partition.rescheduleExpirations(store, sectors, expiration, sectorNumbers, sectorSize, quant);
      if (replaced.length === 0) continue;
      allReplaced.push(...replaced);
      rescheduled.push(index);
      partitions.set(index, partition);
    }
    if (rescheduled.length > 0) {
      this.partitions = partitions.flush();
      this.addExpirationPartitions(store, expiration, rescheduled, quant);
    }
    return allReplaced;
  }

  /** What a disputed proof of `partitions` claimed, from the partitions snapshot. */
  loadPartitionsForDispute(store: Blockstore, partitions: BitField): DisputeInfo {
    const snapshot = PartitionsArray.load(store, this.partitionsSnapshot);
    const allSectors: BitField[] = [];
    const allIgnored: BitField[] = [];
    const disputedSectors = new PartitionSectorMap();
    let disputedPower: PowerPair = ZERO_POWER;
    for (const index of partitions.values()) {
      const partition = snapshot.get(index) ?? illegalState(`failed to find partition ${index}`);
      allSectors.push(partition.sectors);
      allIgnored.push(partition.faults, partition.terminated, partition.unproven);
      disputedSectors.add(index, partition.activeSectors());
      // Includes power activated at the end of the last window and sectors expired since.
      disputedPower = addPower(disputedPower, partition.activePower());
    }
    return {
      allSectorNos: BitField.unionAll(allSectors),
      ignoredSectorNos: BitField.unionAll(allIgnored),
      disputedSectors,
      disputedPower,
    };
  }

  /** Whether the deadline end has anything to do: sectors, proofs, or snapshots to bring up to date. */
  isLive(): boolean {
    if (this.liveSectors > 0n) return true;
    // No live sectors but proofs should be impossible; process the deadline end anyway.
    if (!this.partitionsPoSted.isEmpty()) return true;
    if (!this.partitions.equals(this.partitionsSnapshot)) return true;
    return !this.optimisticPoStSubmissions.equals(this.optimisticPoStSubmissionsSnapshot);
  }

  /** builtin-actors `validate_state`, run before a deadline is stored. */
  validateState(): void {
    if (this.liveSectors > this.totalSectors) illegalState('deadline left with more live sectors than total');
    if (isNegativePower(this.faultyPower)) illegalState('deadline left with negative faulty power');
  }

  /**
   * Marks every sector proven, as Lotus's genesis does for pre-sealed sectors
   * (filecoin-project/lotus `chain/actors/builtin/miner/v18.go` `EraseAllUnproven`): each
   * partition's unproven set and power are cleared; the deadline's own sums do not change.
   */
  activateAllUnproven(store: Blockstore): void {
    const partitions = this.#partitionsArray(store);
    for (const [index, partition] of [...partitions.entries()]) {
      partition.activateUnproven();
      partitions.set(index, partition);
    }
    this.partitions = partitions.flush();
  }
}
