/**
 * The expiration queue and its sets, on the scenarios of builtin-actors
 * `actors/miner/tests/expiration_queue.rs` and `src/expiration_queue/tests.rs` (same sectors, same
 * quantization, same expected sets), plus the FIP-0100 encoding rule: a 5-field entry decodes with
 * no fee deduction, is written back with 6 fields only when an operation changes it.
 */
import { Amt, BitField, MemoryBlockstore } from '../../../src/ipld/index.js';
import type { CborNode } from '../../../src/types/cbor-node.js';
import {
  addToExpirationSet,
  ExpirationQueue,
  type ExpirationSet,
  emptyExpirationSet,
  expirationSetFromCborNode,
  expirationSetLength,
  expirationSetStruct,
  groupNewSectorsByDeclaredExpiration,
  isEmptyExpirationSet,
  removeFromExpirationSet,
} from '../../../src/vm/actors/miner/expiration-queue.js';
import { type PowerPair, ZERO_POWER } from '../../../src/vm/actors/miner/power-pair.js';
import { NO_QUANTIZATION, type QuantSpec, quantizeDown, quantizeUp } from '../../../src/vm/actors/miner/quantize.js';
import { powerForSectors } from '../../../src/vm/actors/miner/sectors.js';
import { ExitCode } from '../../../src/vm/exit-code.js';
import { catchActorError } from '../../helpers/actor-error.js';
import { SECTOR_SIZE_32GIB as SECTOR_SIZE, sixSectors, testSector } from './sector-fixtures.js';

const bf = (...values: number[]) => BitField.of(values);
const powerPair = (factor: bigint, shift: bigint): PowerPair => ({
  raw: factor * (1n << shift),
  qa: factor * (1n << (shift + 1n)),
});
const delta = (
  onTimeSectors: BitField,
  earlySectors: BitField,
  onTimePledge: bigint,
  activePower: PowerPair,
  faultyPower: PowerPair,
  feeDeduction: bigint,
): ExpirationSet => ({ onTimeSectors, earlySectors, onTimePledge, activePower, faultyPower, feeDeduction });

function defaultSet(): ExpirationSet {
  const set = emptyExpirationSet();
  addToExpirationSet(
    set,
    delta(bf(5, 8, 9), bf(2, 3), 1000n, { raw: 1n << 13n, qa: 1n << 14n }, { raw: 1n << 11n, qa: 1n << 12n }, 2000n),
  );
  return set;
}

function emptyQueue(quant: QuantSpec = NO_QUANTIZATION): { store: MemoryBlockstore; queue: ExpirationQueue } {
  const store = new MemoryBlockstore();
  return { store, queue: ExpirationQueue.load(store, ExpirationQueue.emptyRoot(store), quant) };
}

/** builtin-actors `require_no_expiration_groups_before`: nothing is due before `epoch`. */
function expectNothingBefore(queue: ExpirationQueue, epoch: bigint): void {
  expect(isEmptyExpirationSet(queue.popUntil(epoch - 1n))).toBe(true);
}

const sectors = sixSectors();
const power = (from: number, to: number) => powerForSectors(SECTOR_SIZE, sectors.slice(from, to));
const QUANT_4_1: QuantSpec = { unit: 4n, offset: 1n };

