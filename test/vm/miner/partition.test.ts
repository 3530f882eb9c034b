/**
 * Partitions, on the scenarios of builtin-actors `actors/miner/tests/miner_actor_test_partitions.rs`
 * (the same six sectors, quantization {4, 1} and expected sets, queues and power), each ending with
 * the partition's state invariants (partition-invariants.ts, builtin-actors `testing.rs`).
 */
import { Amt, BitField, MemoryBlockstore } from '../../../src/ipld/index.js';
import { BitFieldQueue } from '../../../src/vm/actors/miner/bitfield-queue.js';
import { ExpirationQueue, isEmptyExpirationSet } from '../../../src/vm/actors/miner/expiration-queue.js';
import { Partition, partitionStruct } from '../../../src/vm/actors/miner/partition.js';
import { checkPartitionStateInvariants } from '../../../src/vm/actors/miner/partition-invariants.js';
import { negPower, type PowerPair, subPower, ZERO_POWER } from '../../../src/vm/actors/miner/power-pair.js';
import { NO_QUANTIZATION, type QuantSpec } from '../../../src/vm/actors/miner/quantize.js';
import { powerForSectors, Sectors, selectSectors } from '../../../src/vm/actors/miner/sectors.js';
import type { SectorOnChainInfo } from '../../../src/vm/actors/miner/state.js';
import { ExitCode } from '../../../src/vm/exit-code.js';
import { catchActorError } from '../../helpers/actor-error.js';
import { SECTOR_SIZE_32GIB as SECTOR_SIZE, sixSectors, testSector } from './sector-fixtures.js';

const QUANT: QuantSpec = { unit: 4n, offset: 1n };
const bf = (...values: number[]) => BitField.of(values);
const numbers = (bitField: BitField) => [...bitField.values()].map(Number);
const sectors = sixSectors();
const powerOf = (infos: readonly SectorOnChainInfo[]) => powerForSectors(SECTOR_SIZE, infos);
const powerOfNumbers = (all: readonly SectorOnChainInfo[], ...ns: number[]) => powerOf(selectSectors(all, bf(...ns)));

interface Setup {
  store: MemoryBlockstore;
  partition: Partition;
  sectorArray: Sectors;
}

function setupUnproven(extra: SectorOnChainInfo[] = []): Setup {
  const store = new MemoryBlockstore();
  const partition = Partition.create(store);
  const { power, dailyFee } = partition.addSectors(store, false, sectors, SECTOR_SIZE, QUANT);
  expect(power).toEqual(powerOf(sectors));
  expect(dailyFee).toBe(sectors.reduce((sum, s) => sum + s.dailyFee, 0n));
  const sectorArray = Sectors.load(store, Sectors.emptyRoot(store));
  sectorArray.store([...sectors, ...extra]);
  return { store, partition, sectorArray };
}

function setupPartition(extra: SectorOnChainInfo[] = []): Setup {
  const setup = setupUnproven(extra);
  expect(setup.partition.activateUnproven()).toEqual(powerOf(sectors));
  return setup;
}

function expectState(
  { store, partition }: Setup,
  all: readonly SectorOnChainInfo[],
  expected: { sectors: number[]; faults?: number[]; recoveries?: number[]; terminated?: number[]; unproven?: number[] },
): void {
  expect(numbers(partition.sectors)).toEqual(expected.sectors);
  expect(numbers(partition.faults)).toEqual(expected.faults ?? []);
  expect(numbers(partition.recoveries)).toEqual(expected.recoveries ?? []);
  expect(numbers(partition.terminated)).toEqual(expected.terminated ?? []);
  expect(numbers(partition.unproven)).toEqual(expected.unproven ?? []);
  const byNumber = new Map(all.map((sector) => [sector.sectorNumber, sector]));
  expect(checkPartitionStateInvariants(partition, store, QUANT, SECTOR_SIZE, byNumber).problems).toEqual([]);
}

