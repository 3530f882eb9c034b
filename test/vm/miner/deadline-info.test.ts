/**
 * Proving-period and deadline arithmetic, on mainnet's policy (the scenarios of builtin-actors
 * `actors/miner/tests/deadlines.rs` and `miner_actor_test_construction.rs`, and the worked example of
 * the sector lifecycle reference) and on the devnet's four-epoch challenge windows.
 */
import { blake2b256 } from '../../../src/crypto/index.js';
import { DEVNET_2K, MAINNET } from '../../../src/params/index.js';
import { Address, encodeCbor } from '../../../src/types/index.js';
import {
  currentDeadlineIndex,
  currentProvingPeriodStart,
  DeadlineInfo,
  deadlineAvailableForCompaction,
  deadlineAvailableForOptimisticPoStDispute,
  deadlineInfoStruct,
  deadlineIsMutable,
  newDeadlineInfo,
  newDeadlineInfoFromOffsetAndEpoch,
  provingPeriodOffset,
  quantSpecForDeadline,
} from '../../../src/vm/actors/miner/deadline-info.js';
import { quantizeUp } from '../../../src/vm/actors/miner/quantize.js';

const mainnet = MAINNET.minerPolicy;
const devnet = DEVNET_2K.minerPolicy;
const EPOCHS_IN_DAY = 2880n;

