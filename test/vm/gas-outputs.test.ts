import fc from 'fast-check';
import { bigMin } from '../../src/vm/actors/math.js';
import { computeGasOutputs, computeGasOverestimationBurn } from '../../src/vm/index.js';

describe('GasOutputs (Lotus burn.go / ref-fvm outputs.rs)', () => {
  // ref-fvm fvm/src/gas/outputs.rs tests: (gas used, gas limit) → (refund, burn).
  test.each([
    [100n, 200n, 10n, 90n],
    [100n, 150n, 30n, 20n],
    [1000n, 1300n, 240n, 60n],
    [500n, 651n, 121n, 30n],
    [0n, 2000n, 0n, 2000n],
    [1n, 7_500_000_000n, 0n, 7_499_999_999n],
  ])('overestimation: used %s of %s refunds %s and burns %s', (used, limit, refund, burn) => {
    expect(computeGasOverestimationBurn(used, limit)).toEqual({ gasRefund: refund, gasBurned: burn });
  });

  test('within 10% of the limit nothing is burnt', () => {
    expect(computeGasOverestimationBurn(1000n, 1100n)).toEqual({ gasRefund: 100n, gasBurned: 0n });
  });

  test('fee cap above base fee: tip on the limit, burn on the use', () => {
    const outputs = computeGasOutputs(1000n, 1300n, 100n, 300n, 50n);
    expect(outputs.baseFeeBurn).toBe(100_000n);
    expect(outputs.minerTip).toBe(50n * 1300n);
    expect(outputs.overEstimationBurn).toBe(100n * 60n);
    expect(outputs.minerPenalty).toBe(0n);
    expect(outputs.refund).toBe(300n * 1300n - 100_000n - 65_000n - 6000n);
  });

  test('fee cap below base fee: the miner is penalised for the difference, no tip', () => {
    const outputs = computeGasOutputs(1000n, 1300n, 300n, 200n, 50n);
    expect(outputs.baseFeeBurn).toBe(200n * 1000n);
    expect(outputs.minerTip).toBe(0n);
    expect(outputs.minerPenalty).toBe(100n * 1000n + 100n * 60n);
    expect(outputs.refund).toBe(200n * 1300n - 200_000n - 200n * 60n);
  });

  test('burns, tip and refund always sum to feeCap × gasLimit', () => {
    const amount = fc.bigInt({ min: 0n, max: 10n ** 12n });
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 10n }),
        fc.bigInt({ min: 1n, max: 10n ** 10n }),
        amount,
        amount,
        amount,
        (used, limit, baseFee, feeCap, premium) => {
          const gasUsed = bigMin(used, limit);
          const cap = feeCap;
          const tip = bigMin(premium, cap);
          const o = computeGasOutputs(gasUsed, limit, baseFee, cap, tip);
          expect(o.baseFeeBurn + o.overEstimationBurn + o.minerTip + o.refund).toBe(cap * limit);
          expect(o.refund >= 0n).toBe(true);
          expect(o.gasRefund + o.gasBurned).toBe(limit - gasUsed);
        },
      ),
    );
  });
});
