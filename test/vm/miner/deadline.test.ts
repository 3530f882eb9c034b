/**
 * Deadlines, on the scenarios of builtin-actors `actors/miner/tests/deadline_state_test.rs` (the same
 * nine sectors in partitions of four, quantization {4, 1}, and the expected sets, power and errors),
 * each checked against the deadline's state invariants (deadline-invariants.ts, builtin-actors
 * `testing.rs`); then the proofs kept for disputes, expiration rescheduling, the Deadlines block
 * and the CBOR shapes.
 */
import { Amt, BitField, MemoryBlockstore } from '../../../src/ipld/index.js';
import { MAINNET } from '../../../src/params/index.js';
import { decodeCbor } from '../../../src/types/index.js';
import {
  DEADLINE_EXPIRATIONS_AMT_BITWIDTH,
  DEADLINE_OPTIMISTIC_POST_SUBMISSIONS_AMT_BITWIDTH,
  DEADLINE_PARTITIONS_AMT_BITWIDTH,
  Deadline,
  deadlineStruct,
  windowedPoStStruct,
} from '../../../src/vm/actors/miner/deadline.js';
import { checkDeadlineStateInvariants } from '../../../src/vm/actors/miner/deadline-invariants.js';
import { Deadlines, deadlinesStruct } from '../../../src/vm/actors/miner/deadlines.js';
import type { PoStPartition } from '../../../src/vm/actors/miner/params.js';
import { negPower, type PowerPair, ZERO_POWER } from '../../../src/vm/actors/miner/power-pair.js';
import type { QuantSpec } from '../../../src/vm/actors/miner/quantize.js';
import { DeadlineSectorMap, PartitionSectorMap } from '../../../src/vm/actors/miner/sector-map.js';
import { powerForSectors, Sectors, selectSectors } from '../../../src/vm/actors/miner/sectors.js';
import { SECTORS_AMT_BITWIDTH, type SectorOnChainInfo } from '../../../src/vm/actors/miner/state.js';
import { ActorError } from '../../../src/vm/errors.js';
import { ExitCode } from '../../../src/vm/exit-code.js';
import { SECTOR_SIZE_32GIB as SECTOR_SIZE, testSector } from './sector-fixtures.js';

const QUANT: QuantSpec = { unit: 4n, offset: 1n };
const PARTITION_SIZE = 4n;
const bf = (...values: number[]) => BitField.of(values);
const numbers = (bitField: BitField) => [...bitField.values()].map(Number);

const sectors = (): SectorOnChainInfo[] => [
  testSector(2n, 1n, 50n, 60n, 1000n, 1000n),
  testSector(3n, 2n, 51n, 61n, 1001n, 2000n),
  testSector(7n, 3n, 52n, 62n, 1002n, 3000n),
  testSector(8n, 4n, 53n, 63n, 1003n, 4000n),
  testSector(8n, 5n, 54n, 64n, 1004n, 5000n),
  testSector(11n, 6n, 55n, 65n, 1005n, 6000n),
  testSector(13n, 7n, 56n, 66n, 1006n, 7000n),
  testSector(8n, 8n, 57n, 67n, 1007n, 8000n),
  testSector(8n, 9n, 58n, 68n, 1008n, 9000n),
];
const extraSectors = (): SectorOnChainInfo[] => [testSector(8n, 10n, 58n, 68n, 1008n, 9000n)];
const allSectors = () => [...sectors(), ...extraSectors()];

const powerOf = (infos: readonly SectorOnChainInfo[]) => powerForSectors(SECTOR_SIZE, infos);
const sectorPower = (...ns: number[]) => powerOf(selectSectors(allSectors(), bf(...ns)));
const feeOf = (infos: readonly SectorOnChainInfo[]) => infos.reduce((sum, sector) => sum + sector.dailyFee, 0n);
const NINE_IN_THREE = [[1, 2, 3, 4], [5, 6, 7, 8], [9]];

function sectorsArray(store: MemoryBlockstore, infos: readonly SectorOnChainInfo[]): Sectors {
  const array = Sectors.load(store, Sectors.emptyRoot(store));
  array.store(infos);
  return array;
}

function partitionMap(entries: [number, number[]][]): PartitionSectorMap {
  const map = new PartitionSectorMap();
  for (const [partition, sectorNumbers] of entries) map.add(BigInt(partition), bf(...sectorNumbers));
  return map;
}

const posts = (...entries: [number, number[]][]): PoStPartition[] =>
  entries.map(([index, skipped]) => ({ index: BigInt(index), skipped: bf(...skipped) }));

interface Expected {
  faults?: number[];
  recovering?: number[];
  terminations?: number[];
  unproven?: number[];
  posts?: number[];
  partitions: number[][];
}