/** The queue's sectors (on time or early) due by each epoch, nothing before. */
function expectExpirationQueue({ store, partition }: Setup, groups: Array<[epoch: bigint, sectors: number[]]>): void {
  const queue = ExpirationQueue.load(store, partition.expirationsEpochs, QUANT);
  for (const [epoch, expected] of groups) {
    expect(isEmptyExpirationSet(queue.popUntil(epoch - 1n))).toBe(true);
    const set = queue.popUntil(epoch);
    expect(numbers(set.onTimeSectors.union(set.earlySectors))).toEqual(expected);
  }
  expect(queue.count).toBe(0);
}

function earlyTerminations({ store, partition }: Setup): Array<[bigint, number[]]> {
  return [...BitFieldQueue.load(store, partition.earlyTerminated, NO_QUANTIZATION).entries()].map(([epoch, ns]) => [
    epoch,
    numbers(ns),
  ]);
}

test('adds sectors, then activates the unproven ones', () => {
  const setup = setupUnproven();
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], unproven: [1, 2, 3, 4, 5, 6] });
  expect(setup.partition.unprovenPower).toEqual(powerOf(sectors));
  expect(setup.partition.activePower()).toEqual(ZERO_POWER);
  expect(setup.partition.activateUnproven()).toEqual(powerOf(sectors));
  expect(setup.partition.activePower()).toEqual(powerOf(sectors));
});

test('adds sectors and reports their stats, in three expiration groups', () => {
  const setup = setupPartition();
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6] });
  expectExpirationQueue(setup, [
    [5n, [1, 2]],
    [9n, [3, 4]],
    [13n, [5, 6]],
  ]);
});

test('does not add sectors twice', () => {
  const { store, partition } = setupPartition();
  const error = catchActorError(() => partition.addSectors(store, false, sectors, SECTOR_SIZE, QUANT));
  expect([error.exitCode, error.message]).toEqual([ExitCode.UsrIllegalState, 'not all added sectors are new']);
});

test.each([true, false])('adds faults (proven: %s)', (proven) => {
  const setup = proven ? setupPartition() : setupUnproven();
  const { store, partition, sectorArray } = setup;
  const faults = bf(4, 5);
  const { powerDelta, newFaultyPower } = partition.recordFaults(store, sectorArray, faults, 7n, SECTOR_SIZE, QUANT);
  expect(newFaultyPower).toEqual(powerOfNumbers(sectors, 4, 5));
  // Unproven sectors never had power: faulting them takes none from the claim.
  expect(powerDelta).toEqual(proven ? negPower(newFaultyPower) : ZERO_POWER);
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], faults: [4, 5], unproven: proven ? [] : [1, 2, 3, 6] });
  // Sector 5 (expiring at 13) moves to the fault expiration, 7 quantized to 9.
  expectExpirationQueue(setup, [
    [5n, [1, 2]],
    [9n, [3, 4, 5]],
    [13n, [6]],
  ]);
});

test('re-adding faults is a no-op', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  let result = partition.recordFaults(store, sectorArray, bf(4, 5), 7n, SECTOR_SIZE, QUANT);
  expect(result.newFaultyPower).toEqual(powerOfNumbers(sectors, 4, 5));
  expect(result.powerDelta).toEqual(negPower(result.newFaultyPower));
  result = partition.recordFaults(store, sectorArray, bf(5, 6), 3n, SECTOR_SIZE, QUANT);
  expect(numbers(result.newFaults)).toEqual([6]);
  expect(result.newFaultyPower).toEqual(powerOfNumbers(sectors, 6));
  expect(result.powerDelta).toEqual(negPower(result.newFaultyPower));
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], faults: [4, 5, 6] });
  expectExpirationQueue(setup, [
    [5n, [1, 2, 6]],
    [9n, [3, 4, 5]],
  ]);
});

test('fails to add faults or recoveries for sectors outside the partition', () => {
  const { store, partition, sectorArray } = setupPartition();
  for (const run of [
    () => partition.recordFaults(store, sectorArray, bf(99), 7n, SECTOR_SIZE, QUANT),
    () => partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(99)),
  ]) {
    const error = catchActorError(run);
    expect(error.exitCode).toBe(ExitCode.UsrIllegalArgument);
    expect(error.message).toContain('not all sectors are assigned to the partition');
  }
});

