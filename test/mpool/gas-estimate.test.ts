import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import {
  capGasFee,
  DEFAULT_MAX_FEE,
  DEFAULT_MPOOL_CONFIG,
  GasEstimationError,
  GasEstimationErrorCode,
  GasEstimator,
  type MessagePool,
  medianGasPremium,
  mpoolChainOf,
} from '../../src/mpool/index.js';
import type { Message } from '../../src/types/index.js';
import { FIL, PARAMS } from '../helpers/genesis.js';
import { signSecp } from '../helpers/messages.js';
import { seededRandom } from '../helpers/seeded-random.js';
import type { TestChain } from '../helpers/test-chain.js';
import { createTestChain, openPool, transfer } from './harness.js';

let t: TestChain;
let pool: MessagePool;
let gas: GasEstimator;

beforeEach(async () => {
  t = createTestChain();
  pool = await openPool(t);
  gas = new GasEstimator({ chain: mpoolChainOf(t.chain, t.states), pool, random: seededRandom(7) });
});

afterEach(async () => {
  await pool.close();
  t.close();
  t.remove();
});

const unset = (fields: Partial<Message> = {}): Message => ({
  ...transfer(t.senders[0]!, 0n).message,
  value: FIL,
  gasLimit: 0n,
  gasFeeCap: 0n,
  gasPremium: 0n,
  ...fields,
});

describe('GasEstimateGasLimit', () => {
  test('is the gas the message then uses on chain', async () => {
    const used = await gas.estimateGasLimit(unset());
    expect(used).toBeGreaterThan(0n);
    const message = { ...unset(), gasLimit: (used * 5n) / 4n, gasFeeCap: 1_000_000_000n, gasPremium: 100_000n };
    await pool.push(signSecp(t.senders[0]!, message));
    const block = await t.mine([{ secp: await pool.selectMessages(t.chain.head(), 0.9) }]);
    await t.mine();
    const [receipt] = t.chain.readReceipts((await t.states.stateOf(block)).receiptsRoot);
    expect(receipt!.exitCode).toBe(0n);
    // As in Lotus the probe carries the block gas limit and no fees, so its stored size (and the
    // inclusion gas) differs by a few bytes; the 1.25 overestimation covers that.
    expect(Math.abs(Number(used - receipt!.gasUsed))).toBeLessThan(Number(used) / 100);
    expect(receipt!.gasUsed).toBeLessThan(message.gasLimit);
  });

  test('applies the sender’s pending messages first', async () => {
    const sender = t.senders[0]!;
    // The pending message leaves too little for a 20 FIL transfer.
    await pool.push(transfer(sender, 0n, { value: 990n * FIL }));
    const next = unset({ nonce: 1n, value: 20n * FIL });
    const error = await gas.estimateGasLimit(next).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GasEstimationError);
    expect((error as GasEstimationError).code).toBe(GasEstimationErrorCode.ExecutionReverted);
    // Without the pending one it runs.
    expect(await gas.estimateGasLimit(unset({ value: 20n * FIL, from: t.senders[1]!.address }))).toBeGreaterThan(0n);
  });
});

describe('GasEstimateMessageGas', () => {
  test('sets the gas limit to 1.25 × the gas used, and follows GasLimitOverestimation', async () => {
    const used = await gas.estimateGasLimit(unset());
    let estimated = await gas.estimateMessageGas(unset(), undefined);
    expect(estimated.gasLimit).toBe(BigInt(Math.trunc(Number(used) * 1.25)));
    expect(estimated.gasPremium).toBeGreaterThan(0n);
    expect(estimated.gasFeeCap).toBe(gas.estimateFeeCap(estimated, 20));
    expect(estimated.gasFeeCap).toBeGreaterThan(estimated.gasPremium);

    pool.setConfig({ ...DEFAULT_MPOOL_CONFIG, gasLimitOverestimation: 2 });
    estimated = await gas.estimateMessageGas(unset(), undefined);
    expect(estimated.gasLimit).toBe(used * 2n);
  });

  test('keeps the fields that are set', async () => {
    const estimated = await gas.estimateMessageGas(
      unset({ gasLimit: 5_000_000n, gasPremium: 1234n, gasFeeCap: 99_999n }),
      undefined,
    );
    expect(estimated).toMatchObject({ gasLimit: 5_000_000n, gasPremium: 1234n, gasFeeCap: 99_999n });
  });

  test('caps the fee at MaxFee, premium at most the fee cap', async () => {
    const maxFee = 1_000_000_000_000n;
    const estimated = await gas.estimateMessageGas(unset(), { maxFee });
    expect(estimated.gasFeeCap).toBe(maxFee / estimated.gasLimit);
    expect(estimated.gasPremium).toBeLessThanOrEqual(estimated.gasFeeCap);
  });
});

describe('fee cap and premium', () => {
  test('the fee cap survives 20 blocks of base fee rises: ⌊1.125^20 × 256⌋ / 256 × base fee + premium', () => {
    const head = t.chain.head();
    expect(gas.estimateFeeCap(unset({ gasPremium: 7n }), 20)).toBe((head.parentBaseFee * 2699n) / 256n + 7n);
  });

  test('with no history the premium is the minimum, by how soon it should land, with ±1 % noise', () => {
    for (const [blocks, expected] of [
      [1, 200_000],
      [2, 150_000],
      [10, 100_000],
    ] as const) {
      const premium = Number(gas.estimateGasPremium(blocks));
      expect(Math.abs(premium - expected) / expected).toBeLessThan(0.03);
    }
  });

  test('follows the premiums recent blocks paid', async () => {
    // 20 messages of 1e9 gas paying 5e6: far more than the 55 % point of one block's target.
    const paid = t.senders
      .slice(0, 20)
      .map((key) => transfer(key, 0n, { gasLimit: 400_000_000n, gasPremium: 5_000_000n, gasFeeCap: 10_000_000n }));
    await t.mine([{ secp: paid }]);
    await t.mine();
    const premium = Number(gas.estimateGasPremium(1));
    expect(Math.abs(premium - 5_000_000) / 5_000_000).toBeLessThan(0.03);
  });

  test('medianGasPremium walks 55 % of the target gas down from the top price', () => {
    const target = PARAMS.blockGasTarget;
    const prices = [
      { premium: 300n, gasLimit: target / 4n },
      { premium: 200n, gasLimit: target / 4n },
      { premium: 100n, gasLimit: target },
    ];
    // 0.55 × target: the first two cover 0.5, the third crosses; averaged with the one before.
    expect(medianGasPremium(prices, 1, target)).toBe(150n);
    expect(medianGasPremium([], 1, target)).toBe(0n);
  });

  test('capGasFee uses 0.07 FIL when no MaxFee is given', () => {
    const capped = capGasFee(
      { ...unset(), gasLimit: 1_000_000n, gasFeeCap: 10n ** 12n, gasPremium: 10n ** 12n },
      undefined,
    );
    expect(capped.gasFeeCap).toBe(DEFAULT_MAX_FEE / 1_000_000n);
    expect(capped.gasPremium).toBe(capped.gasFeeCap);
  });
});
