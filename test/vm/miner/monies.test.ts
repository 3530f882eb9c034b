/**
 * The storage miner's money formulas against builtin-actors v18's own tests and their expected values
 * (`actors/miner/tests/monies_test.rs`, `expected_reward_for_power_clampted_at_atto_fil_test.rs`,
 * `precommit_deposit_and_initial_pledge_positive_test.rs`, `fip0081_initial_pledge.rs`,
 * `pledge_penalty_for_termination.rs`, `policy_test.rs`, `daily_fees_test.rs`;
 * `runtime/src/builtin/reward/smooth/alpha_beta_filter.rs` for the constant-estimate case), and
 * Lotus's 110% estimator margin (`node/impl/full/state.go`).
 */
import {
  BASE_REWARD_FOR_DISPUTED_WINDOW_POST,
  dailyProofFee,
  dailyProofFeeAdjust,
  dailyProofFeePayable,
  expectedRewardForPower,
  expectedRewardForPowerClampedAtAttoFil,
  initialPledgeForPower,
  pledgePenaltyForContinuedFault,
  pledgePenaltyForInvalidWindowPoSt,
  pledgePenaltyForTermination,
  preCommitDepositForPower,
  withLotusEstimateMargin,
} from '../../../src/vm/actors/miner/monies.js';
import { EPOCHS_IN_DAY, qaPowerMax } from '../../../src/vm/actors/miner/policy.js';
import { newFilterEstimate } from '../../../src/vm/actors/smoothing.js';

const FIL = 10n ** 18n;
const GiB = 1n << 30n;
const abs = (x: bigint) => (x < 0n ? -x : x);

// The inputs builtin-actors' monies tests share: 2^50 attoFIL per epoch, 1 KiB of network power.
const rewardEstimate = newFilterEstimate(1n << 50n, 0n);
const growingPower = newFilterEstimate(1n << 10n, 1n << 10n);
const shrinkingPower = newFilterEstimate(1n << 10n, -(1n << 10n));

describe('expected reward for power (BR)', () => {
  test('a power estimate falling below zero gives 0, not a negative reward (negative_br_clamp)', () => {
    expect(expectedRewardForPower(rewardEstimate, shrinkingPower, 1n << 36n, 4n)).toBe(0n);
  });

  test('a constant 4e6 reward over a constant power of 1 earns 4e9 per byte in 1000 epochs (constant_estimate)', () => {
    const reward = newFilterEstimate(4_000_000n, 0n);
    const power = newFilterEstimate(1n, 0n);
    expect(expectedRewardForPower(reward, power, 1n, 1000n)).toBe(4_000_000_000n);
  });

  test('a zero network power estimate returns the whole per-epoch reward estimate', () => {
    expect(expectedRewardForPower(rewardEstimate, newFilterEstimate(0n, 0n), 1n << 36n, 2880n)).toBe(1n << 50n);
  });

  test('the clamped variant gives 1 attoFIL for zero and for negative BR', () => {
    expect(expectedRewardForPowerClampedAtAttoFil(rewardEstimate, growingPower, 0n, 1n)).toBe(1n);
    expect(expectedRewardForPowerClampedAtAttoFil(rewardEstimate, shrinkingPower, 1n << 36n, 4n)).toBe(1n);
  });
});

describe('pre-commit deposit and initial pledge', () => {
  const zeroReward = newFilterEstimate(0n, 0n);

  test('both are clamped at 1 attoFIL when the reward and the circulating supply are zero', () => {
    expect(preCommitDepositForPower(zeroReward, growingPower, 1n << 36n)).toBe(1n);
    const pledge = initialPledgeForPower(1n << 36n, {
      baselinePower: 1n << 10n,
      rewardEstimate: zeroReward,
      networkQaPowerEstimate: growingPower,
      circulatingSupply: 0n,
      epochsSinceRampStart: 0n,
      rampDurationEpochs: 0n,
    });
    expect(pledge).toBe(1n);
  });

  test('the deposit is 20 days of BR for the sector size’s maximum QA power (10 × size)', () => {
    const reward = newFilterEstimate(4_000_000n, 0n);
    const power = newFilterEstimate(1n, 0n);
    expect(qaPowerMax(32n * GiB)).toBe(320n * GiB);
    expect(preCommitDepositForPower(reward, power, qaPowerMax(2048n))).toBe(20480n * 4_000_000n * 20n * 2880n);
  });

  test.each([
    ['pre-ramp, negative', -100n, 100n, 1500n],
    ['zero ramp duration', 0n, 0n, 1950n],
    ['zero ramp duration, later', 10n, 0n, 1950n],
    ['pre-ramp', 0n, 100n, 1500n],
    ['on ramp, middle', 50n, 100n, 1725n],
    ['after ramp', 150n, 100n, 1950n],
    ['on ramp, early', 10n, 100n, 1545n],
    ['on ramp, first step', 1n, 10n, 1545n],
    ['one epoch before the ramp', -1n, 10n, 1500n],
    ['at the ramp start', 0n, 10n, 1500n],
  ])('FIP-0081 initial pledge, %s', (_, since, duration, tenThousandths) => {
    const pledge = initialPledgeForPower(1n << 36n, {
      baselinePower: 1n << 37n,
      rewardEstimate: newFilterEstimate(0n, 0n),
      networkQaPowerEstimate: growingPower,
      circulatingSupply: FIL,
      epochsSinceRampStart: since,
      rampDurationEpochs: duration,
    });
    expect(pledge).toBe(1n + (tenThousandths * FIL) / 10000n);
  });
});