/** builtin-actors' `ExpectedDeadlineState::assert`: the sets, the partitions' sectors, and the invariants. */
function expectDeadline(store: MemoryBlockstore, deadline: Deadline, expected: Expected): void {
  const byNumber = new Map(allSectors().map((sector) => [sector.sectorNumber, sector]));
  const summary = checkDeadlineStateInvariants(deadline, store, QUANT, SECTOR_SIZE, byNumber);
  expect(summary.problems).toEqual([]);
  expect(numbers(summary.faultySectors)).toEqual(expected.faults ?? []);
  expect(numbers(summary.recoveringSectors)).toEqual(expected.recovering ?? []);
  expect(numbers(summary.terminatedSectors)).toEqual(expected.terminations ?? []);
  expect(numbers(summary.unprovenSectors)).toEqual(expected.unproven ?? []);
  expect(numbers(deadline.partitionsPoSted)).toEqual(expected.posts ?? []);
  expect([...deadline.forEachPartition(store)].map(([, partition]) => numbers(partition.sectors))).toEqual(
    expected.partitions,
  );
}

function expectActorError(run: () => unknown, exitCode: number, message?: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ActorError);
  expect((thrown as ActorError).exitCode).toBe(exitCode);
  if (message !== undefined) expect((thrown as ActorError).message).toContain(message);
}

interface Setup {
  store: MemoryBlockstore;
  deadline: Deadline;
}

function newDeadline(): Setup {
  const store = new MemoryBlockstore();
  return { store, deadline: Deadline.create(store) };
}

/** Sectors 1–9 in partitions [1–4], [5–8], [9]; proven (and the window ended) if `prove`. */
function addSectors(setup: Setup, prove: boolean): void {
  const { store, deadline } = setup;
  const added = deadline.addSectors(store, PARTITION_SIZE, false, true, sectors(), SECTOR_SIZE, QUANT);
  expect(added.power).toEqual(powerOf(sectors()));
  expect(added.dailyFee).toBe(feeOf(sectors()));
  expectDeadline(store, deadline, { unproven: [1, 2, 3, 4, 5, 6, 7, 8, 9], partitions: NINE_IN_THREE });
  if (!prove) return;

  const array = sectorsArray(store, sectors());
  const result = deadline.recordProvenSectors(store, array, SECTOR_SIZE, QUANT, 0n, posts([0, []], [1, []], [2, []]));
  expect(result.powerDelta).toEqual(powerOf(sectors()));
  const ended = deadline.processDeadlineEnd(store, QUANT, 0n, array.flush());
  expect(ended.powerDelta).toEqual(ZERO_POWER);
  expect(ended.detectedFaultyPower).toEqual(ZERO_POWER);
  expectDeadline(store, deadline, { partitions: NINE_IN_THREE });
}

function terminate(setup: Setup, epoch: bigint, entries: [number, number[]][]): PowerPair {
  const { store, deadline } = setup;
  return deadline.terminateSectors(
    store,
    sectorsArray(store, sectors()),
    epoch,
    partitionMap(entries),
    SECTOR_SIZE,
    QUANT,
  );
}

/** addSectors, then terminates 1 and 3 (partition 0) and 6 (partition 1) at epoch 15. */
function addThenTerminate(setup: Setup, prove: boolean): void {
  addSectors(setup, prove);
  const removed = terminate(setup, 15n, [
    [0, [1, 3]],
    [1, [6]],
  ]);
  expect(removed).toEqual(prove ? sectorPower(1, 3, 6) : ZERO_POWER);
  expectDeadline(setup.store, setup.deadline, {
    terminations: [1, 3, 6],
    unproven: prove ? [] : [2, 4, 5, 7, 8, 9],
    partitions: NINE_IN_THREE,
  });
}

function addThenTerminateThenPopEarly(setup: Setup): void {
  addThenTerminate(setup, true);
  const { result, hasMore } = setup.deadline.popEarlyTerminations(setup.store, 100n, 100n);
  expect(hasMore).toBe(false);
  expect(result.partitionsProcessed).toBe(2n);
  expect(result.sectorsProcessed).toBe(3n);
  expect([...result.sectors.keys()]).toEqual([15n]);
  expect(numbers(result.sectors.get(15n)!)).toEqual([1, 3, 6]);
  // Popping early terminations leaves the terminated sets as they were.
  expectDeadline(setup.store, setup.deadline, { terminations: [1, 3, 6], partitions: NINE_IN_THREE });
}

function compact(setup: Setup, toRemove: BitField): BitField {
  const { store, deadline } = setup;
  return deadline.compactPartitions(
    store,
    sectorsArray(store, sectors()),
    SECTOR_SIZE,
    PARTITION_SIZE,
    toRemove,
    QUANT,
  );
}