describe('ExpirationSet', () => {
  test('adds sectors and power to an empty set', () => {
    const set = defaultSet();
    expect(set.onTimeSectors.equals(bf(5, 8, 9))).toBe(true);
    expect(set.earlySectors.equals(bf(2, 3))).toBe(true);
    expect(set.onTimePledge).toBe(1000n);
    expect(set.activePower).toEqual({ raw: 8192n, qa: 16384n });
    expect(set.faultyPower).toEqual({ raw: 2048n, qa: 4096n });
    expect(set.feeDeduction).toBe(2000n);
    expect(expirationSetLength(set)).toBe(5n);
  });

  test('adds sectors and power to a non-empty set', () => {
    const set = defaultSet();
    addToExpirationSet(set, delta(bf(6, 7, 11), bf(1, 4), 300n, powerPair(3n, 13n), powerPair(3n, 11n), 500n));
    expect([...set.onTimeSectors.values()]).toEqual([5n, 6n, 7n, 8n, 9n, 11n]);
    expect([...set.earlySectors.values()]).toEqual([1n, 2n, 3n, 4n]);
    expect(set.onTimePledge).toBe(1300n);
    expect(set.activePower).toEqual(powerPair(1n, 15n));
    expect(set.faultyPower).toEqual(powerPair(1n, 13n));
  });

  test('removes sectors and power', () => {
    const set = defaultSet();
    removeFromExpirationSet(set, delta(bf(9), bf(2), 800n, powerPair(3n, 11n), powerPair(3n, 9n), 1200n));
    expect([...set.onTimeSectors.values()]).toEqual([5n, 8n]);
    expect([...set.earlySectors.values()]).toEqual([3n]);
    expect(set.onTimePledge).toBe(200n);
    expect(set.activePower).toEqual(powerPair(1n, 11n));
    expect(set.faultyPower).toEqual(powerPair(1n, 9n));
    expect(set.feeDeduction).toBe(800n);
  });

  test('remove fails on pledge, fee or power underflow, and on sectors it does not contain', () => {
    const cases: Array<[ExpirationSet, string]> = [
      [delta(bf(9), bf(2), 1200n, powerPair(3n, 11n), powerPair(3n, 9n), 800n), 'pledge underflow'],
      [delta(bf(9), bf(2), 800n, powerPair(3n, 11n), powerPair(3n, 9n), 2200n), 'fee deduction underflow'],
      [delta(bf(9), bf(2), 200n, powerPair(3n, 12n), powerPair(3n, 9n), 600n), 'power underflow'],
      [delta(bf(9), bf(2), 200n, powerPair(3n, 11n), powerPair(3n, 10n), 700n), 'power underflow'],
      [delta(bf(12), bf(), 0n, powerPair(3n, 11n), powerPair(3n, 9n), 0n), 'not contained'],
      [delta(bf(0), bf(8), 0n, powerPair(3n, 11n), powerPair(3n, 9n), 0n), 'not contained'],
    ];
    for (const [removal, message] of cases) {
      const error = catchActorError(() => removeFromExpirationSet(defaultSet(), removal));
      expect(error.exitCode).toBe(ExitCode.UsrIllegalState);
      expect(error.message).toContain(message);
    }
  });

  test('is empty when all sectors are removed', () => {
    const set = emptyExpirationSet();
    expect(isEmptyExpirationSet(set)).toBe(true);
    const all = delta(bf(5, 8, 9), bf(2, 3), 1000n, powerPair(1n, 13n), powerPair(1n, 11n), 2000n);
    addToExpirationSet(set, all);
    expect(isEmptyExpirationSet(set)).toBe(false);
    removeFromExpirationSet(set, all);
    expect(isEmptyExpirationSet(set)).toBe(true);
    expect(expirationSetLength(set)).toBe(0n);
  });

  test('decodes 5 fields (before FIP-0100) with no fee deduction and always encodes 6', () => {
    const set = defaultSet();
    const five = expirationSetStruct.toCborNodeOfLength(set, 5);
    expect(five).toHaveLength(5);
    const decoded = expirationSetFromCborNode(five);
    expect(decoded.feeDeduction).toBe(0n);
    expect(decoded.onTimePledge).toBe(1000n);
    expect(expirationSetStruct.toCborNode(decoded)).toHaveLength(6);
    expect(() => expirationSetFromCborNode(five.slice(0, 4))).toThrow('ExpirationSet');
  });
});

