/**
 * A partition of a miner's deadline (builtin-actors `actors/miner/src/partition_state.rs`): up to
 * WindowPoStPartitionSectors sectors proven together, the subsets they are in (unproven, faulty,
 * recovering, terminated), their expiration queue, the early terminations awaiting their fee, and
 * the power sums of each subset. `live = sectors − terminated`; `active = live − faults − unproven`.
 *
 * Exported (deadline.ts builds on these; the methods are builtin-actors' in camelCase, with the same
 * arguments, and a named object where builtin-actors returns a tuple):
 *   partitionStruct, PartitionState, Partition (create, fromState, fromCborNode, toState, toCborNode,
 *   liveSectors, activeSectors, activePower, addSectors → {power, dailyFee}, addFaults →
 *   {powerDelta, newFaultyPower}, recordFaults → {newFaults, powerDelta, newFaultyPower},
 *   recoverFaults → PowerPair, activateUnproven → PowerPair, declareFaultsRecovered,
 *   removeRecoveries, rescheduleExpirations → SectorOnChainInfo[], replaceSectors →
 *   {powerDelta, pledgeDelta, dailyFeeDelta}, recordEarlyTermination, terminateSectors →
 *   {removed: ExpirationSet, removedUnprovenPower}, popExpiredSectors → ExpirationSet,
 *   recordMissedPost → {powerDelta, penalizedPower, newFaultyPower}, popEarlyTerminations →
 *   {result: TerminationResult, hasMore}, recordSkippedFaults → {powerDelta, newFaultPower,
 *   retractedRecoveryPower, hasNewFaults}, validatePowerState, validateBitFieldState, validateState),
 *   PARTITION_EARLY_TERMINATION_AMT_BITWIDTH, validatePartitionContainsSectors.
 * Related modules: expiration-queue.ts (ExpirationQueue, ExpirationSet), termination.ts
 * (TerminationResult), sectors.ts (Sectors, powerForSectors), power-pair.ts, quantize.ts, abort.ts,
 * partition-invariants.ts (checkPartitionStateInvariants, for tests and state checks).
 *
 * builtin-actors passes `&Policy` to `terminate_sectors` only for AddressedSectorsMax, which is
 * 25 000 on every network (policy.ts `ADDRESSED_SECTORS_MAX`), so no policy is passed here.
 * Errors: USR_ILLEGAL_ARGUMENT where builtin-actors says `illegal_argument` (sectors outside the
 * partition, terminating sectors that are not live), USR_NOT_FOUND for a missing sector, and
 * USR_ILLEGAL_STATE for every broken invariant.
 */
import type { CID } from 'multiformats/cid';
import { BitField, type Blockstore, bitFieldKind } from '../../../ipld/index.js';
import type { CborNode } from '../../../types/cbor-node.js';
import { declareStruct, kinds, type StructValue } from '../../../types/index.js';
import type { Mutable } from '../../runtime.js';
import { illegalArgument, illegalState } from './abort.js';
import { BitFieldQueue } from './bitfield-queue.js';
import { ExpirationQueue, type ExpirationSet } from './expiration-queue.js';
import {
  addPower,
  isNegativePower,
  isZeroPower,
  negPower,
  type PowerPair,
  powerPairStruct,
  subPower,
  ZERO_POWER,
} from './power-pair.js';
import { NO_QUANTIZATION, type QuantSpec } from './quantize.js';
import { powerForSectors, type Sectors, selectSectors } from './sectors.js';
import type { SectorOnChainInfo } from './state.js';
import { emptyTerminationResult, type TerminationResult } from './termination.js';

/** builtin-actors `PARTITION_EARLY_TERMINATION_ARRAY_AMT_BITWIDTH`: the early-terminated queue, keyed by raw epoch. */
export const PARTITION_EARLY_TERMINATION_AMT_BITWIDTH = 3;