test('adds recoveries, and retracts them when they are declared faulty again', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  partition.recordFaults(store, sectorArray, bf(4, 5, 6), 7n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(4, 5));
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], faults: [4, 5, 6], recoveries: [4, 5] });
  expect(partition.recoveringPower).toEqual(powerOfNumbers(sectors, 4, 5));

  // Declaring no faults changes nothing.
  expect(partition.recordFaults(store, sectorArray, bf(), 7n, SECTOR_SIZE, QUANT).newFaults.isEmpty()).toBe(true);
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], faults: [4, 5, 6], recoveries: [4, 5] });

  // Declaring 5 faulty again retracts its recovery; it is not a new fault.
  expect(partition.recordFaults(store, sectorArray, bf(5), 10n, SECTOR_SIZE, QUANT).newFaults.isEmpty()).toBe(true);
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], faults: [4, 5, 6], recoveries: [4] });
  expect(partition.recoveringPower).toEqual(powerOfNumbers(sectors, 4));
});

test('recovers faults', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  partition.recordFaults(store, sectorArray, bf(4, 5, 6), 7n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(4, 5));
  expect(partition.recoverFaults(store, sectorArray, SECTOR_SIZE, QUANT)).toEqual(powerOfNumbers(sectors, 4, 5));
  // As if 4 and 5 had never been faulty; 6 still expires early.
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], faults: [6] });
  expectExpirationQueue(setup, [
    [5n, [1, 2]],
    [9n, [3, 4, 6]],
    [13n, [5]],
  ]);
});

test('faulty power is recovered exactly once', () => {
  const { store, partition, sectorArray } = setupPartition();
  partition.recordFaults(store, sectorArray, bf(4, 5, 6), 7n, SECTOR_SIZE, QUANT);
  // 3 is not faulty, so it is skipped; declaring 4 and 5 again adds nothing.
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(3, 4, 5));
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(4, 5, 6));
  expect(partition.recoveringPower).toEqual(powerOfNumbers(sectors, 4, 5, 6));
});

test('replaces sectors', () => {
  const setup = setupPartition();
  const { store, partition } = setup;
  const oldSectors = sectors.slice(1, 4);
  const newSectors = [
    testSector(10n, 2n, 150n, 260n, 3000n, 4000n),
    testSector(10n, 7n, 151n, 261n, 3001n, 5000n),
    testSector(18n, 8n, 152n, 262n, 3002n, 6000n),
  ];
  const { powerDelta, pledgeDelta, dailyFeeDelta } = partition.replaceSectors(
    store,
    oldSectors,
    newSectors,
    SECTOR_SIZE,
    QUANT,
  );
  expect(powerDelta).toEqual(subPower(powerOf(newSectors), powerOf(oldSectors)));
  expect(pledgeDelta).toBe(3000n + 3001n + 3002n - (1001n + 1002n + 1003n));
  expect(dailyFeeDelta).toBe(4000n + 5000n + 6000n - (4000n + 5000n + 6000n));
  const all = [...newSectors, sectors[0]!, ...sectors.slice(4)];
  expectState(setup, all, { sectors: [1, 2, 5, 6, 7, 8] });
  expectExpirationQueue(setup, [
    [5n, [1]],
    [13n, [2, 5, 6, 7]],
    [21n, [8]],
  ]);
});

test('refuses to replace faulty or unproven sectors', () => {
  const faulty = setupPartition();
  faulty.partition.recordFaults(faulty.store, faulty.sectorArray, bf(2), 7n, SECTOR_SIZE, QUANT);
  const unproven = setupUnproven();
  for (const { store, partition } of [faulty, unproven]) {
    const error = catchActorError(() =>
      partition.replaceSectors(
        store,
        sectors.slice(1, 4),
        [testSector(10n, 2n, 150n, 260n, 3000n, 4000n)],
        SECTOR_SIZE,
        QUANT,
      ),
    );
    expect(error.exitCode).toBe(ExitCode.UsrIllegalState);
    expect(error.message).toContain('refusing to replace inactive sectors');
  }
});