describe('penalties', () => {
  test('zero power pays no continued-fault fee', () => {
    expect(pledgePenaltyForContinuedFault(rewardEstimate, growingPower, 0n)).toBe(0n);
  });

  test.each([
    [10n, 1n << 6n],
    [10n, 1n << 36n],
    [10n, 1n << 50n],
    [1000n, 1n << 6n],
    [1000n, 1n << 36n],
    [1000n, 1n << 50n],
  ])(
    'FIP-0098: the fault fee of %s sectors of %s bytes at once is within 1 atto per sector of their sum',
    (count, qa) => {
      const aggregate = pledgePenaltyForContinuedFault(rewardEstimate, growingPower, qa * count);
      const individual = count * pledgePenaltyForContinuedFault(rewardEstimate, growingPower, qa);
      expect(aggregate).toBeGreaterThan(0n);
      expect(abs(aggregate - individual) <= count).toBe(true);
    },
  );

  test('the continued-fault fee is BR over 3.51 days (10 108 epochs)', () => {
    const reward = newFilterEstimate(4_000_000n, 0n);
    const power = newFilterEstimate(1n, 0n);
    expect(pledgePenaltyForContinuedFault(reward, power, 1n)).toBe(4_000_000n * 10_108n);
  });

  describe('termination fee (FIP-0098)', () => {
    const pledge = 1n << 10n;
    const cap = 140n;

    test('a sector older than 140 days pays 8.5% of its pledge', () => {
      expect(pledgePenaltyForTermination(pledge, (cap + 1n) * EPOCHS_IN_DAY, 0n)).toBe((85n * pledge) / 1000n);
    });

    test('a younger sector pays that share pro rata of its age', () => {
      expect(pledgePenaltyForTermination(pledge, (cap / 2n) * EPOCHS_IN_DAY, 0n)).toBe(
        (((85n * pledge) / 1000n) * (cap / 2n)) / cap,
      );
    });

    test('never less than 105% of the fault fee', () => {
      const faultFee = 1n << 10n;
      expect(pledgePenaltyForTermination(pledge, (cap + 1n) * EPOCHS_IN_DAY, faultFee)).toBe((faultFee * 105n) / 100n);
    });

    test('never less than 2% of the pledge', () => {
      expect(pledgePenaltyForTermination(pledge, 0n, 0n)).toBe((pledge * 2n) / 100n);
    });
  });

  test('an invalid window PoSt costs BR over FF + 2 days (15 868 epochs) plus 20 FIL; the disputer gets 4 FIL', () => {
    const reward = newFilterEstimate(4_000_000n, 0n);
    const power = newFilterEstimate(1n, 0n);
    expect(pledgePenaltyForInvalidWindowPoSt(reward, power, 1n)).toBe(4_000_000n * 15_868n + 20n * FIL);
    expect(BASE_REWARD_FOR_DISPUTED_WINDOW_POST).toBe(4n * FIL);
  });
});

describe('daily proof fee (FIP-0100)', () => {
  test.each([
    [32n, 3_780_793_052_776n],
    [64n, 3_780_793_052_776n * 2n],
    [320n, 3_780_793_052_776n * 10n],
    [160n, 3_780_793_052_776n * 5n],
    [640n, 3_780_793_052_776n * 20n],
  ])('%s GiB of QA power at 680M FIL circulating pays %s attoFIL a day (±10)', (gib, expected) => {
    const fee = dailyProofFee(680_000_000n * FIL, gib * GiB);
    expect(abs(fee - expected) <= 10n).toBe(true);
  });

  test('a 32 GiB sector at 696.7M FIL pays just under the 5.56e-15 × CS reference, within 1/100 nanoFIL', () => {
    const reference = 3_873_652_000_000n;
    const fee = dailyProofFee(696_700_000n * FIL, 32n * GiB);
    expect(fee).toBeLessThan(reference);
    expect(reference - fee <= 10n ** 9n / 100n).toBe(true);
  });

  test('the fee payable is capped at half the expected day reward (test_fee_capped_by_reward inputs)', () => {
    // builtin-actors' miner harness: network power 2^50, reward lowered to 5e13 attoFIL per epoch.
    const reward = newFilterEstimate(50_000_000_000_000n, 0n);
    const power = newFilterEstimate(1n << 50n, 0n);
    const dailyFee = dailyProofFee(500_000_000n * FIL, 32n * GiB);
    const dayReward = expectedRewardForPower(reward, power, 32n * GiB, EPOCHS_IN_DAY);
    expect(dailyFee).toBeLessThan(dayReward);
    expect(dailyFee).toBeGreaterThan(dayReward / 2n);
    expect(dailyProofFeePayable(dailyFee, dayReward)).toBe(dayReward / 2n);
    // Uncapped when the reward is ample: the harness's default 10 FIL per epoch.
    const ampleDayReward = expectedRewardForPower(newFilterEstimate(10n * FIL, 0n), power, 32n * GiB, EPOCHS_IN_DAY);
    expect(dailyProofFeePayable(dailyFee, ampleDayReward)).toBe(dailyFee);
  });

  test('a sector’s fee scales with its QA power (fees_proportional_to_qap)', () => {
    const circulating = 500_000_000n * FIL;
    const unverified = dailyProofFee(circulating, 32n * GiB);
    const verified = dailyProofFee(circulating, qaPowerMax(32n * GiB));
    expect(verified / 10n).toBe(unverified);
    expect(dailyProofFeeAdjust(unverified, 32n * GiB, qaPowerMax(32n * GiB))).toBe(unverified * 10n);
    expect(dailyProofFeeAdjust(unverified, 32n * GiB, 32n * GiB)).toBe(unverified);
  });
});

test('Lotus’s deposit and pledge estimators add 10%, rounding down', () => {
  expect(withLotusEstimateMargin(1000n)).toBe(1100n);
  expect(withLotusEstimateMargin(1009n)).toBe(1109n);
});