/** builtin-actors `Partition` (11 fields; JSON names as go-state-types `builtin/v18/miner` `Partition`). */
export const partitionStruct = declareStruct('Partition', [
  { key: 'sectors', json: 'Sectors', kind: bitFieldKind, description: 'every sector, terminated ones included' },
  { key: 'unproven', json: 'Unproven', kind: bitFieldKind, description: 'not yet proven by a window PoSt' },
  { key: 'faults', json: 'Faults', kind: bitFieldKind },
  { key: 'recoveries', json: 'Recoveries', kind: bitFieldKind, description: 'faults declared recovered' },
  { key: 'terminated', json: 'Terminated', kind: bitFieldKind },
  { key: 'expirationsEpochs', json: 'ExpirationsEpochs', kind: kinds.cid, description: 'AMT epoch → ExpirationSet' },
  { key: 'earlyTerminated', json: 'EarlyTerminated', kind: kinds.cid, description: 'AMT epoch → BitField' },
  { key: 'livePower', json: 'LivePower', kind: powerPairStruct.kind },
  { key: 'unprovenPower', json: 'UnprovenPower', kind: powerPairStruct.kind },
  { key: 'faultyPower', json: 'FaultyPower', kind: powerPairStruct.kind },
  { key: 'recoveringPower', json: 'RecoveringPower', kind: powerPairStruct.kind },
]);
export type PartitionState = Mutable<StructValue<typeof partitionStruct>>;

/** builtin-actors `validate_partition_contains_sectors`. */
export function validatePartitionContainsSectors(partition: Partition, sectorNumbers: BitField): boolean {
  return partition.sectors.containsAll(sectorNumbers);
}

export class Partition implements PartitionState {
  sectors: BitField;
  unproven: BitField;
  faults: BitField;
  recoveries: BitField;
  terminated: BitField;
  expirationsEpochs: CID;
  earlyTerminated: CID;
  livePower: PowerPair;
  unprovenPower: PowerPair;
  faultyPower: PowerPair;
  recoveringPower: PowerPair;

  private constructor(state: PartitionState) {
    this.sectors = state.sectors;
    this.unproven = state.unproven;
    this.faults = state.faults;
    this.recoveries = state.recoveries;
    this.terminated = state.terminated;
    this.expirationsEpochs = state.expirationsEpochs;
    this.earlyTerminated = state.earlyTerminated;
    this.livePower = state.livePower;
    this.unprovenPower = state.unprovenPower;
    this.faultyPower = state.faultyPower;
    this.recoveringPower = state.recoveringPower;
  }

  /** An empty partition, its two queues written to `store` (builtin-actors `Partition::new`). */
  static create(store: Blockstore): Partition {
    return new Partition({
      sectors: BitField.EMPTY,
      unproven: BitField.EMPTY,
      faults: BitField.EMPTY,
      recoveries: BitField.EMPTY,
      terminated: BitField.EMPTY,
      expirationsEpochs: ExpirationQueue.emptyRoot(store),
      earlyTerminated: BitFieldQueue.emptyRoot(store, PARTITION_EARLY_TERMINATION_AMT_BITWIDTH),
      livePower: ZERO_POWER,
      unprovenPower: ZERO_POWER,
      faultyPower: ZERO_POWER,
      recoveringPower: ZERO_POWER,
    });
  }

  static fromState(state: PartitionState): Partition {
    return new Partition(state);
  }

  static fromCborNode(node: CborNode, path = 'Partition'): Partition {
    return new Partition(partitionStruct.fromCborNode(node, path));
  }

  toState(): PartitionState {
    return {
      sectors: this.sectors,
      unproven: this.unproven,
      faults: this.faults,
      recoveries: this.recoveries,
      terminated: this.terminated,
      expirationsEpochs: this.expirationsEpochs,
      earlyTerminated: this.earlyTerminated,
      livePower: this.livePower,
      unprovenPower: this.unprovenPower,
      faultyPower: this.faultyPower,
      recoveringPower: this.recoveringPower,
    };
  }

  toCborNode(): CborNode[] {
    return partitionStruct.toCborNode(this.toState());
  }

  /** Sectors not terminated (faulty ones included). */
  liveSectors(): BitField {
    return this.sectors.subtract(this.terminated);
  }

  /** Sectors neither terminated, faulty nor unproven: those contributing power. */
  activeSectors(): BitField {
    return this.liveSectors().subtract(this.faults).subtract(this.unproven);
  }

  /** Power of the active sectors: live less faulty less unproven. */
  activePower(): PowerPair {
    return subPower(subPower(this.livePower, this.faultyPower), this.unprovenPower);
  }

