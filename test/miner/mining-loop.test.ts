/**
 * The mining loop's scheduling on a real devnet chain (1 s epochs, mining otherwise off): which
 * round it tries on which base and when, null rounds after lost elections, recovery from a failed
 * round, a prompt stop. Proofs are not the subject here — the election is the test's function;
 * blocks with real elections and winning PoSt are covered by test/e2e/devnet.test.ts.
 */
import { blake2b256 } from '../../src/crypto/index.js';
import { MiningLoop, ticketQuality } from '../../src/miner/mining-loop.js';
import type { TipSet } from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet({ mine: false, blockTimeMs: 1000, accounts: 1 });
});
afterAll(() => devnet?.stop());

function loopWith(elect: (base: TipSet, round: bigint) => Promise<null>, clock?: () => number): MiningLoop {
  const chain = devnet.node.chain!;
  return new MiningLoop({
    ...(clock === undefined ? {} : { clock }),
    miner: chain.devnet.miner,
    chain: chain.chain,
    blockDelaySecs: chain.params.blockDelaySecs,
    propagationDelaySecs: chain.params.propagationDelaySecs,
    elect,
    createBlock: () => Promise.reject(new Error('never elected')),
    intake: devnet.node.mining!.intake,
  });
}

test('lost elections are null rounds: round r on the same base is tried at its base time plus the propagation delay', async () => {
  const chain = devnet.node.chain!;
  const genesis = chain.chain.genesis;
  const calls: Array<{ round: bigint; base: string; atMs: number }> = [];
  const loop = loopWith(async (base, round) => {
    calls.push({ round, base: base.key.toString(), atMs: Date.now() });
    return null;
  });
  loop.start();
  const deadline = Date.now() + 30_000;
  while (calls.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await loop.stop();
  expect(calls.length).toBeGreaterThanOrEqual(4);
  expect(calls.map((c) => c.round)).toEqual(calls.map((_, i) => BigInt(i + 1)));
  expect(new Set(calls.map((c) => c.base))).toEqual(new Set([genesis.key.toString()]));
  for (const call of calls) {
    // Round r's base time is genesis + (r − 1) epochs; mining waits one propagation delay after it.
    const due =
      Number(genesis.timestamp + (call.round - 1n) * chain.params.blockDelaySecs + chain.params.propagationDelaySecs) *
      1000;
    expect(call.atMs).toBeGreaterThanOrEqual(due);
  }
  // An election in flight when stop() came is dropped, not counted.
  expect(loop.nullRounds).toBeGreaterThanOrEqual(calls.length - 1);
  expect(loop.skippedRounds).toBe(0);
  expect(loop.blocksMined).toBe(0);
  expect(loop.running).toBe(false);
  // The chain is untouched.
  expect(chain.chain.head().height).toBe(0n);
});

test('a miner behind the clock (slow proofs, a restart after downtime) goes straight to the round due now', async () => {
  const chain = devnet.node.chain!;
  const genesis = chain.chain.genesis;
  const delay = Number(chain.params.blockDelaySecs);
  // The clock says 50 epochs have passed since genesis.
  const aheadMs = 50 * delay * 1000;
  const rounds: bigint[] = [];
  const loop = loopWith(
    async (_base, round) => {
      rounds.push(round);
      return null;
    },
    () => Date.now() + aheadMs,
  );
  loop.start();
  const deadline = Date.now() + 30_000;
  while (rounds.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await loop.stop();
  // The round due now is the one whose base time plus the propagation delay has passed.
  const now = BigInt(Math.floor((Date.now() + aheadMs) / 1000));
  const due = (now - genesis.timestamp - chain.params.propagationDelaySecs) / chain.params.blockDelaySecs + 1n;
  expect(rounds[0]).toBeGreaterThanOrEqual(50n);
  expect(rounds[0]).toBeLessThanOrEqual(due);
  // Then one round after another, as the clock moves on.
  expect(rounds[1]).toBe(rounds[0]! + 1n);
  // The rounds jumped over are counted as skipped (missed by block production), the lost ones as null.
  expect(loop.skippedRounds).toBe(Number(rounds[0]! - 1n));
  expect(loop.nullRounds).toBeGreaterThanOrEqual(1);
});

test('a failing round is logged and the loop carries on; stop() ends a sleeping loop at once', async () => {
  let attempts = 0;
  const loop = loopWith(async () => {
    attempts++;
    throw new Error('election failed');
  });
  loop.start();
  const deadline = Date.now() + 30_000;
  while (attempts < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(attempts).toBeGreaterThanOrEqual(2);
  const stopping = Date.now();
  await loop.stop();
  expect(Date.now() - stopping).toBeLessThan(500);
  expect(loop.running).toBe(false);
});

test('ticket quality is 1 − blake2b(VRFProof)/2^256 (Lotus Ticket.Quality)', () => {
  for (const seed of [1, 2, 3]) {
    const vrfProof = new Uint8Array(96).fill(seed);
    const hash = blake2b256(vrfProof);
    const value = BigInt(`0x${Buffer.from(hash).toString('hex')}`);
    const expected = 1 - Number((value * 10n ** 15n) / 2n ** 256n) / 1e15;
    expect(ticketQuality({ vrfProof })).toBeCloseTo(expected, 12);
    expect(ticketQuality({ vrfProof })).toBeGreaterThan(0);
    expect(ticketQuality({ vrfProof })).toBeLessThan(1);
  }
});

test('stop() does not wait for an election in flight (a winning PoSt takes seconds); its late result is dropped', async () => {
  const chain = devnet.node.chain!;
  let electing!: () => void;
  const started = new Promise<void>((resolve) => {
    electing = resolve;
  });
  let finishElection!: (win: null) => void;
  const loop = loopWith(
    () =>
      new Promise<null>((resolve) => {
        electing();
        finishElection = resolve;
      }),
  );
  loop.start();
  await started;
  const stopping = Date.now();
  await loop.stop();
  expect(Date.now() - stopping).toBeLessThan(500);
  expect(loop.running).toBe(false);
  // The election ends after the stop: nothing is counted and the chain is untouched.
  finishElection(null);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(loop.nullRounds).toBe(0);
  expect(chain.chain.head().height).toBe(0n);
});
