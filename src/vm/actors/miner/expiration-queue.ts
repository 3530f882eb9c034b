/**
 * A partition's expiration queue (builtin-actors `actors/miner/src/expiration_queue.rs`): an AMT
 * (bit width 4) from a quantized epoch to the ExpirationSet of the sectors that expire then,
 * "on time" at the end of their committed life or "early" after being faulty for too long
 * (FaultMaxAge). Each entry also carries the sums the partition and deadline keep in step: on-time
 * pledge, active and faulty power, and the daily fee to deduct when the sectors go (FIP-0100).
 *
 * Every operation follows builtin-actors step for step, including the order in which entries are
 * read, rewritten and deleted, since the queue's root is part of the state root. An entry written
 * before FIP-0100 has 5 fields and is only rewritten (with 6) when an operation changes it.
 * Failures are USR_ILLEGAL_STATE, as the miner actor maps them.
 */
import type { CID } from 'multiformats/cid';
import { Amt, BitField, type Blockstore, bitFieldKind } from '../../../ipld/index.js';
import type { CborNode } from '../../../types/cbor-node.js';
import { declareStruct, kinds } from '../../../types/index.js';
import { illegalState, orIllegalState } from './abort.js';
import { ADDRESSED_SECTORS_MAX } from './policy.js';
import {
  addPower,
  formatPower,
  isZeroPower,
  type PowerPair,
  powerPairStruct,
  subPower,
  ZERO_POWER,
} from './power-pair.js';
import { type QuantSpec, quantizeUp } from './quantize.js';
import { powerForSector } from './sectors.js';
import type { SectorOnChainInfo } from './state.js';

/** builtin-actors `PARTITION_EXPIRATION_AMT_BITWIDTH`. */
export const PARTITION_EXPIRATION_AMT_BITWIDTH = 4;

/** builtin-actors `ENTRY_SECTORS_MAX`: the most sectors one entry's bitfield may expand to. */
const ENTRY_SECTORS_MAX = 10_000n;

/** builtin-actors `ExpirationSet` (JSON names as go-state-types `builtin/v18/miner`); FeeDeduction is FIP-0100's. */
export const expirationSetStruct = declareStruct(
  'ExpirationSet',
  [
    { key: 'onTimeSectors', json: 'OnTimeSectors', kind: bitFieldKind },
    { key: 'earlySectors', json: 'EarlySectors', kind: bitFieldKind },
    { key: 'onTimePledge', json: 'OnTimePledge', kind: kinds.bigInt, description: 'attoFIL' },
    { key: 'activePower', json: 'ActivePower', kind: powerPairStruct.kind },
    { key: 'faultyPower', json: 'FaultyPower', kind: powerPairStruct.kind },
    { key: 'feeDeduction', json: 'FeeDeduction', kind: kinds.bigInt, description: 'attoFIL' },
  ],
  { minFields: 5 },
);

export interface ExpirationSet {
  onTimeSectors: BitField;
  earlySectors: BitField;
  onTimePledge: bigint;
  activePower: PowerPair;
  faultyPower: PowerPair;
  feeDeduction: bigint;
}

export function emptyExpirationSet(): ExpirationSet {
  return {
    onTimeSectors: BitField.EMPTY,
    earlySectors: BitField.EMPTY,
    onTimePledge: 0n,
    activePower: ZERO_POWER,
    faultyPower: ZERO_POWER,
    feeDeduction: 0n,
  };
}

/** Reads an ExpirationSet tuple of 5 or 6 fields; a pre-FIP-0100 one has no fee to deduct. */
export function expirationSetFromCborNode(node: CborNode, path = 'ExpirationSet'): ExpirationSet {
  const set = expirationSetStruct.fromCborNode(node, path);
  return { ...set, feeDeduction: (set.feeDeduction as bigint | null) ?? 0n };
}

/** Counts the sectors of a set, on time and early. */
export function expirationSetLength(set: ExpirationSet): bigint {
  return set.onTimeSectors.size + set.earlySectors.size;
}

/** A set is empty when it has no sectors; its power and pledge are then expected to be zero. */
export function isEmptyExpirationSet(set: ExpirationSet): boolean {
  return set.onTimeSectors.isEmpty() && set.earlySectors.isEmpty();
}