function addThenTerminateThenRemovePartition(setup: Setup): void {
  addThenTerminateThenPopEarly(setup);
  const dead = compact(setup, bf(0));
  expect(numbers(dead)).toEqual([1, 3]);
  expectDeadline(setup.store, setup.deadline, {
    terminations: [6],
    partitions: [
      [5, 6, 7, 8],
      [2, 4, 9],
    ],
  });
}

/** addSectors, then marks 1 (partition 0), 5 and 6 (partition 1) faulty, expiring at epoch 9. */
function addThenMarkFaulty(setup: Setup, prove: boolean): void {
  addSectors(setup, prove);
  const { store, deadline } = setup;
  const delta = deadline.recordFaults(
    store,
    sectorsArray(store, sectors()),
    SECTOR_SIZE,
    QUANT,
    9n,
    partitionMap([
      [0, [1]],
      [1, [5, 6]],
    ]),
  );
  expect(delta).toEqual(prove ? negPower(sectorPower(1, 5, 6)) : ZERO_POWER);
  expectDeadline(store, deadline, {
    faults: [1, 5, 6],
    unproven: prove ? [] : [2, 3, 4, 7, 8, 9],
    partitions: NINE_IN_THREE,
  });
}

/** addSectors proven, then sector 10 added unproven to partition 2. */
function addSectorsThenAnInactiveOne(setup: Setup, markFaulty: boolean): Sectors {
  if (markFaulty) addThenMarkFaulty(setup, true);
  else addSectors(setup, true);
  const { store, deadline } = setup;
  const added = deadline.addSectors(store, PARTITION_SIZE, false, true, extraSectors(), SECTOR_SIZE, QUANT);
  expect(added.power).toEqual(powerOf(extraSectors()));
  expect(added.dailyFee).toBe(feeOf(extraSectors()));
  return sectorsArray(store, allSectors());
}

const NINE_AND_TEN = [
  [1, 2, 3, 4],
  [5, 6, 7, 8],
  [9, 10],
];
const FAULT_EXPIRATION = 13n;

/** A window PoSt of the partitions `entries` names, each with its skipped sectors. */
const prove = ({ store, deadline }: Setup, array: Sectors, ...entries: [number, number[]][]) =>
  deadline.recordProvenSectors(store, array, SECTOR_SIZE, QUANT, FAULT_EXPIRATION, posts(...entries));

const endWindow = ({ store, deadline }: Setup, array: Sectors) =>
  deadline.processDeadlineEnd(store, QUANT, FAULT_EXPIRATION, array.flush());