test('terminates sectors: active, faulty, recovering and unproven', () => {
  const unprovenSector = testSector(13n, 7n, 55n, 65n, 1006n, 9000n);
  const all = [...sectors, unprovenSector];
  const setup = setupPartition([unprovenSector]);
  const { store, partition, sectorArray } = setup;
  const added = partition.addSectors(store, false, [unprovenSector], SECTOR_SIZE, QUANT);
  expect(added).toEqual({ power: powerOf([unprovenSector]), dailyFee: 9000n });
  partition.recordFaults(store, sectorArray, bf(3, 4, 5, 6), 7n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(4, 5));

  const { removed, removedUnprovenPower } = partition.terminateSectors(
    store,
    sectorArray,
    3n,
    bf(1, 3, 5, 7),
    SECTOR_SIZE,
    QUANT,
  );
  expect(removed.activePower).toEqual(powerOfNumbers(sectors, 1));
  expect(removed.faultyPower).toEqual(powerOfNumbers(sectors, 3, 5));
  expect(removedUnprovenPower).toEqual(powerOf([unprovenSector]));
  expectState(setup, all, {
    sectors: [1, 2, 3, 4, 5, 6, 7],
    faults: [4, 6],
    recoveries: [4],
    terminated: [1, 3, 5, 7],
  });
  expect(partition.recoveringPower).toEqual(powerOfNumbers(sectors, 4));
  expectExpirationQueue(setup, [
    [5n, [2]],
    [9n, [4, 6]],
  ]);
  expect(earlyTerminations(setup)).toEqual([[3n, [1, 3, 5, 7]]]);
});

test('terminates only live sectors', () => {
  const { store, partition, sectorArray } = setupPartition();
  let error = catchActorError(() => partition.terminateSectors(store, sectorArray, 3n, bf(99), SECTOR_SIZE, QUANT));
  expect([error.exitCode, error.message]).toEqual([ExitCode.UsrIllegalArgument, 'can only terminate live sectors']);

  const { removed, removedUnprovenPower } = partition.terminateSectors(
    store,
    sectorArray,
    3n,
    bf(1),
    SECTOR_SIZE,
    QUANT,
  );
  expect(removed.activePower).toEqual(powerOfNumbers(sectors, 1));
  expect(removed.faultyPower).toEqual(ZERO_POWER);
  expect(removedUnprovenPower).toEqual(ZERO_POWER);
  expect(removed.onTimeSectors.size + removed.earlySectors.size).toBe(1n);
  error = catchActorError(() => partition.terminateSectors(store, sectorArray, 3n, bf(1), SECTOR_SIZE, QUANT));
  expect(error.message).toBe('can only terminate live sectors');

  // A terminated sector cannot become faulty.
  const faults = partition.recordFaults(store, sectorArray, bf(1), 5n, SECTOR_SIZE, QUANT);
  expect(faults.newFaults.isEmpty()).toBe(true);
  expect(faults.powerDelta).toEqual(ZERO_POWER);
  expect(faults.newFaultyPower).toEqual(ZERO_POWER);
});

test('pops expiring sectors, on time and early', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  // Sector 4 faulty, expiring early at 2 (quantized to 5).
  partition.recordFaults(store, sectorArray, bf(4), 2n, SECTOR_SIZE, QUANT);
  const set = partition.popExpiredSectors(store, 5n, QUANT);
  expect(numbers(set.onTimeSectors)).toEqual([1, 2]);
  expect(numbers(set.earlySectors)).toEqual([4]);
  expect(set.onTimePledge).toBe(1000n + 1001n);
  expect(set.activePower).toEqual(powerOf(sectors.slice(0, 2)));
  expect(set.faultyPower).toEqual(powerOf(sectors.slice(3, 4)));
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], terminated: [1, 2, 4] });
  expectExpirationQueue(setup, [
    [9n, [3]],
    [13n, [5, 6]],
  ]);
  // Only the early one waits for a termination fee.
  expect(earlyTerminations(setup)).toEqual([[5n, [4]]]);
});