/** Adds `delta`'s sectors, pledge, power and fee to `set` in place (builtin-actors `ExpirationSet::add`). */
export function addToExpirationSet(set: ExpirationSet, delta: ExpirationSet): void {
  set.onTimeSectors = set.onTimeSectors.union(delta.onTimeSectors);
  set.earlySectors = set.earlySectors.union(delta.earlySectors);
  set.onTimePledge += delta.onTimePledge;
  set.activePower = addPower(set.activePower, delta.activePower);
  set.faultyPower = addPower(set.faultyPower, delta.faultyPower);
  set.feeDeduction += delta.feeDeduction;
  validateExpirationSet(set);
}

/** Removes `delta` from `set` in place; its sectors must all be in the set (builtin-actors `ExpirationSet::remove`). */
export function removeFromExpirationSet(set: ExpirationSet, delta: ExpirationSet): void {
  if (!set.onTimeSectors.containsAll(delta.onTimeSectors)) {
    illegalState(`removing on-time sectors ${list(delta.onTimeSectors)} not contained in ${list(set.onTimeSectors)}`);
  }
  if (!set.earlySectors.containsAll(delta.earlySectors)) {
    illegalState(`removing early sectors ${list(delta.earlySectors)} not contained in ${list(set.earlySectors)}`);
  }
  set.onTimeSectors = set.onTimeSectors.subtract(delta.onTimeSectors);
  set.earlySectors = set.earlySectors.subtract(delta.earlySectors);
  set.onTimePledge -= delta.onTimePledge;
  set.activePower = subPower(set.activePower, delta.activePower);
  set.faultyPower = subPower(set.faultyPower, delta.faultyPower);
  set.feeDeduction -= delta.feeDeduction;
  if (set.onTimePledge < 0n) illegalState(`expiration set pledge underflow: ${set.onTimePledge}`);
  if (set.activePower.qa < 0n || set.faultyPower.qa < 0n) {
    illegalState(
      `expiration set power underflow: active ${formatPower(set.activePower)}, faulty ${formatPower(set.faultyPower)}`,
    );
  }
  if (set.feeDeduction < 0n) illegalState(`expiration set fee deduction underflow: ${set.feeDeduction}`);
  validateExpirationSet(set);
}

/** builtin-actors `ExpirationSet::validate_state`: no negative pledge, power or fee. */
export function validateExpirationSet(set: ExpirationSet): void {
  if (set.onTimePledge < 0n) illegalState('ExpirationSet left with negative pledge');
  if (set.activePower.raw < 0n) illegalState('ExpirationSet left with negative raw active power');
  if (set.activePower.qa < 0n) illegalState('ExpirationSet left with negative qa active power');
  if (set.faultyPower.raw < 0n) illegalState('ExpirationSet left with negative raw faulty power');
  if (set.faultyPower.qa < 0n) illegalState('ExpirationSet left with negative qa faulty power');
  if (set.feeDeduction < 0n) illegalState('ExpirationSet left with negative fee deduction');
}

function list(bitField: BitField): string {
  return `[${[...bitField.values()].join(', ')}]`;
}

/** Sectors that share an expiration entry, with their sums (builtin-actors `SectorEpochSet`). */
export interface SectorEpochSet {
  readonly epoch: bigint;
  readonly sectors: readonly bigint[];
  readonly power: PowerPair;
  readonly pledge: bigint;
  readonly dailyFee: bigint;
}

/** A group of sectors found in the queue, with the entry they were found in as it was read. */
interface SectorExpirationSet {
  readonly sectorEpochSet: SectorEpochSet;
  readonly expirationSet: ExpirationSet;
}

/** The sums `addActiveSectors` and `removeActiveSectors` return. */
export interface ActiveSectorsTotals {
  readonly sectorNumbers: BitField;
  readonly power: PowerPair;
  readonly pledge: bigint;
  readonly dailyFee: bigint;
}

function sumSectors(epoch: bigint, sectors: readonly SectorOnChainInfo[], sectorSize: bigint): SectorEpochSet {
  let power = ZERO_POWER;
  let pledge = 0n;
  let dailyFee = 0n;
  for (const sector of sectors) {
    power = addPower(power, powerForSector(sectorSize, sector));
    pledge += sector.initialPledge;
    dailyFee += sector.dailyFee;
  }
  return { epoch, sectors: sectors.map((sector) => sector.sectorNumber), power, pledge, dailyFee };
}