describe('Deadline (deadline_state_test.rs)', () => {
  test('adds sectors', () => addSectors(newDeadline(), false));
  test('adds sectors and proves', () => addSectors(newDeadline(), true));
  test('terminates sectors', () => addThenTerminate(newDeadline(), true));
  test('terminates unproven sectors', () => addThenTerminate(newDeadline(), false));
  test('pops early terminations', () => addThenTerminateThenPopEarly(newDeadline()));
  test('removes partitions', () => addThenTerminateThenRemovePartition(newDeadline()));
  test('marks faulty', () => addThenMarkFaulty(newDeadline(), true));
  test('marks unproven sectors faulty', () => addThenMarkFaulty(newDeadline(), false));

  test('cannot remove partitions with early terminations', () => {
    const setup = newDeadline();
    addThenTerminate(setup, false);
    expectActorError(() => compact(setup, bf(0)), ExitCode.UsrIllegalArgument, 'early terminations');
  });

  test('can pop early terminations in multiple steps', () => {
    const setup = newDeadline();
    addThenTerminate(setup, true);
    const steps = [0, 1, 2].map(() => setup.deadline.popEarlyTerminations(setup.store, 2n, 1n));
    expect(steps.map((step) => step.hasMore)).toEqual([true, true, false]);
    expect(steps.map((step) => step.result.partitionsProcessed).reduce((a, b) => a + b)).toBe(3n);
    expect(steps.map((step) => step.result.sectorsProcessed).reduce((a, b) => a + b)).toBe(3n);
    const popped = BitField.unionAll(steps.map((step) => step.result.sectors.get(15n) ?? BitField.EMPTY));
    expect(steps.every((step) => [...step.result.sectors.keys()].every((epoch) => epoch === 15n))).toBe(true);
    expect(numbers(popped)).toEqual([1, 3, 6]);
    expectDeadline(setup.store, setup.deadline, { terminations: [1, 3, 6], partitions: NINE_IN_THREE });
  });

  test('cannot remove a missing partition', () => {
    const setup = newDeadline();
    addThenTerminateThenRemovePartition(setup);
    expectActorError(() => compact(setup, bf(2)), ExitCode.UsrIllegalArgument, 'out of range');
  });

  test('removing no partitions does nothing', () => {
    const setup = newDeadline();
    addThenTerminateThenPopEarly(setup);
    expect(compact(setup, BitField.EMPTY).isEmpty()).toBe(true);
    expectDeadline(setup.store, setup.deadline, { terminations: [1, 3, 6], partitions: NINE_IN_THREE });
  });

  test('fails to remove partitions with faulty sectors', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, false);
    expectActorError(() => compact(setup, bf(1)), ExitCode.UsrIllegalArgument, 'has faults');
  });

  test('terminates proven and faulty sectors', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, true);
    // Sector 3 is active, 1 and 6 faulty: only 3's power is lost.
    expect(
      terminate(setup, 15n, [
        [0, [1, 3]],
        [1, [6]],
      ]),
    ).toEqual(sectorPower(3));
    expectDeadline(setup.store, setup.deadline, { terminations: [1, 3, 6], faults: [5], partitions: NINE_IN_THREE });
  });

  test('terminates unproven and faulty sectors', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, false);
    expect(
      terminate(setup, 15n, [
        [0, [1, 3]],
        [1, [6]],
      ]),
    ).toEqual(ZERO_POWER);
    expectDeadline(setup.store, setup.deadline, {
      terminations: [1, 3, 6],
      faults: [5],
      unproven: [2, 4, 7, 8, 9],
      partitions: NINE_IN_THREE,
    });
  });

  test('fails to terminate a sector not in the partition', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, false);
    expectActorError(() => terminate(setup, 15n, [[0, [6]]]), ExitCode.UsrIllegalArgument);
  });

  test('fails to terminate in a missing partition', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, false);
    expectActorError(() => terminate(setup, 15n, [[4, [6]]]), ExitCode.UsrNotFound);
  });

  test('fails to terminate an already terminated sector', () => {
    const setup = newDeadline();
    addThenTerminate(setup, false);
    expectActorError(() => terminate(setup, 15n, [[0, [1, 2]]]), ExitCode.UsrIllegalArgument);
  });

  test('faulty sectors expire', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, true);
    const { store, deadline } = setup;
    // Every sector but 7 has expired by epoch 9; 6 early, as a fault.
    const expired = deadline.popExpiredSectors(store, 9n, QUANT);
    expect(numbers(expired.onTimeSectors)).toEqual([1, 2, 3, 4, 5, 8, 9]);
    expect(numbers(expired.earlySectors)).toEqual([6]);
    const afterExpiry = { terminations: [1, 2, 3, 4, 5, 6, 8, 9], partitions: NINE_IN_THREE };
    expectDeadline(store, deadline, afterExpiry);

    const { result, hasMore } = deadline.popEarlyTerminations(store, 100n, 100n);
    expect(hasMore).toBe(false);
    expect([result.partitionsProcessed, result.sectorsProcessed]).toEqual([1n, 1n]);
    expect([...result.sectors.keys()]).toEqual([9n]);
    expect(numbers(result.sectors.get(9n)!)).toEqual([6]);
    expectDeadline(store, deadline, afterExpiry);
  });

  test('cannot pop expired sectors before proving', () => {
    const setup = newDeadline();
    addSectors(setup, false);
    expectActorError(
      () => setup.deadline.popExpiredSectors(setup.store, 9n, QUANT),
      ExitCode.UsrIllegalState,
      'cannot pop expired sectors from a partition with unproven sectors',
    );
  });

  test('post all the things', () => {
    const setup = newDeadline();
    const array = addSectorsThenAnInactiveOne(setup, false);
    const { store, deadline } = setup;

    const first = prove(setup, array, [0, []], [1, []]);
    expect(numbers(first.sectors)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(first.ignoredSectors.isEmpty()).toBe(true);
    expect([first.newFaultyPower, first.retractedRecoveryPower, first.recoveredPower]).toEqual([
      ZERO_POWER,
      ZERO_POWER,
      ZERO_POWER,
    ]);
    expectDeadline(store, deadline, { posts: [0, 1], unproven: [10], partitions: NINE_AND_TEN });

    const second = prove(setup, array, [2, []]);
    expect(numbers(second.sectors)).toEqual([9, 10]);
    expect(second.ignoredSectors.isEmpty()).toBe(true);
    expect([second.newFaultyPower, second.retractedRecoveryPower, second.recoveredPower]).toEqual([
      ZERO_POWER,
      ZERO_POWER,
      ZERO_POWER,
    ]);
    // Sector 10's power is activated.
    expect(second.powerDelta).toEqual(sectorPower(10));
    expectDeadline(store, deadline, { posts: [0, 1, 2], partitions: NINE_AND_TEN });

    const ended = endWindow(setup, array);
    expect([ended.powerDelta, ended.detectedFaultyPower]).toEqual([ZERO_POWER, ZERO_POWER]);
    expectDeadline(store, deadline, { partitions: NINE_AND_TEN });
  });

  test('post with unproven sectors, faults, recoveries and retracted recoveries', () => {
    const setup = newDeadline();
    const array = addSectorsThenAnInactiveOne(setup, true);
    const { store, deadline } = setup;
    deadline.declareFaultsRecovered(
      store,
      array,
      SECTOR_SIZE,
      partitionMap([
        [0, [1]],
        [1, [6]],
      ]),
    );
    expectDeadline(store, deadline, {
      recovering: [1, 6],
      faults: [1, 5, 6],
      unproven: [10],
      partitions: NINE_AND_TEN,
    });

    // Partitions 0 and 1 proven, skipping 1 (recovering) and 7.
    const result = prove(setup, array, [0, [1]], [1, [7]]);
    expect(numbers(result.sectors)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(numbers(result.ignoredSectors)).toEqual([1, 5, 7]);
    expect(result.newFaultyPower).toEqual(sectorPower(7));
    expect(result.retractedRecoveryPower).toEqual(sectorPower(1));
    expect(result.recoveredPower).toEqual(sectorPower(6));
    expect(result.powerDelta).toEqual(ZERO_POWER);
    expectDeadline(store, deadline, { posts: [0, 1], faults: [1, 5, 7], unproven: [10], partitions: NINE_AND_TEN });

    // Partition 2 was not proven: 9 loses its power, 9 and 10 are penalized.
    const ended = endWindow(setup, array);
    expect(ended.powerDelta).toEqual(negPower(sectorPower(9)));
    expect(ended.detectedFaultyPower).toEqual(sectorPower(9, 10));
    expectDeadline(store, deadline, { faults: [1, 5, 7, 9, 10], partitions: NINE_AND_TEN });
  });

  test('post with a skipped unproven sector', () => {
    const setup = newDeadline();
    const array = addSectorsThenAnInactiveOne(setup, false);
    const { store, deadline } = setup;
    const result = prove(setup, array, [0, []], [1, []], [2, [10]]);
    expect(numbers(result.sectors)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(numbers(result.ignoredSectors)).toEqual([10]);
    expect(result.newFaultyPower).toEqual(sectorPower(10));
    expect([result.powerDelta, result.retractedRecoveryPower, result.recoveredPower]).toEqual([
      ZERO_POWER,
      ZERO_POWER,
      ZERO_POWER,
    ]);
    expectDeadline(store, deadline, { posts: [0, 1, 2], faults: [10], partitions: NINE_AND_TEN });

    const ended = endWindow(setup, array);
    expect([ended.powerDelta, ended.detectedFaultyPower]).toEqual([ZERO_POWER, ZERO_POWER]);
    expectDeadline(store, deadline, { faults: [10], partitions: NINE_AND_TEN });
  });

  test('post of a missing partition', () => {
    const setup = newDeadline();
    const array = addSectorsThenAnInactiveOne(setup, false);
    expectActorError(() => prove(setup, array, [0, []], [3, []]), ExitCode.UsrNotFound);
  });

  test('post of a partition twice', () => {
    const setup = newDeadline();
    const array = addSectorsThenAnInactiveOne(setup, false);
    expectActorError(
      () => prove(setup, array, [0, []], [0, []]),
      ExitCode.UsrIllegalArgument,
      'duplicate partitions proven',
    );
  });

  test('retract recoveries', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, true);
    const { store, deadline } = setup;
    const array = sectorsArray(store, sectors());
    deadline.declareFaultsRecovered(
      store,
      array,
      SECTOR_SIZE,
      partitionMap([
        [0, [1]],
        [1, [6]],
      ]),
    );
    // Declaring 1 faulty again retracts its recovery: not a new fault.
    const delta = deadline.recordFaults(store, array, SECTOR_SIZE, QUANT, FAULT_EXPIRATION, partitionMap([[0, [1]]]));
    expect(delta).toEqual(ZERO_POWER);
    expectDeadline(store, deadline, { recovering: [6], faults: [1, 5, 6], partitions: NINE_IN_THREE });

    const result = prove(setup, array, [0, []], [1, []], [2, []]);
    expect(numbers(result.sectors)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(numbers(result.ignoredSectors)).toEqual([1, 5]);
    expect(result.newFaultyPower).toEqual(ZERO_POWER);
    expect(result.retractedRecoveryPower).toEqual(ZERO_POWER);
    expect(result.recoveredPower).toEqual(sectorPower(6));
    expectDeadline(store, deadline, { posts: [0, 1, 2], faults: [1, 5], partitions: NINE_IN_THREE });

    const ended = endWindow(setup, array);
    expect([ended.powerDelta, ended.detectedFaultyPower]).toEqual([ZERO_POWER, ZERO_POWER]);
    expectDeadline(store, deadline, { faults: [1, 5], partitions: NINE_IN_THREE });
  });

  test('cannot declare faults in missing partitions', () => {
    const setup = newDeadline();
    addSectors(setup, true);
    const { store, deadline } = setup;
    const map = partitionMap([
      [0, [1]],
      [4, [6]],
    ]);
    expectActorError(
      () => deadline.recordFaults(store, sectorsArray(store, sectors()), SECTOR_SIZE, QUANT, 17n, map),
      ExitCode.UsrNotFound,
    );
  });

  test('cannot declare faults recovered in missing partitions', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, true);
    const { store, deadline } = setup;
    const map = partitionMap([
      [0, [1]],
      [4, [6]],
    ]);
    expectActorError(
      () => deadline.declareFaultsRecovered(store, sectorsArray(store, sectors()), SECTOR_SIZE, map),
      ExitCode.UsrNotFound,
    );
  });
});

