import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { type MessagePool, type MessageSigner, MpoolErrorCode } from '../../src/mpool/index.js';
import type { Message } from '../../src/types/index.js';
import { FIL } from '../helpers/genesis.js';
import type { TestChain } from '../helpers/test-chain.js';
import { cidOf, createTestChain, messageSigner, openPool, unsetMessage } from './harness.js';

let t: TestChain;
let pool: MessagePool;
let signer: MessageSigner;
let signed = 0;

beforeEach(async () => {
  t = createTestChain();
  pool = await openPool(t);
  signed = 0;
  signer = messageSigner(t, pool, () => {
    signed++;
  });
});

afterEach(async () => {
  await pool.close();
  t.close();
  t.remove();
});

const unsigned = (fields: Partial<Message> = {}): Message => unsetMessage(t, fields);

test('concurrent pushes from one sender get consecutive nonces and estimated gas', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, () => signer.pushMessage(unsigned(), null)));
  expect(results.map((s) => s.message.nonce).sort((a, b) => Number(a - b))).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  for (const { message } of results) {
    expect(message.gasLimit).toBeGreaterThan(0n);
    expect(message.gasFeeCap).toBeGreaterThan(message.gasPremium);
  }
  expect(pool.size).toBe(8);
  expect(t.db.mpool.nextNonce(t.senders[0]!.address.bytes)).toBe(8n);
});

test('a repeated MsgUuid returns the first message, even when the calls overlap', async () => {
  const spec = { maxFee: 0n, msgUuid: '6b1f6f3e-8d2a-4c1e-9c1b-2a4f5e6d7c8b' };
  const [first, second] = await Promise.all([
    signer.pushMessage(unsigned(), spec),
    signer.pushMessage(unsigned(), spec),
  ]);
  expect(cidOf(second)).toBe(cidOf(first));
  expect(signed).toBe(1);
  expect(pool.size).toBe(1);
});

test('refuses a set nonce and a sender who cannot pay, with Lotus’s messages', async () => {
  await expect(signer.pushMessage(unsigned({ nonce: 4n }), null)).rejects.toThrow(
    'MpoolPushMessage expects message nonce to be 0, was 4',
  );
  const error = await signer
    .pushMessage(unsigned({ value: 999n * FIL, gasLimit: 1_000_000n, gasFeeCap: 10n ** 13n, gasPremium: 1n }), {
      maxFee: 10n ** 20n,
    })
    .catch((e: unknown) => e);
  expect((error as { code: string }).code).toBe(MpoolErrorCode.NotEnoughFunds);
  expect((error as Error).message).toMatch(/^mpool push: not enough funds: \d+ < \d+$/);
  expect(signed).toBe(0);
});

test('caps the fee at MaxFee', async () => {
  const maxFee = 10n ** 12n;
  const result = await signer.pushMessage(unsigned(), { maxFee });
  expect(result.message.gasFeeCap * result.message.gasLimit).toBeLessThanOrEqual(maxFee);
});