test('popping expirations refuses pending recoveries and unproven sectors', () => {
  const { store, partition, sectorArray } = setupPartition();
  partition.recordFaults(store, sectorArray, bf(5), 2n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(5));
  let error = catchActorError(() => partition.popExpiredSectors(store, 5n, QUANT));
  expect([error.exitCode, error.message]).toEqual([
    ExitCode.UsrIllegalState,
    'unexpected recoveries while processing expirations',
  ]);
  const unproven = setupUnproven();
  error = catchActorError(() => unproven.partition.popExpiredSectors(unproven.store, 5n, QUANT));
  expect(error.message).toBe('cannot pop expired sectors from a partition with unproven sectors');
});

test('records a missed PoSt', () => {
  const unprovenSector = testSector(13n, 7n, 55n, 65n, 1006n, 5000n);
  const all = [...sectors, unprovenSector];
  const setup = setupPartition([unprovenSector]);
  const { store, partition, sectorArray } = setup;
  expect(partition.addSectors(store, false, [unprovenSector], SECTOR_SIZE, QUANT).dailyFee).toBe(5000n);
  partition.recordFaults(store, sectorArray, bf(4, 5, 6), 7n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(4, 5));

  const { powerDelta, penalizedPower, newFaultyPower } = partition.recordMissedPost(store, 6n, QUANT);
  // 6 was faulty already: not penalized again (beyond the ongoing fee); 4 and 5 failed to recover.
  expect(penalizedPower).toEqual(subPower(powerOf(all), powerOf(all.slice(5, 6))));
  // The claim loses 1–3; 7 never had power.
  expect(powerDelta).toEqual(negPower(powerOf(all.slice(0, 3))));
  expect(newFaultyPower).toEqual(powerOfNumbers(all, 1, 2, 3, 7));
  expectState(setup, all, { sectors: [1, 2, 3, 4, 5, 6, 7], faults: [1, 2, 3, 4, 5, 6, 7] });
  // The fault expiration quantizes to 9: everything after the first set moves there.
  expectExpirationQueue(setup, [
    [5n, [1, 2]],
    [9n, [3, 4, 5, 6, 7]],
  ]);
});

test('pops early terminations up to a limit, keeping the rest', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  partition.recordFaults(store, sectorArray, bf(3, 4, 5, 6), 7n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(4, 5));
  partition.terminateSectors(store, sectorArray, 3n, bf(1, 3, 5), SECTOR_SIZE, QUANT);

  let popped = partition.popEarlyTerminations(store, 1n);
  expect(numbers(popped.result.sectors.get(3n)!)).toEqual([1]);
  expect([popped.result.partitionsProcessed, popped.result.sectorsProcessed, popped.hasMore]).toEqual([1n, 1n, true]);
  expect(earlyTerminations(setup)).toEqual([[3n, [3, 5]]]);

  popped = partition.popEarlyTerminations(store, 5n);
  expect(numbers(popped.result.sectors.get(3n)!)).toEqual([3, 5]);
  expect([popped.result.sectorsProcessed, popped.hasMore]).toEqual([2n, false]);
  expect(earlyTerminations(setup)).toEqual([]);
});