describe('Deadline proofs and snapshots', () => {
  const proof = (byte: number) => [{ postProof: 3n, proofBytes: new Uint8Array([byte]) }];

  test('optimistic proofs become the disputable snapshot at the window end, with the sectors', () => {
    const setup = newDeadline();
    addSectors(setup, true);
    const { store, deadline } = setup;
    const array = sectorsArray(store, sectors());
    expect(deadline.isLive()).toBe(true);
    prove(setup, array, [0, []], [1, []]);
    deadline.recordPoStProofs(store, bf(0, 1), proof(7));
    prove(setup, array, [2, []]);
    deadline.recordPoStProofs(store, bf(2), proof(8));
    const sectorsRoot = array.flush();
    deadline.processDeadlineEnd(store, QUANT, FAULT_EXPIRATION, sectorsRoot);
    expect(deadline.sectorsSnapshot.equals(sectorsRoot)).toBe(true);
    expect(deadline.partitionsSnapshot.equals(deadline.partitions)).toBe(true);
    expect(Amt.load(store, deadline.optimisticPoStSubmissions).count).toBe(0);
    expect(Amt.load(store, deadline.optimisticPoStSubmissionsSnapshot).count).toBe(2);

    // Disputing proof 0 takes it out, leaving proof 1 at its index.
    const taken = deadline.takePoStProofs(store, 0n);
    expect(numbers(taken.partitions)).toEqual([0, 1]);
    expect(taken.proofs).toEqual(proof(7));
    const snapshot = Amt.load(store, deadline.optimisticPoStSubmissionsSnapshot);
    expect([snapshot.count, snapshot.has(0), snapshot.has(1)]).toEqual([1, false, true]);
    expectActorError(() => deadline.takePoStProofs(store, 0n), ExitCode.UsrIllegalArgument, 'proof 0 not found');

    const dispute = deadline.loadPartitionsForDispute(store, taken.partitions);
    expect(numbers(dispute.allSectorNos)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(dispute.ignoredSectorNos.isEmpty()).toBe(true);
    expect([...dispute.disputedSectors.entries()].map(([i, s]) => [Number(i), numbers(s)])).toEqual([
      [0, [1, 2, 3, 4]],
      [1, [5, 6, 7, 8]],
    ]);
    expect(dispute.disputedPower).toEqual(sectorPower(1, 2, 3, 4, 5, 6, 7, 8));
    expectActorError(() => deadline.loadPartitionsForDispute(store, bf(3)), ExitCode.UsrIllegalState);

    // The next window end without proofs drops the sectors snapshot.
    deadline.processDeadlineEnd(store, QUANT, FAULT_EXPIRATION, sectorsRoot);
    expect(deadline.sectorsSnapshot.equals(sectorsRoot)).toBe(false);
    expect(Amt.load(store, deadline.sectorsSnapshot).bitWidth).toBe(SECTORS_AMT_BITWIDTH);
  });

  test('a partition already proven in the window is refused', () => {
    const setup = newDeadline();
    addSectors(setup, true);
    const array = sectorsArray(setup.store, sectors());
    prove(setup, array, [0, []]);
    expectActorError(
      () => prove(setup, array, [0, []], [1, []]),
      ExitCode.UsrIllegalArgument,
      'partition already proven: 0',
    );
  });

  test('a deadline with neither sectors nor changes since its snapshot is not live', () => {
    const setup = newDeadline();
    const { store, deadline } = setup;
    expect(deadline.isLive()).toBe(false);
    deadline.addSectors(store, PARTITION_SIZE, true, true, sectors(), SECTOR_SIZE, QUANT);
    const array = sectorsArray(store, sectors());
    deadline.terminateSectors(store, array, 5n, partitionMap(NINE_IN_THREE.map((s, i) => [i, s])), SECTOR_SIZE, QUANT);
    expect(deadline.liveSectors).toBe(0n);
    // The partitions changed since the snapshot: one more deadline end brings it up to date.
    expect(deadline.isLive()).toBe(true);
    endWindow(setup, array);
    expect(deadline.isLive()).toBe(false);
  });

  test('rescheduling expirations moves active sectors and skips missing partitions', () => {
    const setup = newDeadline();
    addThenMarkFaulty(setup, true);
    const { store, deadline } = setup;
    const array = sectorsArray(store, sectors());
    const moved = deadline.rescheduleSectorExpirations(
      store,
      array,
      21n,
      partitionMap([
        [0, [1, 2]],
        [1, [6, 7]],
        [7, [9]],
      ]),
      SECTOR_SIZE,
      QUANT,
    );
    // 1 and 6 are faulty: only 2 and 7 move, to the quantized epoch 21.
    expect(moved.map((sector) => Number(sector.sectorNumber))).toEqual([2, 7]);
    const queue = [...Amt.load(store, deadline.expirationsEpochs).entries()].map(([epoch]) => epoch);
    expect(queue).toContain(21n);
    // The caller stores the sectors with their new expiration; against those the state is consistent.
    const byNumber = new Map(allSectors().map((sector) => [sector.sectorNumber, sector]));
    for (const n of [2n, 7n]) byNumber.set(n, { ...byNumber.get(n)!, expiration: 21n });
    const summary = checkDeadlineStateInvariants(deadline, store, QUANT, SECTOR_SIZE, byNumber);
    expect(summary.problems).toEqual([]);
    expect(numbers(summary.faultySectors)).toEqual([1, 5, 6]);
  });

  test('activating all unproven sectors proves every partition without changing the deadline sums', () => {
    const { store, deadline } = newDeadline();
    deadline.addSectors(store, PARTITION_SIZE, false, true, sectors(), SECTOR_SIZE, QUANT);
    const livePower = deadline.livePower;
    deadline.activateAllUnproven(store);
    expect(deadline.livePower).toEqual(livePower);
    expectDeadline(store, deadline, { partitions: NINE_IN_THREE });
  });
});

describe('Deadline and Deadlines blocks', () => {
  test('a new deadline has empty collections of builtin-actors bit widths', () => {
    const { store, deadline } = newDeadline();
    const widths = [
      deadline.partitions,
      deadline.expirationsEpochs,
      deadline.optimisticPoStSubmissions,
      deadline.sectorsSnapshot,
      deadline.partitionsSnapshot,
      deadline.optimisticPoStSubmissionsSnapshot,
    ].map((root) => Amt.load(store, root).bitWidth);
    expect(widths).toEqual([
      DEADLINE_PARTITIONS_AMT_BITWIDTH,
      DEADLINE_EXPIRATIONS_AMT_BITWIDTH,
      DEADLINE_OPTIMISTIC_POST_SUBMISSIONS_AMT_BITWIDTH,
      SECTORS_AMT_BITWIDTH,
      DEADLINE_PARTITIONS_AMT_BITWIDTH,
      DEADLINE_OPTIMISTIC_POST_SUBMISSIONS_AMT_BITWIDTH,
    ]);
    expect([3, 5, 2, 5]).toEqual(widths.slice(0, 4));
  });

  test('a deadline is a 13-field tuple and round-trips', () => {
    const setup = newDeadline();
    addThenTerminate(setup, true);
    const bytes = deadlineStruct.encode(setup.deadline);
    expect(decodeCbor(bytes)).toHaveLength(13);
    const decoded = Deadline.fromState(deadlineStruct.decode(bytes));
    expect(deadlineStruct.encode(decoded)).toEqual(bytes);
    expect(decoded.toState()).toEqual(setup.deadline.toState());
    const json = deadlineStruct.toLotusJson(setup.deadline);
    expect(Object.keys(json)).toEqual([
      'Partitions',
      'ExpirationsEpochs',
      'PartitionsPoSted',
      'EarlyTerminations',
      'LiveSectors',
      'TotalSectors',
      'FaultyPower',
      'OptimisticPoStSubmissions',
      'SectorsSnapshot',
      'PartitionsSnapshot',
      'OptimisticPoStSubmissionsSnapshot',
      'LivePower',
      'DailyFee',
    ]);
    expect([json.LiveSectors, json.TotalSectors, json.EarlyTerminations]).toEqual([6, 9, [0, 2]]);
  });

  test('a WindowedPoSt is [partitions, proofs]', () => {
    const value = { partitions: bf(0, 2), proofs: [{ postProof: 10n, proofBytes: new Uint8Array([1, 2]) }] };
    const node = decodeCbor(windowedPoStStruct.encode(value)) as unknown[];
    expect(node).toHaveLength(2);
    expect(windowedPoStStruct.decode(windowedPoStStruct.encode(value))).toEqual(value);
  });

  test('a new miner has 48 deadlines pointing at one empty deadline', () => {
    const store = new MemoryBlockstore();
    const root = Deadlines.emptyRoot(store, MAINNET.minerPolicy);
    const deadlines = Deadlines.load(store, root);
    expect(deadlines.count).toBe(48n);
    expect(new Set(deadlines.due.map(String)).size).toBe(1);
    expect(deadlinesStruct.decode(store.get(root)!).due).toHaveLength(48);
    const first = deadlines.loadDeadline(store, 0n);
    expect(first.toState()).toEqual(Deadline.create(store).toState());
    expectActorError(
      () => deadlines.loadDeadline(store, 48n),
      ExitCode.UsrIllegalArgument,
      'invalid deadline index 48',
    );
  });

  test('updating a deadline changes its entry only; findSector locates a sector', () => {
    const store = new MemoryBlockstore();
    const deadlines = Deadlines.load(store, Deadlines.emptyRoot(store, MAINNET.minerPolicy));
    const before = [...deadlines.due];
    const deadline = deadlines.loadDeadline(store, 5n);
    deadline.addSectors(store, PARTITION_SIZE, false, true, sectors(), SECTOR_SIZE, QUANT);
    deadlines.updateDeadline(store, 5n, deadline);
    const reloaded = Deadlines.load(store, deadlines.flush(store));
    expect(reloaded.due.filter((cid, i) => !cid.equals(before[i]!)).length).toBe(1);
    expect(reloaded.loadDeadline(store, 5n).liveSectors).toBe(9n);
    expect(reloaded.findSector(store, 6n)).toEqual({ deadline: 5n, partition: 1n });
    expectActorError(
      () => reloaded.findSector(store, 99n),
      ExitCode.UsrIllegalState,
      'sector 99 not due at any deadline',
    );
  });

  test('a deadline with more live sectors than total is refused on update', () => {
    const store = new MemoryBlockstore();
    const deadlines = Deadlines.load(store, Deadlines.emptyRoot(store, MAINNET.minerPolicy));
    const deadline = deadlines.loadDeadline(store, 0n);
    deadline.liveSectors = 1n;
    expectActorError(
      () => deadlines.updateDeadline(store, 0n, deadline),
      ExitCode.UsrIllegalState,
      'more live sectors',
    );
  });
});

describe('sector maps', () => {
  test('walk deadlines and partitions in ascending order, merging what is added twice', () => {
    const policy = MAINNET.minerPolicy;
    const map = new DeadlineSectorMap();
    map.add(policy, 7n, 2n, bf(5));
    map.add(policy, 3n, 9n, bf(1, 2));
    map.add(policy, 7n, 0n, bf(4));
    map.add(policy, 7n, 2n, bf(6));
    const walked = [...map.entries()].map(([deadline, partitions]) => [
      Number(deadline),
      [...partitions.entries()].map(([partition, sectorNumbers]) => [Number(partition), numbers(sectorNumbers)]),
    ]);
    expect(walked).toEqual([
      [3, [[9, [1, 2]]]],
      [
        7,
        [
          [0, [4]],
          [2, [5, 6]],
        ],
      ],
    ]);
    expect(map.count()).toEqual({ partitions: 3n, sectors: 5n });
  });

  test('refuse a deadline past the period and more than a message may address', () => {
    const policy = MAINNET.minerPolicy;
    const map = new DeadlineSectorMap();
    expectActorError(() => map.add(policy, 48n, 0n, bf(1)), ExitCode.UsrIllegalArgument, 'invalid deadline 48');
    map.add(policy, 0n, 0n, bf(1, 2, 3));
    map.add(policy, 1n, 0n, bf(4));
    expect(() => map.check(2n, 4n)).not.toThrow();
    expectActorError(() => map.check(1n, 4n), ExitCode.UsrIllegalArgument, 'too many partitions 2, max 1');
    expectActorError(() => map.check(2n, 3n), ExitCode.UsrIllegalArgument, 'too many sectors 4, max 3');
  });
});
