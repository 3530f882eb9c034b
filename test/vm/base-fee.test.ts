import { DEVNET_2K } from '../../src/params/index.js';
import { Address } from '../../src/types/index.js';
import {
  computeNextBaseFee,
  effectiveGasPremium,
  nextBaseFeeFromPremium,
  weightedPremiumPercentile,
} from '../../src/vm/index.js';
import { message } from '../helpers/messages.js';

const params = DEVNET_2K;
const TARGET_INDEX = params.blockGasTargetIndex;

function msg(from: number, nonce: bigint, gasLimit: bigint, gasFeeCap: bigint, gasPremium: bigint) {
  return message({
    from: Address.newId(BigInt(1000 + from)),
    to: Address.newId(1n),
    nonce,
    gasLimit,
    gasFeeCap,
    gasPremium,
  });
}

describe('base fee (FIP-0115 premium percentile)', () => {
  test('an empty tipset lowers the base fee by ⌈baseFee/8⌉', () => {
    expect(computeNextBaseFee([], 100_000_000n, params)).toBe(100_000_000n - 12_500_000n);
    expect(computeNextBaseFee([], 801n, params)).toBe(801n - 101n);
  });

  test('the base fee never falls below the minimum of 100', () => {
    expect(computeNextBaseFee([], 105n, params)).toBe(100n);
    expect(computeNextBaseFee([], 100n, params)).toBe(100n);
  });

  test('a premium of at least 2·maxAdj raises it by the full 1/8', () => {
    const baseFee = 1_000_000n;
    const full = [msg(0, 0n, params.blockGasLimit, 2_000_000n, 250_000n)];
    expect(computeNextBaseFee(full, baseFee, params)).toBe(baseFee + 125_000n);
  });

  test('a premium between 0 and 2·maxAdj moves it by P − maxAdj', () => {
    const baseFee = 1_000_000n;
    const messages = [msg(0, 0n, params.blockGasLimit, 2_000_000n, 150_000n)];
    expect(computeNextBaseFee(messages, baseFee, params)).toBe(baseFee + 150_000n - 125_000n);
  });

  test('the percentile is taken at BlockGasTargetIndex of the gas-limit-weighted premiums, high to low', () => {
    const cheap = { premium: 10n, weight: 3_000_000_000n };
    const dear = { premium: 1000n, weight: 5_000_000_000n };
    expect(weightedPremiumPercentile([cheap, dear], TARGET_INDEX)).toBe(10n);
    expect(weightedPremiumPercentile([dear], TARGET_INDEX)).toBe(0n);
    expect(weightedPremiumPercentile([{ premium: 7n, weight: TARGET_INDEX + 1n }], TARGET_INDEX)).toBe(7n);
    expect(weightedPremiumPercentile([{ premium: 7n, weight: TARGET_INDEX }], TARGET_INDEX)).toBe(0n);
  });

  test('a message is counted once per (sender, nonce) across blocks', () => {
    const half = params.blockGasLimit / 2n;
    const again = [msg(0, 0n, half, 2_000_000n, 300_000n), msg(0, 0n, half, 2_000_000n, 300_000n)];
    // Once counted, the weight (5e9) stays below the index: the percentile is 0.
    expect(computeNextBaseFee(again, 1_000_000n, params)).toBe(1_000_000n - 125_000n);
    const distinct = [msg(0, 0n, half, 2_000_000n, 300_000n), msg(0, 1n, half, 2_000_000n, 300_000n)];
    expect(computeNextBaseFee(distinct, 1_000_000n, params)).toBe(1_000_000n + 125_000n);
  });

  test('the effective premium is capped by the fee cap above the base fee, and never negative', () => {
    expect(effectiveGasPremium(msg(0, 0n, 1n, 150n, 80n), 100n)).toBe(50n);
    expect(effectiveGasPremium(msg(0, 0n, 1n, 300n, 80n), 100n)).toBe(80n);
    expect(effectiveGasPremium(msg(0, 0n, 1n, 90n, 80n), 100n)).toBe(0n);
  });

  test('nextBaseFeeFromPremium rounds the maximum adjustment up', () => {
    expect(nextBaseFeeFromPremium(1001n, 0n, params)).toBe(1001n - 126n);
  });
});