test('records skipped faults: new faults and retracted recoveries', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  partition.recordFaults(store, sectorArray, bf(5, 6), 7n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(5));
  const skipped = partition.recordSkippedFaults(store, sectorArray, SECTOR_SIZE, QUANT, 7n, bf(2, 5, 6));
  // 2 is a new fault; 5 was recovering and is faulty again; 6 was faulty already.
  expect(skipped.powerDelta).toEqual(negPower(powerOfNumbers(sectors, 2)));
  expect(skipped.newFaultPower).toEqual(powerOfNumbers(sectors, 2));
  expect(skipped.retractedRecoveryPower).toEqual(powerOfNumbers(sectors, 5));
  expect(skipped.hasNewFaults).toBe(true);
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], faults: [2, 5, 6] });

  expect(partition.recordSkippedFaults(store, sectorArray, SECTOR_SIZE, QUANT, 7n, bf())).toEqual({
    powerDelta: ZERO_POWER,
    newFaultPower: ZERO_POWER,
    retractedRecoveryPower: ZERO_POWER,
    hasNewFaults: false,
  });
  const error = catchActorError(() =>
    partition.recordSkippedFaults(store, sectorArray, SECTOR_SIZE, QUANT, 7n, bf(99)),
  );
  expect([error.exitCode, error.message]).toEqual([
    ExitCode.UsrIllegalArgument,
    'skipped faults contains sectors outside partition',
  ]);
});

test('reschedules the expirations of active sectors only', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  partition.recordFaults(store, sectorArray, bf(3), 7n, SECTOR_SIZE, QUANT);
  // 3 is faulty and 99 is not in the partition: both skipped.
  const moved = partition.rescheduleExpirations(store, sectorArray, 13n, bf(1, 3, 99), SECTOR_SIZE, QUANT);
  expect(moved.map((sector) => sector.sectorNumber)).toEqual([1n]);
  expectExpirationQueue(setup, [
    [5n, [2]],
    [9n, [3, 4]],
    [13n, [1, 5, 6]],
  ]);
});

test('a missing sector is USR_NOT_FOUND', () => {
  const store = new MemoryBlockstore();
  const partition = Partition.create(store);
  partition.addSectors(store, true, sectors, SECTOR_SIZE, QUANT);
  const empty = Sectors.load(store, Sectors.emptyRoot(store));
  const error = catchActorError(() => partition.recordFaults(store, empty, bf(4), 7n, SECTOR_SIZE, QUANT));
  expect([error.exitCode, error.message]).toEqual([ExitCode.UsrNotFound, 'sector not found: 4']);
});

test('holds a full 32 GiB partition of sparse sector numbers, and round-trips through CBOR', () => {
  const store = new MemoryBlockstore();
  const partition = Partition.create(store);
  const many = Array.from({ length: 2349 }, (_, i) =>
    testSector(BigInt(i + 1), BigInt(i + 1) << 50n, 50n, 60n, 1000n, BigInt(i) * 1000n),
  );
  const { power, dailyFee } = partition.addSectors(store, false, many, SECTOR_SIZE, QUANT);
  expect(power).toEqual(powerOf(many));
  expect(dailyFee).toBe(many.reduce((sum, s) => sum + s.dailyFee, 0n));
  const byNumber = new Map(many.map((sector) => [sector.sectorNumber, sector]));
  const decoded = Partition.fromState(partitionStruct.decode(partitionStruct.encode(partition.toState())));
  for (const p of [partition, decoded]) {
    expect(p.sectors.size).toBe(2349n);
    expect(p.unproven.equals(p.sectors)).toBe(true);
    expect(checkPartitionStateInvariants(p, store, QUANT, SECTOR_SIZE, byNumber).problems).toEqual([]);
  }
  expect(partitionStruct.encode(decoded.toState())).toEqual(partitionStruct.encode(partition.toState()));
});

test('an empty partition has empty queues of the bit widths builtin-actors uses', () => {
  const store = new MemoryBlockstore();
  const partition = Partition.create(store);
  const json = partitionStruct.toLotusJson(partition.toState());
  expect(json.LivePower).toEqual({ Raw: '0', QA: '0' });
  expect(json.Sectors).toEqual([0]); // go-bitfield writes the empty set as one run of zeros
  const bitWidth = (cid: typeof partition.expirationsEpochs) => Amt.load(store, cid).bitWidth;
  expect(bitWidth(partition.expirationsEpochs)).toBe(4);
  expect(bitWidth(partition.earlyTerminated)).toBe(3);
});