describe('groupNewSectorsByDeclaredExpiration', () => {
  test('groups by quantized expiration, earliest first, keeping the sectors in order', () => {
    const quant = { unit: 10n, offset: 3n };
    const groups = groupNewSectorsByDeclaredExpiration(
      2048n,
      [
        testSector(7n, 1n, 0n, 0n, 0n, 0n),
        testSector(8n, 2n, 0n, 0n, 0n, 0n),
        testSector(14n, 3n, 0n, 0n, 0n, 0n),
        testSector(13n, 4n, 0n, 0n, 0n, 0n),
      ],
      quant,
    );
    expect(groups.map((g) => [g.epoch, g.sectors, g.power])).toEqual([
      [13n, [1n, 2n, 4n], { raw: 2048n * 3n, qa: 2048n * 3n }],
      [23n, [3n], { raw: 2048n, qa: 2048n }],
    ]);
    expect(groupNewSectorsByDeclaredExpiration(2048n, [], NO_QUANTIZATION)).toEqual([]);
  });
});

describe('ExpirationQueue', () => {
  test('added sectors can be popped off the queue', () => {
    const { queue } = emptyQueue();
    const added = queue.addActiveSectors(sectors, SECTOR_SIZE);
    expect([...added.sectorNumbers.values()]).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(added.power).toEqual(power(0, 6));
    expect(added.pledge).toBe(6015n);
    expect(added.dailyFee).toBe(3000n + 4000n + 5000n + 6000n + 7000n + 8000n);
    // Without quantization every sector is in its own set.
    expect(queue.count).toBe(6);
    queue.flush();

    let set = queue.popUntil(7n);
    expect(queue.count).toBe(3);
    expect(set.onTimeSectors.equals(bf(1, 2, 3))).toBe(true);
    expect(set.earlySectors.isEmpty()).toBe(true);
    expect(set.onTimePledge).toBe(3003n);
    expect(set.activePower).toEqual(power(0, 3));
    expect(set.faultyPower).toEqual(ZERO_POWER);

    set = queue.popUntil(20n);
    expect(set.onTimeSectors.equals(bf(4, 5, 6))).toBe(true);
    expect(set.onTimePledge).toBe(3012n);
    // The six sectors have the same power, so the last three's sum is the first three's.
    expect(set.activePower).toEqual(power(3, 6));
    expect(set.feeDeduction).toBe(6000n + 7000n + 8000n);
    expect(queue.count).toBe(0);
  });

  test('quantizes added sectors by expiration', () => {
    const { queue } = emptyQueue({ unit: 5n, offset: 3n });
    queue.addActiveSectors(sectors, SECTOR_SIZE);
    // Sets at 3, 8 and 13.
    expect(queue.count).toBe(3);
    const steps: Array<[bigint, number[], number]> = [
      [2n, [], 3],
      [3n, [1, 2], 2],
      [7n, [], 2],
      [8n, [3, 4], 1],
      [12n, [], 1],
      [13n, [5, 6], 0],
    ];
    for (const [until, popped, left] of steps) {
      expect([...queue.popUntil(until).onTimeSectors.values()].map(Number)).toEqual(popped);
      expect(queue.count).toBe(left);
      queue.flush();
    }
  });

  test('reschedules sectors as faults', () => {
    const { queue } = emptyQueue(QUANT_4_1);
    queue.addActiveSectors(sectors, SECTOR_SIZE);
    queue.flush();
    // Faulting 2–5 at epoch 6: 2, 3 and 4 expire on time by then (sets 5 and 9), 5 moves to 9 as early.
    expect(queue.rescheduleAsFaults(6n, sectors.slice(1, 5), SECTOR_SIZE)).toEqual(power(1, 5));
    queue.flush();

    expectNothingBefore(queue, 5n);
    let set = queue.popUntil(5n);
    expect(set.onTimeSectors.equals(bf(1, 2))).toBe(true);
    expect(set.earlySectors.isEmpty()).toBe(true);
    expect(set.onTimePledge).toBe(2001n);
    expect(set.activePower).toEqual(power(0, 1));
    expect(set.faultyPower).toEqual(power(1, 2));

    expectNothingBefore(queue, 9n);
    set = queue.popUntil(9n);
    expect(set.onTimeSectors.equals(bf(3, 4))).toBe(true);
    expect(set.earlySectors.equals(bf(5))).toBe(true);
    // The early sector's pledge is not added; its fee is deducted here now.
    expect(set.onTimePledge).toBe(2005n);
    expect(set.activePower).toEqual(ZERO_POWER);
    expect(set.faultyPower).toEqual(power(2, 5));
    expect(set.feeDeduction).toBe(5000n + 6000n + 7000n);

    expectNothingBefore(queue, 13n);
    set = queue.popUntil(13n);
    expect(set.onTimeSectors.equals(bf(6))).toBe(true);
    expect(set.onTimePledge).toBe(1005n);
    expect(set.activePower).toEqual(power(5, 6));
    expect(set.faultyPower).toEqual(ZERO_POWER);
    expect(set.feeDeduction).toBe(8000n);
  });

  test('reschedules all sectors as faults', () => {
    const { queue } = emptyQueue(QUANT_4_1);
    queue.addActiveSectors(sectors, SECTOR_SIZE);
    queue.flush();
    queue.rescheduleAllAsFaults(6n);
    queue.flush();

    expectNothingBefore(queue, 5n);
    let set = queue.popUntil(5n);
    expect(set.onTimeSectors.equals(bf(1, 2))).toBe(true);
    expect(set.onTimePledge).toBe(2001n);
    expect(set.activePower).toEqual(ZERO_POWER);
    expect(set.faultyPower).toEqual(power(0, 2));

    expectNothingBefore(queue, 9n);
    set = queue.popUntil(9n);
    expect(set.onTimeSectors.equals(bf(3, 4))).toBe(true);
    expect(set.earlySectors.equals(bf(5, 6))).toBe(true);
    expect(set.onTimePledge).toBe(2005n);
    expect(set.activePower).toEqual(ZERO_POWER);
    expect(set.faultyPower).toEqual(power(2, 6));
    expect(set.feeDeduction).toBe(5000n + 6000n + 7000n + 8000n);

    expectNothingBefore(queue, 13n);
    expect(isEmptyExpirationSet(queue.popUntil(13n))).toBe(true);
    expect(queue.count).toBe(0);
  });

  test('rescheduling recovered sectors restores every sum', () => {
    const { queue } = emptyQueue(QUANT_4_1);
    queue.addActiveSectors(sectors, SECTOR_SIZE);
    queue.flush();
    queue.rescheduleAsFaults(6n, sectors.slice(1, 5), SECTOR_SIZE);
    queue.flush();
    expect(queue.rescheduleRecovered(sectors.slice(1, 5), SECTOR_SIZE)).toEqual(power(1, 5));

    const expected: Array<[bigint, number[], bigint, PowerPair, bigint]> = [
      [5n, [1, 2], 2001n, power(0, 2), 7000n],
      [9n, [3, 4], 2005n, power(2, 4), 11000n],
      [13n, [5, 6], 2009n, power(4, 6), 15000n],
    ];
    for (const [epoch, onTime, pledge, active, fee] of expected) {
      expectNothingBefore(queue, epoch);
      const set = queue.popUntil(epoch);
      expect([...set.onTimeSectors.values()].map(Number)).toEqual(onTime);
      expect(set.earlySectors.isEmpty()).toBe(true);
      expect(set.onTimePledge).toBe(pledge);
      expect(set.activePower).toEqual(active);
      expect(set.faultyPower).toEqual(ZERO_POWER);
      expect(set.feeDeduction).toBe(fee);
    }
  });

  test('replaces sectors with new sectors', () => {
    const { queue } = emptyQueue(QUANT_4_1);
    const [s1, s2, s3, s4, s5, s6] = sectors as [
      (typeof sectors)[0],
      (typeof sectors)[0],
      (typeof sectors)[0],
      (typeof sectors)[0],
      (typeof sectors)[0],
      (typeof sectors)[0],
    ];
    queue.addActiveSectors([s1, s2, s4, s6], SECTOR_SIZE);
    queue.flush();
    // Empty the first set, replace the second's sector, append to the third.
    const toRemove = [s1, s2, s4];
    const toAdd = [s3, s5];
    const replaced = queue.replaceSectors(toRemove, toAdd, SECTOR_SIZE);
    expect([...replaced.oldSectorNumbers.values()]).toEqual([1n, 2n, 4n]);
    expect([...replaced.newSectorNumbers.values()]).toEqual([3n, 5n]);
    const removedPower = powerForSectors(SECTOR_SIZE, toRemove);
    const addedPower = powerForSectors(SECTOR_SIZE, toAdd);
    expect(replaced.powerDelta).toEqual({
      raw: addedPower.raw - removedPower.raw,
      qa: addedPower.qa - removedPower.qa,
    });
    expect(replaced.pledgeDelta).toBe(1002n + 1004n - 1000n - 1001n - 1003n);
    expect(replaced.dailyFeeDelta).toBe(5000n + 7000n - 3000n - 4000n - 6000n);

    expectNothingBefore(queue, 9n);
    let set = queue.popUntil(9n);
    expect(set.onTimeSectors.equals(bf(3))).toBe(true);
    expect(set.onTimePledge).toBe(1002n);
    expect(set.activePower).toEqual(power(2, 3));

    expectNothingBefore(queue, 13n);
    set = queue.popUntil(13n);
    expect(set.onTimeSectors.equals(bf(5, 6))).toBe(true);
    expect(set.onTimePledge).toBe(2009n);
    expect(set.activePower).toEqual(power(4, 6));
  });

  test('removes active, faulty and early sectors', () => {
    const { queue } = emptyQueue(QUANT_4_1);
    queue.addActiveSectors(sectors, SECTOR_SIZE);
    queue.flush();
    // 2–6 faulty: 2, 3, 4 stay on time (faulty power), 5 and 6 move to 9 as early.
    queue.rescheduleAsFaults(6n, sectors.slice(1), SECTOR_SIZE);
    queue.flush();
    const toRemove = [sectors[0]!, sectors[3]!, sectors[4]!, sectors[5]!];
    const { removed, recoveringPower } = queue.removeSectors(toRemove, bf(4, 5, 6), bf(6), SECTOR_SIZE);
    expect(removed.onTimeSectors.equals(bf(1, 4))).toBe(true);
    expect(removed.earlySectors.equals(bf(5, 6))).toBe(true);
    expect(removed.onTimePledge).toBe(1000n + 1003n);
    expect(removed.activePower).toEqual(power(0, 1));
    expect(removed.faultyPower).toEqual(power(3, 6));
    expect(removed.feeDeduction).toBe(3000n + 6000n + 7000n + 8000n);
    expect(recoveringPower).toEqual(power(5, 6));

    expectNothingBefore(queue, 5n);
    let set = queue.popUntil(5n);
    expect(set.onTimeSectors.equals(bf(2))).toBe(true);
    expect(set.earlySectors.isEmpty()).toBe(true);
    expect(set.onTimePledge).toBe(1001n);
    expect(set.activePower).toEqual(ZERO_POWER);
    expect(set.faultyPower).toEqual(power(1, 2));

    expectNothingBefore(queue, 9n);
    set = queue.popUntil(9n);
    expect(set.onTimeSectors.equals(bf(3))).toBe(true);
    expect(set.earlySectors.isEmpty()).toBe(true);
    expect(set.onTimePledge).toBe(1002n);
    expect(set.activePower).toEqual(ZERO_POWER);
    expect(set.faultyPower).toEqual(power(2, 3));
    expect(set.feeDeduction).toBe(5000n);

    expectNothingBefore(queue, 20n);
  });

  test('operations on nothing leave the queue as it was', () => {
    let { queue } = emptyQueue(QUANT_4_1);
    queue.addActiveSectors([], SECTOR_SIZE);
    expect(queue.count).toBe(0);
    expect(queue.rescheduleRecovered([], SECTOR_SIZE)).toEqual(ZERO_POWER);
    expect(queue.count).toBe(0);

    ({ queue } = emptyQueue(QUANT_4_1));
    queue.addActiveSectors(sectors, SECTOR_SIZE);
    const root = queue.flush();
    // Every sector expires before 15 anyway: rescheduling them as faults at 15 moves nothing.
    queue.rescheduleAsFaults(15n, sectors, SECTOR_SIZE);
    expect(queue.count).toBe(3);
    queue.rescheduleAllAsFaults(15n);
    expect(queue.count).toBe(3);
    expect(queue.flush().equals(root)).toBe(false); // the power turned faulty
  });

  test('missing sectors are USR_ILLEGAL_STATE', () => {
    const { queue } = emptyQueue(QUANT_4_1);
    queue.addActiveSectors(sectors.slice(0, 3), SECTOR_SIZE);
    const missing = testSector(7n, 9n, 0n, 0n, 1n, 1n);
    let error = catchActorError(() => queue.rescheduleRecovered([missing], SECTOR_SIZE));
    expect([error.exitCode, error.message]).toEqual([
      ExitCode.UsrIllegalState,
      'sectors not found in expiration queue: 9',
    ]);
    error = catchActorError(() => queue.rescheduleExpirations(20n, [missing], SECTOR_SIZE));
    expect([error.exitCode, error.message]).toEqual([
      ExitCode.UsrIllegalState,
      'some sectors not found in expiration queue',
    ]);
    error = catchActorError(() => queue.removeSectors([missing], bf(9), bf(), SECTOR_SIZE));
    expect(error.message).toBe('sectors not found in expiration queue: 9');
  });

  test('an entry written before FIP-0100 keeps its 5 fields until an operation changes it', () => {
    const store = new MemoryBlockstore();
    const amt = Amt.create(store, { bitWidth: 4 });
    // Sectors activated before FIP-0100 have no daily fee.
    const [s1, s2] = [
      { ...sectors[0]!, dailyFee: 0n },
      { ...sectors[5]!, dailyFee: 0n },
    ];
    const legacy = (sector: typeof s1): CborNode[] =>
      expirationSetStruct.toCborNodeOfLength(
        {
          ...emptyExpirationSet(),
          onTimeSectors: BitField.of([sector.sectorNumber]),
          onTimePledge: sector.initialPledge,
          activePower: powerForSectors(SECTOR_SIZE, [sector]),
        },
        5,
      );
    amt.set(s1.expiration, legacy(s1));
    amt.set(s2.expiration, legacy(s2));
    const queue = ExpirationQueue.load(store, amt.flush(), NO_QUANTIZATION);
    // Faulting sector 6 at 5 visits and rewrites only its own entry and adds one at 5.
    queue.rescheduleAsFaults(5n, [s2], SECTOR_SIZE);
    const after = Amt.load(store, queue.flush());
    expect((after.get(s1.expiration) as CborNode[]).length).toBe(5);
    expect(after.get(s2.expiration)).toBeUndefined();
    expect((after.get(5n) as CborNode[]).length).toBe(6);
    expect(expirationSetFromCborNode(after.get(5n) as CborNode).earlySectors.equals(bf(6))).toBe(true);
  });
});

describe('quantization (builtin-actors quantize.rs)', () => {
  test('rounds up and down to the grid unit·k + offset mod unit, negative epochs included', () => {
    const spec = { unit: 10n, offset: 3n };
    const up = [-11n, -7n, -6n, 0n, 3n, 4n, 13n, 14n].map((e) => quantizeUp(spec, e));
    expect(up).toEqual([-7n, -7n, 3n, 3n, 3n, 13n, 13n, 23n]);
    const down = [-11n, -7n, -6n, 0n, 3n, 4n, 13n, 14n].map((e) => quantizeDown(spec, e));
    expect(down).toEqual([-17n, -7n, -7n, -7n, 3n, 3n, 13n, 13n]);
    // An offset beyond the unit counts modulo the unit, as a deadline's last epoch does.
    expect(quantizeUp({ unit: 2880n, offset: 98_979n }, 1000n)).toBe(1059n);
    expect(quantizeUp(NO_QUANTIZATION, 12345n)).toBe(12345n);
  });
});