  #expirations(store: Blockstore, quant: QuantSpec): ExpirationQueue {
    return ExpirationQueue.load(store, this.expirationsEpochs, quant);
  }

  /**
   * Adds new sectors, live and neither faulty, recovering nor terminated, scheduled to expire at
   * their quantized expirations; unproven unless `proven`. Returns their power and daily fee.
   */
  addSectors(
    store: Blockstore,
    proven: boolean,
    sectors: readonly SectorOnChainInfo[],
    sectorSize: bigint,
    quant: QuantSpec,
  ): { power: PowerPair; dailyFee: bigint } {
    const expirations = this.#expirations(store, quant);
    const { sectorNumbers, power, dailyFee } = expirations.addActiveSectors(sectors, sectorSize);
    this.expirationsEpochs = expirations.flush();
    if (this.sectors.containsAny(sectorNumbers)) illegalState('not all added sectors are new');
    this.sectors = this.sectors.union(sectorNumbers);
    this.livePower = addPower(this.livePower, power);
    if (!proven) {
      this.unprovenPower = addPower(this.unprovenPower, power);
      this.unproven = this.unproven.union(sectorNumbers);
    }
    this.validateState();
    return { power, dailyFee };
  }

  /**
   * Marks sectors, neither faulty nor recovering, faulty: they are rescheduled to expire early at
   * `faultExpiration` and leave the unproven set. Returns the power delta (the active power lost)
   * and the new faulty power.
   */
  addFaults(
    store: Blockstore,
    sectorNumbers: BitField,
    sectors: readonly SectorOnChainInfo[],
    faultExpiration: bigint,
    sectorSize: bigint,
    quant: QuantSpec,
  ): { powerDelta: PowerPair; newFaultyPower: PowerPair } {
    const queue = this.#expirations(store, quant);
    const newFaultyPower = queue.rescheduleAsFaults(faultExpiration, sectors, sectorSize);
    this.expirationsEpochs = queue.flush();
    this.faults = this.faults.union(sectorNumbers);
    this.faultyPower = addPower(this.faultyPower, newFaultyPower);
    const unproven = sectorNumbers.intersect(this.unproven);
    this.unproven = this.unproven.subtract(unproven);
    let powerDelta = negPower(newFaultyPower);
    const unprovenInfos = selectSectors(sectors, unproven);
    if (unprovenInfos.length > 0) {
      // Unproven power was never active, so losing it takes nothing from the claim.
      const lostUnprovenPower = powerForSectors(sectorSize, unprovenInfos);
      this.unprovenPower = subPower(this.unprovenPower, lostUnprovenPower);
      powerDelta = addPower(powerDelta, lostUnprovenPower);
    }
    this.validateState();
    return { powerDelta, newFaultyPower };
  }

  /**
   * Declares sectors faulty: terminated and already faulty ones are ignored, recovering ones go
   * back to plain faults. Returns the new faults, the power delta and the new faulty power.
   */
  recordFaults(
    store: Blockstore,
    sectors: Sectors,
    sectorNumbers: BitField,
    faultExpirationEpoch: bigint,
    sectorSize: bigint,
    quant: QuantSpec,
  ): { newFaults: BitField; powerDelta: PowerPair; newFaultyPower: PowerPair } {
    if (!validatePartitionContainsSectors(this, sectorNumbers)) {
      illegalArgument('failed fault declaration: not all sectors are assigned to the partition');
    }
    const retractedRecoveries = this.recoveries.intersect(sectorNumbers);
    const newFaults = sectorNumbers.subtract(retractedRecoveries).subtract(this.terminated).subtract(this.faults);
    const newFaultSectors = sectors.loadSectors(newFaults);
    const { powerDelta, newFaultyPower } =
      newFaultSectors.length > 0
        ? this.addFaults(store, newFaults, newFaultSectors, faultExpirationEpoch, sectorSize, quant)
        : { powerDelta: ZERO_POWER, newFaultyPower: ZERO_POWER };
    const retractedRecoverySectors = sectors.loadSectors(retractedRecoveries);
    if (retractedRecoverySectors.length > 0) {
      this.removeRecoveries(retractedRecoveries, powerForSectors(sectorSize, retractedRecoverySectors));
    }
    this.validateState();
    return { newFaults, powerDelta, newFaultyPower };
  }

  /**
   * Recovers every sector declared recovering, as a window PoSt that proves them does: they leave
   * the faults and are rescheduled on time. Returns the recovered power.
   */
  recoverFaults(store: Blockstore, sectors: Sectors, sectorSize: bigint, quant: QuantSpec): PowerPair {
    const recoveredSectors = sectors.loadSectors(this.recoveries);
    const queue = this.#expirations(store, quant);
    const power = queue.rescheduleRecovered(recoveredSectors, sectorSize);
    this.expirationsEpochs = queue.flush();
    this.faults = this.faults.subtract(this.recoveries);
    this.recoveries = BitField.EMPTY;
    this.faultyPower = subPower(this.faultyPower, power);
    this.recoveringPower = subPower(this.recoveringPower, power);
    this.validateState();
    return power;
  }

  /** Activates the unproven sectors (a first window PoSt); returns the power they bring. */
  activateUnproven(): PowerPair {
    const power = this.unprovenPower;
    this.unproven = BitField.EMPTY;
    this.unprovenPower = ZERO_POWER;
    return power;
  }

  /** Declares faulty sectors recovering; sectors not faulty or already recovering are skipped. */
  declareFaultsRecovered(sectors: Sectors, sectorSize: bigint, sectorNumbers: BitField): void {
    if (!validatePartitionContainsSectors(this, sectorNumbers)) {
      illegalArgument('failed fault declaration: not all sectors are assigned to the partition');
    }
    const recoveries = sectorNumbers.intersect(this.faults).subtract(this.recoveries);
    const recoverySectors = sectors.loadSectors(recoveries);
    this.recoveries = this.recoveries.union(recoveries);
    this.recoveringPower = addPower(this.recoveringPower, powerForSectors(sectorSize, recoverySectors));
    this.validateState();
  }

  /** Removes sectors, assumed faulty and recovering, from the recoveries and their power. */
  removeRecoveries(sectorNumbers: BitField, power: PowerPair): void {
    if (sectorNumbers.isEmpty()) return;
    this.recoveries = this.recoveries.subtract(sectorNumbers);
    this.recoveringPower = subPower(this.recoveringPower, power);
  }

  /**
   * Moves the active ones of `sectorNumbers` to expire at `newExpiration`, skipping sectors that are
   * not in the partition, terminated or faulty; their power is assumed unchanged. Returns their infos.
   */
  rescheduleExpirations(
    store: Blockstore,
    sectors: Sectors,
    newExpiration: bigint,
    sectorNumbers: BitField,
    sectorSize: bigint,
    quant: QuantSpec,
  ): SectorOnChainInfo[] {
    const active = sectorNumbers.intersect(this.sectors).subtract(this.terminated).subtract(this.faults);
    const sectorInfos = sectors.loadSectors(active);
    const expirations = this.#expirations(store, quant);
    expirations.rescheduleExpirations(newExpiration, sectorInfos, sectorSize);
    this.expirationsEpochs = expirations.flush();
    this.validateState();
    return sectorInfos;
  }

  /**
   * Replaces active sectors by others (the same sector with a new expiration and power, on
   * extension). Returns the deltas, new minus old, of power, pledge and daily fee.
   */
  replaceSectors(
    store: Blockstore,
    oldSectors: readonly SectorOnChainInfo[],
    newSectors: readonly SectorOnChainInfo[],
    sectorSize: bigint,
    quant: QuantSpec,
  ): { powerDelta: PowerPair; pledgeDelta: bigint; dailyFeeDelta: bigint } {
    const expirations = this.#expirations(store, quant);
    const { oldSectorNumbers, newSectorNumbers, powerDelta, pledgeDelta, dailyFeeDelta } = expirations.replaceSectors(
      oldSectors,
      newSectors,
      sectorSize,
    );
    this.expirationsEpochs = expirations.flush();
    const active = this.activeSectors();
    if (!active.containsAll(oldSectorNumbers)) {
      illegalState(
        `refusing to replace inactive sectors in ${[...oldSectorNumbers.values()]} (active: ${[...active.values()]})`,
      );
    }
    this.sectors = this.sectors.subtract(oldSectorNumbers).union(newSectorNumbers);
    this.livePower = addPower(this.livePower, powerDelta);
    this.validateState();
    return { powerDelta, pledgeDelta, dailyFeeDelta };
  }

  /** Records sectors terminated early at `epoch`, for the termination fee charged later. */
  recordEarlyTermination(store: Blockstore, epoch: bigint, sectors: BitField): void {
    const queue = BitFieldQueue.load(store, this.earlyTerminated, NO_QUANTIZATION);
    queue.addToQueue(epoch, sectors);
    this.earlyTerminated = queue.flush();
  }

  /**
   * Terminates live sectors at `epoch`: they leave the queue, faults and recoveries and join the
   * terminated and early-terminated sets. Returns what was removed (its active power excludes
   * unproven power) and the unproven power removed.
   */
  terminateSectors(
    store: Blockstore,
    sectors: Sectors,
    epoch: bigint,
    sectorNumbers: BitField,
    sectorSize: bigint,
    quant: QuantSpec,
  ): { removed: ExpirationSet; removedUnprovenPower: PowerPair } {
    if (!this.liveSectors().containsAll(sectorNumbers)) illegalArgument('can only terminate live sectors');
    const sectorInfos = sectors.loadSectors(sectorNumbers);
    const expirations = this.#expirations(store, quant);
    const { removed, recoveringPower: removedRecovering } = expirations.removeSectors(
      sectorInfos,
      this.faults,
      this.recoveries,
      sectorSize,
    );
    this.expirationsEpochs = expirations.flush();
    const removedSectors = removed.onTimeSectors.union(removed.earlySectors);
    this.recordEarlyTermination(store, epoch, removedSectors);
    const unprovenNumbers = removedSectors.intersect(this.unproven);
    this.faults = this.faults.subtract(removedSectors);
    this.recoveries = this.recoveries.subtract(removedSectors);
    this.terminated = this.terminated.union(removedSectors);
    this.livePower = subPower(subPower(this.livePower, removed.activePower), removed.faultyPower);
    this.faultyPower = subPower(this.faultyPower, removed.faultyPower);
    this.recoveringPower = subPower(this.recoveringPower, removedRecovering);
    this.unproven = this.unproven.subtract(unprovenNumbers);
    const removedUnprovenPower = powerForSectors(sectorSize, selectSectors(sectorInfos, unprovenNumbers));
    this.unprovenPower = subPower(this.unprovenPower, removedUnprovenPower);
    removed.activePower = subPower(removed.activePower, removedUnprovenPower);
    this.validateState();
    return { removed, removedUnprovenPower };
  }

  /**
   * Pops the expiration queue up to and including `until` and marks the sectors terminated; early
   * ones are recorded for their termination fee. Called at deadline end, after proofs were handled.
   */
  popExpiredSectors(store: Blockstore, until: bigint, quant: QuantSpec): ExpirationSet {
    if (!this.unproven.isEmpty()) illegalState('cannot pop expired sectors from a partition with unproven sectors');
    const expirations = this.#expirations(store, quant);
    const popped = expirations.popUntil(until);
    this.expirationsEpochs = expirations.flush();
    const expiredSectors = popped.onTimeSectors.union(popped.earlySectors);
    // At deadline end recoveries were either proven or retracted by the missed PoSt.
    if (!this.recoveries.isEmpty()) illegalState('unexpected recoveries while processing expirations');
    if (!isZeroPower(this.recoveringPower)) illegalState('unexpected recovering power while processing expirations');
    if (this.terminated.containsAny(expiredSectors)) illegalState('expiring sectors already terminated');
    this.terminated = this.terminated.union(expiredSectors);
    this.faults = this.faults.subtract(expiredSectors);
    this.livePower = subPower(this.livePower, addPower(popped.activePower, popped.faultyPower));
    this.faultyPower = subPower(this.faultyPower, popped.faultyPower);
    this.recordEarlyTermination(store, until, popped.earlySectors);
    this.validateState();
    return popped;
  }

  /**
   * A deadline ended without a proof of this partition: every live sector becomes faulty (expiring
   * early at `faultExpiration` unless sooner), recoveries and unproven sectors are cleared. Returns
   * the power delta (unproven power was never active), the penalized power (new faults plus failed
   * recoveries) and the new faulty power.
   */
  recordMissedPost(
    store: Blockstore,
    faultExpiration: bigint,
    quant: QuantSpec,
  ): { powerDelta: PowerPair; penalizedPower: PowerPair; newFaultyPower: PowerPair } {
    const queue = this.#expirations(store, quant);
    queue.rescheduleAllAsFaults(faultExpiration);
    this.expirationsEpochs = queue.flush();
    const newFaultyPower = subPower(this.livePower, this.faultyPower);
    const penalizedPower = addPower(this.recoveringPower, newFaultyPower);
    const powerDelta = subPower(this.unprovenPower, newFaultyPower);
    this.faults = this.liveSectors();
    this.recoveries = BitField.EMPTY;
    this.unproven = BitField.EMPTY;
    this.faultyPower = this.livePower;
    this.recoveringPower = ZERO_POWER;
    this.unprovenPower = ZERO_POWER;
    this.validateState();
    return { powerDelta, penalizedPower, newFaultyPower };
  }

  /**
   * Pops up to `maxSectors` early-terminated sectors, earliest epoch first; an entry only partly
   * taken keeps the rest. Returns them and whether more remain.
   */
  popEarlyTerminations(store: Blockstore, maxSectors: bigint): { result: TerminationResult; hasMore: boolean } {
    const queue = BitFieldQueue.load(store, this.earlyTerminated, NO_QUANTIZATION);
    const result = emptyTerminationResult();
    result.partitionsProcessed = 1n;
    let lastPopped: bigint | undefined;
    let remaining: { epoch: bigint; sectors: BitField } | undefined;
    for (const [epoch, sectors] of queue.entries()) {
      const count = sectors.size;
      const limit = maxSectors - result.sectorsProcessed;
      let toProcess = sectors;
      if (limit < count) {
        toProcess = sectors.slice(0n, limit);
        remaining = { epoch, sectors: sectors.subtract(toProcess) };
        result.sectorsProcessed += limit;
      } else {
        lastPopped = epoch;
        result.sectorsProcessed += count;
      }
      result.sectors.set(epoch, toProcess);
      if (result.sectorsProcessed >= maxSectors) break;
    }
    // The entries taken whole are a prefix of the queue; a partly taken one is rewritten with the rest.
    const popTo = remaining?.epoch ?? lastPopped;
    if (popTo !== undefined) queue.popUntil(popTo);
    if (remaining !== undefined) queue.addToQueue(remaining.epoch, remaining.sectors);
    this.earlyTerminated = queue.flush();
    this.validateState();
    return { result, hasMore: !queue.entries().next().done };
  }

  /**
   * Records the sectors a window PoSt skipped: those not yet faulty become faults, recovering ones
   * are faulty again. Returns the power delta, the new fault power, the retracted recovery power and
   * whether there were new faults.
   */
  recordSkippedFaults(
    store: Blockstore,
    sectors: Sectors,
    sectorSize: bigint,
    quant: QuantSpec,
    faultExpiration: bigint,
    skipped: BitField,
  ): { powerDelta: PowerPair; newFaultPower: PowerPair; retractedRecoveryPower: PowerPair; hasNewFaults: boolean } {
    if (skipped.isEmpty()) {
      return {
        powerDelta: ZERO_POWER,
        newFaultPower: ZERO_POWER,
        retractedRecoveryPower: ZERO_POWER,
        hasNewFaults: false,
      };
    }
    if (!this.sectors.containsAll(skipped)) illegalArgument('skipped faults contains sectors outside partition');
    const retractedRecoveries = this.recoveries.intersect(skipped);
    const retractedRecoveryPower = powerForSectors(sectorSize, sectors.loadSectors(retractedRecoveries));
    const newFaults = skipped.subtract(this.terminated).subtract(this.faults);
    const newFaultSectors = sectors.loadSectors(newFaults);
    const { powerDelta, newFaultyPower } = this.addFaults(
      store,
      newFaults,
      newFaultSectors,
      faultExpiration,
      sectorSize,
      quant,
    );
    this.removeRecoveries(retractedRecoveries, retractedRecoveryPower);
    this.validateState();
    return {
      powerDelta,
      newFaultPower: newFaultyPower,
      retractedRecoveryPower,
      hasNewFaults: newFaultSectors.length > 0,
    };
  }

  /** builtin-actors `validate_power_state`: no negative sums, none above the live power. */
  validatePowerState(): void {
    if (isNegativePower(this.livePower)) illegalState('Partition left with negative live power');
    if (isNegativePower(this.unprovenPower)) illegalState('Partition left with negative unproven power');
    if (isNegativePower(this.faultyPower)) illegalState('Partition left with negative faulty power');
    if (isNegativePower(this.recoveringPower)) illegalState('Partition left with negative recovering power');
    if (this.unprovenPower.raw > this.livePower.raw) illegalState('Partition left with invalid unproven power');
    if (this.faultyPower.raw > this.livePower.raw) illegalState('Partition left with invalid faulty power');
    if (this.recoveringPower.raw > this.livePower.raw || this.recoveringPower.raw > this.faultyPower.raw) {
      illegalState('Partition left with invalid recovering power');
    }
  }

  /** builtin-actors `validate_bf_state`: the subsets are disjoint where they must be and inside `sectors`. */
  validateBitFieldState(): void {
    const unprovenOrFaulty = this.unproven.union(this.faults);
    if (this.terminated.containsAny(unprovenOrFaulty)) {
      illegalState('Partition left with terminated sectors in multiple states');
    }
    if (!this.sectors.containsAll(unprovenOrFaulty.union(this.terminated))) {
      illegalState('Partition left with invalid sector state');
    }
    if (!this.faults.containsAll(this.recoveries)) illegalState('Partition left with invalid recovery state');
  }

  validateState(): void {
    this.validatePowerState();
    this.validateBitFieldState();
  }
}