test('the power sums match their sectors after a whole lifecycle', () => {
  const setup = setupPartition();
  const { store, partition, sectorArray } = setup;
  partition.recordFaults(store, sectorArray, bf(2, 3), 7n, SECTOR_SIZE, QUANT);
  partition.declareFaultsRecovered(sectorArray, SECTOR_SIZE, bf(3));
  partition.recoverFaults(store, sectorArray, SECTOR_SIZE, QUANT);
  partition.terminateSectors(store, sectorArray, 4n, bf(6), SECTOR_SIZE, QUANT);
  partition.popExpiredSectors(store, 5n, QUANT);
  expectState(setup, sectors, { sectors: [1, 2, 3, 4, 5, 6], terminated: [1, 2, 6] });
  const expected: PowerPair = powerOfNumbers(sectors, 3, 4, 5);
  expect(partition.livePower).toEqual(expected);
  expect(partition.activePower()).toEqual(expected);
  expect(earlyTerminations(setup)).toEqual([[4n, [6]]]);
});

describe('Sectors (builtin-actors sectors.rs)', () => {
  test('stores, loads and deletes sectors; a missing one is USR_NOT_FOUND', () => {
    const store = new MemoryBlockstore();
    const array = Sectors.load(store, Sectors.emptyRoot(store));
    array.store(sectors);
    const reloaded = Sectors.load(store, array.flush());
    expect(reloaded.count).toBe(6);
    expect(reloaded.mustGet(3n)).toEqual(sectors[2]);
    expect(reloaded.get(9n)).toBeUndefined();
    expect(reloaded.loadSectors(bf(2, 5)).map((s) => s.sectorNumber)).toEqual([2n, 5n]);
    let error = catchActorError(() => reloaded.mustGet(9n));
    expect([error.exitCode, error.message]).toEqual([ExitCode.UsrNotFound, 'sector 9 not found']);
    error = catchActorError(() => reloaded.loadSectors(bf(1, 9)));
    expect(error.message).toBe('sector not found: 9');
    reloaded.deleteSectors(bf(1, 2));
    expect(reloaded.count).toBe(4);
    error = catchActorError(() => reloaded.deleteSectors(bf(1)));
    expect([error.exitCode, error.message]).toEqual([ExitCode.UsrNotFound, 'sector not found: 1']);
    error = catchActorError(() => reloaded.store([testSector(1n, 1n << 63n, 0n, 0n, 0n, 0n)]));
    expect([error.exitCode, error.message]).toEqual([
      ExitCode.UsrIllegalState,
      `sector number ${1n << 63n} out of range`,
    ]);
  });

  test('loads sectors for a proof with the first good sector standing in for faulty ones', () => {
    const store = new MemoryBlockstore();
    const array = Sectors.load(store, Sectors.emptyRoot(store));
    array.store(sectors);
    const proven = array.loadForProof(bf(1, 2, 3, 4), bf(1, 3));
    expect(proven.map((s) => s.sectorNumber)).toEqual([2n, 2n, 2n, 4n]);
    expect(array.loadForProof(bf(1, 2), bf(1, 2))).toEqual([]);
    expect(selectSectors(sectors, bf(6, 1)).map((s) => s.sectorNumber)).toEqual([1n, 6n]);
    const error = catchActorError(() => selectSectors(sectors, bf(1, 9)));
    expect([error.exitCode, error.message]).toEqual([ExitCode.UsrIllegalState, 'failed to find 1 expected sectors']);
  });
});

test('the invariant check names what is wrong', () => {
  const { store, partition } = setupPartition();
  const byNumber = new Map(sectors.map((sector) => [sector.sectorNumber, sector]));
  partition.livePower = subPower(partition.livePower, { raw: 1n, qa: 1n });
  partition.sectors = partition.sectors.union(bf(7));
  const problems = checkPartitionStateInvariants(partition, store, QUANT, SECTOR_SIZE, byNumber).problems;
  expect(problems).toEqual([
    'live sectors missing from all sectors: 7',
    'active power was {raw 206158430207, qa 206158430207}, expected {raw 0, qa 0}',
    'live [1, 2, 3, 4, 5, 6, 7] does not equal all expirations [1, 2, 3, 4, 5, 6]',
  ]);
});