describe('DeadlineInfo', () => {
  test('a deadline opens one challenge window after the one before it', () => {
    const info = newDeadlineInfo(mainnet, 100n, 15n, 1000n);
    expect([info.open, info.close, info.challenge, info.faultCutoff, info.last()]).toEqual([
      1000n,
      1060n,
      980n,
      930n,
      1059n,
    ]);
    expect(info.isOpen()).toBe(true);
    expect(info.hasElapsed()).toBe(false);
    expect(info.periodStarted()).toBe(true);
    expect(info.faultCutoffPassed()).toBe(true);
    expect(info.nextOpen()).toBe(1060n);
    expect([info.periodEnd(), info.nextPeriodStart()]).toEqual([2979n, 2980n]);
  });

  test('the index past the last deadline stands for the end of the period', () => {
    const info = newDeadlineInfo(mainnet, 100n, 48n, 1000n);
    expect([info.open, info.close, info.challenge, info.faultCutoff]).toEqual([2980n, 2980n, 2980n, 0n]);
  });

  test('the quantization rounds up to the next instance of the deadline (deadlines.rs)', () => {
    const periodStart = 2n;
    const current = periodStart + mainnet.wPoStProvingPeriod;
    const info = newDeadlineInfo(mainnet, periodStart, 10n, current);
    expect(quantizeUp(info.quantSpec(), current)).toBe(info.nextNotElapsed().last());
    expect(quantSpecForDeadline(mainnet, periodStart, 10n)).toEqual(info.quantSpec());
  });

  test.each([
    ['mainnet', mainnet],
    ['devnet', devnet],
  ])('next_not_elapsed agrees with stepping period by period, every deadline (%s)', (_name, policy) => {
    const duration = policy.wPoStChallengeWindow;
    const periodStart = 12345n;
    const mismatches: string[] = [];
    // Every deadline, from before it opens until two periods later.
    for (let index = 0n; index < policy.wPoStPeriodDeadlines; index++) {
      const open = periodStart + index * duration;
      for (let current = open - 1n; current < open + duration + 2n * policy.wPoStProvingPeriod; current++) {
        const info = newDeadlineInfo(policy, periodStart, index, current);
        let expected = info;
        while (expected.hasElapsed()) {
          expected = newDeadlineInfo(policy, expected.nextPeriodStart(), expected.index, expected.currentEpoch);
        }
        const next = info.nextNotElapsed();
        if (next.periodStart !== expected.periodStart || next.open !== expected.open || next.close !== expected.close)
          mismatches.push(`deadline ${index} at ${current}`);
        if (current < open + duration && (info.hasElapsed() || next !== info))
          mismatches.push(`deadline ${index} at ${current} is not its own next`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(
      newDeadlineInfo(policy, periodStart, 3n, periodStart + 5n * policy.wPoStProvingPeriod).nextNotElapsed(),
    ).toEqual(
      newDeadlineInfo(
        policy,
        periodStart + 5n * policy.wPoStProvingPeriod,
        3n,
        periodStart + 5n * policy.wPoStProvingPeriod,
      ),
    );
  });

  test('Lotus JSON names the fields as go-state-types dline.Info', () => {
    expect(deadlineInfoStruct.toLotusJson(newDeadlineInfo(devnet, 8n, 2n, 17n))).toEqual({
      CurrentEpoch: 17,
      PeriodStart: 8,
      Index: 2,
      Open: 16,
      Close: 20,
      Challenge: -4,
      FaultCutoff: -54,
      WPoStPeriodDeadlines: 48,
      WPoStProvingPeriod: 192,
      WPoStChallengeWindow: 4,
      WPoStChallengeLookback: 20,
      FaultDeclarationCutoff: 70,
    });
  });
});

describe('newDeadlineInfoFromOffsetAndEpoch', () => {
  test('period starts congruent modulo the proving period give the same deadline (deadlines.rs)', () => {
    const seeds = [1972n, 1972n + EPOCHS_IN_DAY * 3n, 1972n + EPOCHS_IN_DAY * 1_000_000n];
    for (const epoch of [4n, 2_000n, 400_000n, 5_000_000n]) {
      const [a, b, c] = seeds.map((seed) => newDeadlineInfoFromOffsetAndEpoch(mainnet, seed, epoch));
      expect(b).toEqual(a);
      expect(c).toEqual(a);
    }
  });

  test('sanity checks (deadlines.rs)', () => {
    const offset = 7n;
    const start = EPOCHS_IN_DAY * 103n + offset;
    const window = mainnet.wPoStChallengeWindow;
    const cases: [bigint, bigint, bigint][] = [
      [start, 0n, start],
      [start + window - 1n, 0n, start],
      [start + window, 1n, start],
      [start + 40n * window, 40n, start],
      [start + 40n * window - 1n, 39n, start],
      [start + 40n * window + 1n, 40n, start],
      [start + 48n * window - 1n, 47n, start],
      [start + 48n * window, 0n, start + mainnet.wPoStProvingPeriod],
    ];
    for (const [epoch, index, periodStart] of cases) {
      const info = newDeadlineInfoFromOffsetAndEpoch(mainnet, offset, epoch);
      expect([info.index, info.periodStart]).toEqual([index, periodStart]);
    }
  });

  test('devnet deadlines are four epochs and its period 192', () => {
    const info = newDeadlineInfoFromOffsetAndEpoch(devnet, 5n, 1000n);
    // 1000 = 5 + 5·192 + 35: deadline 8 (35 / 4) of the period starting at 965.
    expect([info.periodStart, info.index, info.open, info.close, info.challenge]).toEqual([
      965n,
      8n,
      997n,
      1001n,
      977n,
    ]);
  });
});

describe('proving period of a new miner', () => {
  test('f01000 created at epoch 0 on mainnet starts its period at -2222 (miner_actor_test_construction.rs)', () => {
    const offset = provingPeriodOffset(mainnet, encodeCbor(Address.newId(1000n).bytes), 0n, blake2b256);
    const start = currentProvingPeriodStart(mainnet, 0n, offset);
    expect(start).toBe(-2222n);
    expect(currentDeadlineIndex(mainnet, 0n, start)).toBe(37n);
  });

  test('the period start is never after the creation epoch, and is congruent to the offset', () => {
    for (const policy of [mainnet, devnet]) {
      for (const [epoch, offset] of [
        [0n, 0n],
        [5n, 5n],
        [5n, 6n],
        [10_000n, 17n],
        [123_456n, policy.wPoStProvingPeriod - 1n],
      ] as const) {
        const start = currentProvingPeriodStart(policy, epoch, offset);
        expect(start).toBeLessThanOrEqual(epoch);
        expect(epoch - start).toBeLessThan(policy.wPoStProvingPeriod);
        expect(((start % policy.wPoStProvingPeriod) + policy.wPoStProvingPeriod) % policy.wPoStProvingPeriod).toBe(
          offset,
        );
      }
    }
  });

  test('the devnet offset is below its 192-epoch period', () => {
    const offset = provingPeriodOffset(devnet, encodeCbor(Address.newId(1000n).bytes), 0n, blake2b256);
    const mainnetOffset = provingPeriodOffset(mainnet, encodeCbor(Address.newId(1000n).bytes), 0n, blake2b256);
    // The same digest, reduced modulo each period: 658 mod 192.
    expect([mainnetOffset, offset]).toEqual([658n, 658n % 192n]);
  });
});

describe('deadline windows', () => {
  // The sector lifecycle reference's worked example (§6.4), on 60-epoch windows: period start 100,
  // a prove-commit at epoch 1020 is in deadline 15.
  test('the current and next deadlines are immutable; elapsed ones reopen next period', () => {
    const now = 1020n;
    expect(newDeadlineInfoFromOffsetAndEpoch(mainnet, 100n, now).index).toBe(15n);
    expect(deadlineIsMutable(mainnet, 100n, 15n, now)).toBe(false);
    expect(deadlineIsMutable(mainnet, 100n, 16n, now)).toBe(false);
    expect(deadlineIsMutable(mainnet, 100n, 17n, now)).toBe(true);
    for (let index = 0n; index < 15n; index++) {
      expect(deadlineIsMutable(mainnet, 100n, index, now)).toBe(true);
      const next = newDeadlineInfo(mainnet, 100n, index, now).nextNotElapsed();
      expect(next.open).toBe(2980n + 60n * index);
    }
    const first = newDeadlineInfo(mainnet, 100n, 0n, now).nextNotElapsed();
    expect([first.challenge, first.open]).toEqual([2960n, 2980n]);
  });

  test('a deadline turns immutable one challenge window before it opens', () => {
    // Deadline 3 of a devnet period starting at 0 opens at 12.
    expect(deadlineIsMutable(devnet, 0n, 3n, 7n)).toBe(true);
    expect(deadlineIsMutable(devnet, 0n, 3n, 8n)).toBe(false);
    expect(deadlineIsMutable(devnet, 0n, 3n, 15n)).toBe(false);
    // Once closed, it is mutable again until a window before its next opening (204).
    expect(deadlineIsMutable(devnet, 0n, 3n, 16n)).toBe(true);
    expect(deadlineIsMutable(devnet, 0n, 3n, 199n)).toBe(true);
    expect(deadlineIsMutable(devnet, 0n, 3n, 200n)).toBe(false);
  });

  test('proofs can be disputed from the close of their window for the dispute window', () => {
    // Mainnet deadline 0 of the period at 0: window [0, 60), disputes until 60 + 1800.
    expect(deadlineAvailableForOptimisticPoStDispute(mainnet, 0n, 0n, 30n)).toBe(false);
    expect(deadlineAvailableForOptimisticPoStDispute(mainnet, 0n, 0n, 60n)).toBe(true);
    expect(deadlineAvailableForOptimisticPoStDispute(mainnet, 0n, 0n, 1859n)).toBe(true);
    expect(deadlineAvailableForOptimisticPoStDispute(mainnet, 0n, 0n, 1860n)).toBe(false);
    // Not before the proving period started.
    expect(deadlineAvailableForOptimisticPoStDispute(mainnet, 100n, 0n, 99n)).toBe(false);
    // Devnet: 4-epoch windows, a 120-epoch dispute window.
    expect(deadlineAvailableForOptimisticPoStDispute(devnet, 0n, 0n, 4n)).toBe(true);
    expect(deadlineAvailableForOptimisticPoStDispute(devnet, 0n, 0n, 123n)).toBe(true);
    expect(deadlineAvailableForOptimisticPoStDispute(devnet, 0n, 0n, 124n)).toBe(false);
  });

  test('compaction waits for the dispute window and for mutability', () => {
    expect(deadlineAvailableForCompaction(mainnet, 0n, 0n, 1859n)).toBe(false);
    expect(deadlineAvailableForCompaction(mainnet, 0n, 0n, 1860n)).toBe(true);
    // Deadline 0 reopens at 2880: from 2820 it is immutable.
    expect(deadlineAvailableForCompaction(mainnet, 0n, 0n, 2819n)).toBe(true);
    expect(deadlineAvailableForCompaction(mainnet, 0n, 0n, 2820n)).toBe(false);
  });

  test('DeadlineInfo carries the policy it was made with', () => {
    const info = new DeadlineInfo(devnet, 0n, 1n, 0n);
    expect(info.nextNotElapsed().wPoStProvingPeriod).toBe(192n);
  });
});
