/**
 * The reward actor's minting math against builtin-actors' own expectations: the epoch-zero
 * reward and baseline of its constructor tests, and rows of the TestSimpleReward and
 * TestBaselineReward golden files (actors/reward/testdata).
 */
import {
  computeReward,
  newRewardState,
  updateSmoothedEstimates,
  updateToNextEpochWithReward,
} from '../../src/vm/actors/reward-state.js';

const FIL = 10n ** 18n;
const SIMPLE_TOTAL = 330_000_000n * FIL;
const BASELINE_TOTAL = 770_000_000n * FIL;
const BASELINE_INITIAL_VALUE = 2_888_888_880_000_000_000n;

describe('reward minting (builtin-actors reward logic)', () => {
  test('constructed with zero power: epoch 0 reward and baseline as builtin-actors tests expect', () => {
    const state = newRewardState(0n);
    expect(state.epoch).toBe(0n);
    expect(state.cumsumRealized).toBe(0n);
    expect(state.thisEpochReward).toBe(36_266_264_293_777_134_739n);
    expect(state.thisEpochBaselinePower).toBe(BASELINE_INITIAL_VALUE - 1n);
    expect(state.effectiveBaselinePower).toBe(BASELINE_INITIAL_VALUE);
  });

  test('power above the baseline does not raise the reward', () => {
    expect(newRewardState(BASELINE_INITIAL_VALUE).thisEpochReward).toBe(
      newRewardState(2n * BASELINE_INITIAL_VALUE).thisEpochReward,
    );
    expect(newRewardState(1n << 39n).thisEpochReward).not.toBe(0n);
  });

  test.each([
    [0n, 36266264293777134739n],
    [5000n, 36246341860983438171n],
    [50000n, 36067531731705172852n],
  ])('simple minting at epoch %s (TestSimpleReward.golden)', (epoch, reward) => {
    expect(computeReward(epoch, 0n, 0n, SIMPLE_TOTAL, BASELINE_TOTAL)).toBe(reward);
  });

  test.each([
    [0n, 340282366920938463463374607398434878123n, 84621274052457285111n],
    [1701411834604692317316873037158763279502223n, 1701752116971613255780336411766161714380346n, 84574788381047331439n],
  ])('baseline minting between θ %s and %s (TestBaselineReward.golden)', (previous, current, reward) => {
    const simple = computeReward(0n, 0n, 0n, SIMPLE_TOTAL, BASELINE_TOTAL);
    expect(computeReward(0n, previous, current, SIMPLE_TOTAL, BASELINE_TOTAL) - simple).toBe(reward);
  });

  test('the smoothed estimate tracks the reward', () => {
    const state = newRewardState(0n);
    const before = state.thisEpochRewardSmoothed.position;
    updateToNextEpochWithReward(state, 0n);
    updateSmoothedEstimates(state, 1n);
    expect(state.thisEpochRewardSmoothed.position).not.toBe(before);
    expect(state.thisEpochRewardSmoothed.position >> 128n).toBeGreaterThan(36_000_000_000_000_000_000n);
  });
});