/**
 * New sectors grouped by their quantized declared expiration, earliest first; within a group the
 * sectors keep their order (builtin-actors `group_new_sectors_by_declared_expiration`).
 */
export function groupNewSectorsByDeclaredExpiration(
  sectorSize: bigint,
  sectors: Iterable<SectorOnChainInfo>,
  quant: QuantSpec,
): SectorEpochSet[] {
  const byExpiration = new Map<bigint, SectorOnChainInfo[]>();
  for (const sector of sectors) {
    const epoch = quantizeUp(quant, sector.expiration);
    const group = byExpiration.get(epoch);
    if (group === undefined) byExpiration.set(epoch, [sector]);
    else group.push(sector);
  }
  return [...byExpiration.keys()]
    .sort(compareBigInt)
    .map((epoch) => sumSectors(epoch, byExpiration.get(epoch) ?? [], sectorSize));
}

function compareBigInt(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What an `iterateWhileMutating` callback tells the walk. */
interface VisitOutcome {
  readonly keepGoing: boolean;
  /** The entry was modified and must be written back. */
  readonly changed: boolean;
}

export class ExpirationQueue {
  readonly #amt: Amt;
  readonly quant: QuantSpec;

  private constructor(amt: Amt, quant: QuantSpec) {
    this.#amt = amt;
    this.quant = quant;
  }

  /** Opens the queue at `root`; epochs given to its methods are quantized up by `quant`. */
  static load(store: Blockstore, root: CID, quant: QuantSpec): ExpirationQueue {
    return new ExpirationQueue(
      orIllegalState('failed to load expiration queue', () => Amt.load(store, root)),
      quant,
    );
  }

  static emptyRoot(store: Blockstore): CID {
    return Amt.create(store, { bitWidth: PARTITION_EXPIRATION_AMT_BITWIDTH }).flush();
  }

  get count(): number {
    return this.#amt.count;
  }

  /** The entries in epoch order. */
  *entries(): Generator<[epoch: bigint, set: ExpirationSet]> {
    for (const [epoch, node] of this.#amt.entries()) {
      yield [epoch, expirationSetFromCborNode(node as CborNode, `expiration queue epoch ${epoch}`)];
    }
  }

  flush(): CID {
    return this.#amt.flush();
  }

  /**
   * Schedules sectors, assumed active (not faulty), at their quantized expirations: their numbers,
   * power, pledge and daily fee (builtin-actors `add_active_sectors`).
   */
  addActiveSectors(sectors: Iterable<SectorOnChainInfo>, sectorSize: bigint): ActiveSectorsTotals {
    const numbers: BitField[] = [];
    let power = ZERO_POWER;
    let pledge = 0n;
    let dailyFee = 0n;
    for (const group of groupNewSectorsByDeclaredExpiration(sectorSize, sectors, this.quant)) {
      const sectorNumbers = BitField.of(group.sectors);
      this.#add(group.epoch, {
        ...emptyExpirationSet(),
        onTimeSectors: sectorNumbers,
        onTimePledge: group.pledge,
        activePower: group.power,
        feeDeduction: group.dailyFee,
      });
      numbers.push(sectorNumbers);
      power = addPower(power, group.power);
      pledge += group.pledge;
      dailyFee += group.dailyFee;
    }
    return { sectorNumbers: BitField.unionAll(numbers), power, pledge, dailyFee };
  }

  /**
   * Moves active sectors to expire on time at `newExpiration` (quantized); their power and pledge
   * are assumed unchanged (builtin-actors `reschedule_expirations`).
   */
  rescheduleExpirations(newExpiration: bigint, sectors: readonly SectorOnChainInfo[], sectorSize: bigint): void {
    if (sectors.length === 0) return;
    const removed = this.#removeActiveSectors(sectors, sectorSize);
    this.#add(newExpiration, {
      ...emptyExpirationSet(),
      onTimeSectors: removed.sectorNumbers,
      onTimePledge: removed.pledge,
      activePower: removed.power,
      feeDeduction: removed.dailyFee,
    });
  }

  /**
   * Marks active sectors faulty: those expiring on time after `newExpiration` (quantized) move
   * there as early expirations, without their pledge; the others stay but their power turns
   * faulty. Returns the power of all of them (builtin-actors `reschedule_as_faults`).
   */
  rescheduleAsFaults(newExpiration: bigint, sectors: readonly SectorOnChainInfo[], sectorSize: bigint): PowerPair {
    const early: bigint[] = [];
    let expiringPower = ZERO_POWER;
    let rescheduledPower = ZERO_POWER;
    let rescheduledDailyFee = 0n;
    const quantizedExpiration = quantizeUp(this.quant, newExpiration);
    for (const { sectorEpochSet: group, expirationSet: set } of this.#findSectorsByExpiration(sectorSize, sectors)) {
      if (group.epoch <= quantizedExpiration) {
        // Expiring on time before the fault would end them: their power turns faulty, their pledge stays on time.
        set.activePower = subPower(set.activePower, group.power);
        set.faultyPower = addPower(set.faultyPower, group.power);
        expiringPower = addPower(expiringPower, group.power);
      } else {
        set.onTimeSectors = set.onTimeSectors.subtract(BitField.of(group.sectors));
        set.onTimePledge -= group.pledge;
        set.activePower = subPower(set.activePower, group.power);
        set.feeDeduction -= group.dailyFee;
        early.push(...group.sectors);
        rescheduledPower = addPower(rescheduledPower, group.power);
        rescheduledDailyFee += group.dailyFee;
      }
      this.#updateOrDelete(group.epoch, set);
      validateExpirationSet(set);
    }
    if (early.length > 0) {
      this.#add(newExpiration, {
        ...emptyExpirationSet(),
        earlySectors: BitField.of(early),
        faultyPower: rescheduledPower,
        feeDeduction: rescheduledDailyFee,
      });
    }
    return addPower(rescheduledPower, expiringPower);
  }

  /**
   * Marks every sector faulty: entries after `faultExpiration` (quantized) collapse into it as
   * early expirations, the power of earlier ones turns faulty (builtin-actors `reschedule_all_as_faults`).
   */
  rescheduleAllAsFaults(faultExpiration: bigint): void {
    const rescheduledEpochs: bigint[] = [];
    const rescheduledSectors: BitField[] = [];
    let rescheduledPower = ZERO_POWER;
    let rescheduledDailyFee = 0n;
    const mutated: Array<[bigint, ExpirationSet]> = [];
    const quantizedExpiration = quantizeUp(this.quant, faultExpiration);
    for (const [epoch, set] of this.entries()) {
      if (epoch <= quantizedExpiration) {
        // All the power is now faulty; the pledge stays on time and the fee is deducted here still.
        set.faultyPower = addPower(set.faultyPower, set.activePower);
        set.activePower = ZERO_POWER;
        mutated.push([epoch, set]);
      } else {
        rescheduledEpochs.push(epoch);
        if (!set.earlySectors.isEmpty()) illegalState('attempted to re-schedule early expirations to an earlier epoch');
        rescheduledSectors.push(set.onTimeSectors);
        rescheduledPower = addPower(addPower(rescheduledPower, set.activePower), set.faultyPower);
        rescheduledDailyFee += set.feeDeduction;
      }
    }
    for (const [epoch, set] of mutated) {
      this.#set(epoch, set);
      validateExpirationSet(set);
    }
    if (rescheduledEpochs.length === 0) return;
    this.#add(faultExpiration, {
      ...emptyExpirationSet(),
      earlySectors: BitField.unionAll(rescheduledSectors),
      faultyPower: rescheduledPower,
      feeDeduction: rescheduledDailyFee,
    });
    for (const epoch of rescheduledEpochs) this.#amt.delete(epoch);
  }

  /**
   * Recovers faulty sectors: one expiring early is removed from its entry and scheduled on time
   * again, one expiring on time stays; the power of both turns active. Returns the recovered power
   * (builtin-actors `reschedule_recovered`); every sector must be in the queue.
   */
  rescheduleRecovered(sectors: readonly SectorOnChainInfo[], sectorSize: bigint): PowerPair {
    const remaining = new Map(sectors.map((sector) => [sector.sectorNumber, sector]));
    const rescheduled: SectorOnChainInfo[] = [];
    let recoveredPower = ZERO_POWER;
    this.#iterateWhileMutating((_epoch, set) => {
      let faultyDelta = ZERO_POWER;
      let activeDelta = ZERO_POWER;
      let feeDelta = 0n;
      for (const sectorNumber of set.onTimeSectors.values()) {
        const sector = remaining.get(sectorNumber);
        if (sector === undefined) continue;
        remaining.delete(sectorNumber);
        const power = powerForSector(sectorSize, sector);
        faultyDelta = subPower(faultyDelta, power);
        activeDelta = addPower(activeDelta, power);
        recoveredPower = addPower(recoveredPower, power);
      }
      const earlyUnset: bigint[] = [];
      for (const sectorNumber of set.earlySectors.values()) {
        const sector = remaining.get(sectorNumber);
        if (sector === undefined) continue;
        remaining.delete(sectorNumber);
        earlyUnset.push(sectorNumber);
        const power = powerForSector(sectorSize, sector);
        faultyDelta = subPower(faultyDelta, power);
        feeDelta -= sector.dailyFee;
        rescheduled.push(sector);
        recoveredPower = addPower(recoveredPower, power);
      }
      const changed = earlyUnset.length > 0 || !isZeroPower(faultyDelta) || !isZeroPower(activeDelta);
      if (changed) {
        set.activePower = addPower(set.activePower, activeDelta);
        set.faultyPower = addPower(set.faultyPower, faultyDelta);
        set.feeDeduction += feeDelta;
        set.earlySectors = set.earlySectors.subtract(BitField.of(earlyUnset));
      }
      validateExpirationSet(set);
      return { keepGoing: remaining.size > 0, changed };
    });
    if (remaining.size > 0) illegalState(`sectors not found in expiration queue: ${[...remaining.keys()].join(', ')}`);
    this.addActiveSectors(rescheduled, sectorSize);
    return recoveredPower;
  }

  /**
   * Removes active sectors and schedules others in their place: the old and new numbers and the
   * deltas, new minus old, of power, pledge and daily fee (builtin-actors `replace_sectors`).
   */
  replaceSectors(
    oldSectors: readonly SectorOnChainInfo[],
    newSectors: readonly SectorOnChainInfo[],
    sectorSize: bigint,
  ): {
    oldSectorNumbers: BitField;
    newSectorNumbers: BitField;
    powerDelta: PowerPair;
    pledgeDelta: bigint;
    dailyFeeDelta: bigint;
  } {
    const removed = this.#removeActiveSectors(oldSectors, sectorSize);
    const added = this.addActiveSectors(newSectors, sectorSize);
    return {
      oldSectorNumbers: removed.sectorNumbers,
      newSectorNumbers: added.sectorNumbers,
      powerDelta: subPower(added.power, removed.power),
      pledgeDelta: added.pledge - removed.pledge,
      dailyFeeDelta: added.dailyFee - removed.dailyFee,
    };
  }

  /**
   * Removes sectors, active or faulty, on time or early: what was removed, as one set, and the
   * power of those among `recovering` (builtin-actors `remove_sectors`). Every sector must be found.
   */
  removeSectors(
    sectors: readonly SectorOnChainInfo[],
    faults: BitField,
    recovering: BitField,
    sectorSize: bigint,
  ): { removed: ExpirationSet; recoveringPower: PowerPair } {
    if (faults.size > ADDRESSED_SECTORS_MAX) illegalState('too many faults to expand');
    if (recovering.size > ADDRESSED_SECTORS_MAX) illegalState('too many recoveries to expand');
    const remaining = new Set(sectors.map((sector) => sector.sectorNumber));
    const faulty: SectorOnChainInfo[] = [];
    const nonFaulty: SectorOnChainInfo[] = [];
    for (const sector of sectors) {
      if (faults.has(sector.sectorNumber)) {
        faulty.push(sector);
      } else {
        nonFaulty.push(sector);
        remaining.delete(sector.sectorNumber);
      }
    }
    // Non-faulty sectors always expire on time, so their entries are known.
    const active = this.#removeActiveSectors(nonFaulty, sectorSize);
    const removed: ExpirationSet = {
      ...emptyExpirationSet(),
      onTimeSectors: active.sectorNumbers,
      activePower: active.power,
      onTimePledge: active.pledge,
      feeDeduction: active.dailyFee,
    };
    let recoveringPower = ZERO_POWER;
    // Faulty sectors expire within FaultMaxAge, in the first entries of the queue.
    this.#iterateWhileMutating((_epoch, set) => {
      if (set.onTimeSectors.size > ENTRY_SECTORS_MAX) illegalState('too many on-time sectors to expand');
      if (set.earlySectors.size > ENTRY_SECTORS_MAX) illegalState('too many early sectors to expand');
      const onTime = set.onTimeSectors;
      const early = set.earlySectors;
      let changed = false;
      for (const sector of faulty) {
        const n = sector.sectorNumber;
        if (onTime.has(n)) {
          set.onTimeSectors = set.onTimeSectors.subtract(BitField.of([n]));
          removed.onTimeSectors = removed.onTimeSectors.union(BitField.of([n]));
          set.onTimePledge -= sector.initialPledge;
          removed.onTimePledge += sector.initialPledge;
        } else if (early.has(n)) {
          set.earlySectors = set.earlySectors.subtract(BitField.of([n]));
          removed.earlySectors = removed.earlySectors.union(BitField.of([n]));
        } else {
          continue;
        }
        changed = true;
        const power = powerForSector(sectorSize, sector);
        if (faults.has(n)) {
          set.faultyPower = subPower(set.faultyPower, power);
          removed.faultyPower = addPower(removed.faultyPower, power);
        } else {
          set.activePower = subPower(set.activePower, power);
          removed.activePower = addPower(removed.activePower, power);
        }
        if (recovering.has(n)) recoveringPower = addPower(recoveringPower, power);
        remaining.delete(n);
        removed.feeDeduction += sector.dailyFee;
        set.feeDeduction -= sector.dailyFee;
      }
      validateExpirationSet(set);
      return { keepGoing: remaining.size > 0, changed };
    });
    if (remaining.size > 0) illegalState(`sectors not found in expiration queue: ${[...remaining].join(', ')}`);
    return { removed, recoveringPower };
  }

  /** Removes the entries at or before `until` and returns their sum (builtin-actors `pop_until`). */
  popUntil(until: bigint): ExpirationSet {
    const popped = emptyExpirationSet();
    const sectors: { onTime: BitField[]; early: BitField[] } = { onTime: [], early: [] };
    const keys: bigint[] = [];
    for (const [epoch, set] of this.entries()) {
      if (epoch > until) break;
      keys.push(epoch);
      sectors.onTime.push(set.onTimeSectors);
      sectors.early.push(set.earlySectors);
      popped.activePower = addPower(popped.activePower, set.activePower);
      popped.faultyPower = addPower(popped.faultyPower, set.faultyPower);
      popped.onTimePledge += set.onTimePledge;
      popped.feeDeduction += set.feeDeduction;
    }
    for (const key of keys) this.#amt.delete(key);
    popped.onTimeSectors = BitField.unionAll(sectors.onTime);
    popped.earlySectors = BitField.unionAll(sectors.early);
    return popped;
  }

  /** Adds `delta` to the entry at `rawEpoch` quantized (builtin-actors `ExpirationQueue::add`). */
  #add(rawEpoch: bigint, delta: ExpirationSet): void {
    const epoch = quantizeUp(this.quant, rawEpoch);
    const set = this.#get(epoch) ?? emptyExpirationSet();
    addToExpirationSet(set, delta);
    this.#set(epoch, set);
  }

  /** Removes `delta` from the entry at `rawEpoch` quantized, which must exist (builtin-actors `ExpirationQueue::remove`). */
  #remove(rawEpoch: bigint, delta: ExpirationSet): void {
    const epoch = quantizeUp(this.quant, rawEpoch);
    const set = this.#get(epoch) ?? illegalState(`missing expected expiration set at epoch ${epoch}`);
    removeFromExpirationSet(set, delta);
    this.#updateOrDelete(epoch, set);
  }

  #removeActiveSectors(sectors: readonly SectorOnChainInfo[], sectorSize: bigint): ActiveSectorsTotals {
    const numbers: bigint[] = [];
    let power = ZERO_POWER;
    let pledge = 0n;
    let dailyFee = 0n;
    for (const { sectorEpochSet: group } of this.#findSectorsByExpiration(sectorSize, sectors)) {
      this.#remove(group.epoch, {
        ...emptyExpirationSet(),
        onTimeSectors: BitField.of(group.sectors),
        onTimePledge: group.pledge,
        activePower: group.power,
        feeDeduction: group.dailyFee,
      });
      numbers.push(...group.sectors);
      power = addPower(power, group.power);
      pledge += group.pledge;
      dailyFee += group.dailyFee;
    }
    return { sectorNumbers: BitField.of(numbers), power, pledge, dailyFee };
  }

  /**
   * Walks the entries in order while `visit` says to go on; an entry it changed is written back,
   * and entries left empty are deleted after the walk (builtin-actors `iter_while_mut`).
   */
  #iterateWhileMutating(visit: (epoch: bigint, set: ExpirationSet) => VisitOutcome): void {
    const changedSets: Array<[bigint, ExpirationSet]> = [];
    const emptied: bigint[] = [];
    for (const [epoch, set] of this.entries()) {
      const { keepGoing, changed } = visit(epoch, set);
      if (changed) changedSets.push([epoch, set]);
      if (isEmptyExpirationSet(set)) emptied.push(epoch);
      if (!keepGoing) break;
    }
    for (const [epoch, set] of changedSets) this.#set(epoch, set);
    for (const epoch of emptied) this.#amt.delete(epoch);
  }

  /**
   * Groups `sectors` by the entry they expire on time in: first the entries of their declared
   * expirations, then, for sectors rescheduled elsewhere, the queue in order. Earliest first
   * (builtin-actors `find_sectors_by_expiration`).
   */
  #findSectorsByExpiration(sectorSize: bigint, sectors: readonly SectorOnChainInfo[]): SectorExpirationSet[] {
    const declared = new Set<bigint>();
    const byNumber = new Map<bigint, SectorOnChainInfo>();
    const remaining = new Set<bigint>();
    for (const sector of sectors) {
      declared.add(quantizeUp(this.quant, sector.expiration));
      remaining.add(sector.sectorNumber);
      byNumber.set(sector.sectorNumber, sector);
    }
    const groups: SectorExpirationSet[] = [];
    const collect = (epoch: bigint, set: ExpirationSet) => {
      const found: SectorOnChainInfo[] = [];
      for (const n of set.onTimeSectors.values()) {
        if (remaining.delete(n)) found.push(byNumber.get(n) as SectorOnChainInfo);
      }
      if (found.length > 0) groups.push({ sectorEpochSet: sumSectors(epoch, found, sectorSize), expirationSet: set });
    };
    for (const epoch of [...declared].sort(compareBigInt)) collect(epoch, this.#get(epoch) ?? emptyExpirationSet());
    if (remaining.size > 0) {
      for (const [epoch, set] of this.entries()) {
        // Declared epochs were searched above, with every sector that could be there.
        if (declared.has(epoch)) continue;
        // Only active sectors are grouped, and active sectors never expire early.
        for (const n of set.earlySectors.values()) {
          if (remaining.has(n)) illegalState(`invalid attempt to group sector ${n} with an early expiration`);
        }
        collect(epoch, set);
        if (remaining.size === 0) break;
      }
    }
    if (remaining.size > 0) illegalState('some sectors not found in expiration queue');
    return groups.sort((a, b) => compareBigInt(a.sectorEpochSet.epoch, b.sectorEpochSet.epoch));
  }

  #get(epoch: bigint): ExpirationSet | undefined {
    const node = this.#amt.get(toKey(epoch));
    return node === undefined
      ? undefined
      : expirationSetFromCborNode(node as CborNode, `expiration queue epoch ${epoch}`);
  }

  #set(epoch: bigint, set: ExpirationSet): void {
    this.#amt.set(toKey(epoch), expirationSetStruct.toCborNode(set));
  }

  /** Writes `set`, or deletes its entry when it has no sectors left. */
  #updateOrDelete(epoch: bigint, set: ExpirationSet): void {
    if (isEmptyExpirationSet(set)) this.#amt.delete(toKey(epoch));
    else this.#set(epoch, set);
  }
}

/** AMT keys are unsigned: builtin-actors fails on a negative epoch (`try_into`). */
function toKey(epoch: bigint): bigint {
  if (epoch < 0n) illegalState(`negative expiration queue epoch ${epoch}`);
  return epoch;
}
