/**
 * In-process admission rate of MpoolPush: pre-signed secp256k1 transfers from 100 senders, all
 * checks on (signatures verified, cached state per head, each push committed before it answers,
 * in group commits). The HTTP figure is bench:mpool's; this one shows what the pool itself costs.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { MessagePool } from '../../src/mpool/index.js';
import type { SignedMessage } from '../../src/types/index.js';
import type { TestChain } from '../helpers/test-chain.js';
import { createTestChain, openPool, transfer } from './harness.js';

const PER_SENDER = 50;
let t: TestChain;
let pool: MessagePool;

beforeAll(async () => {
  t = createTestChain();
  pool = await openPool(t);
});

afterAll(async () => {
  await pool.close();
  t.close();
  t.remove();
});

test('admits pre-signed transfers from 100 senders at a high rate', async () => {
  const messages: SignedMessage[] = [];
  for (let nonce = 0n; nonce < BigInt(PER_SENDER); nonce++) {
    for (const key of t.senders) messages.push(transfer(key, nonce));
  }
  const started = performance.now();
  // Requests arrive concurrently, as from many HTTP connections: 100 in flight at any time.
  let next = 0;
  const connection = async (): Promise<void> => {
    while (next < messages.length) await pool.push(messages[next++] as SignedMessage);
  };
  await Promise.all(Array.from({ length: 100 }, connection));
  const seconds = (performance.now() - started) / 1000;
  const rate = messages.length / seconds;
  console.log(`MpoolPush in process: ${messages.length} messages in ${seconds.toFixed(2)} s = ${Math.round(rate)}/s`);
  expect(pool.size).toBe(messages.length);
  // A floor far below the measured rate, so a busy shared machine does not fail it.
  expect(rate).toBeGreaterThan(500);
  // Every answered push was committed first (one transaction per batch of concurrent pushes).
  expect(t.db.mpool.localMessages()).toHaveLength(messages.length);
}, 120_000);
