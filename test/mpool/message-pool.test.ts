import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import {
  DEFAULT_MPOOL_CONFIG,
  gossipVerdict,
  type MessagePool,
  type MpoolError,
  MpoolErrorCode,
  MpoolUpdateType,
  minimumReplacementPremium,
} from '../../src/mpool/index.js';
import { type SignedMessage, signedMessageCid } from '../../src/types/index.js';
import { FIL, PARAMS } from '../helpers/genesis.js';
import { keys, secpKey } from '../helpers/keys.js';
import { signSecp } from '../helpers/messages.js';
import type { TestChain } from '../helpers/test-chain.js';
import { cidOf, createTestChain, openPool, POOR, refusal, transfer } from './harness.js';

let t: TestChain;
let pool: MessagePool;

beforeEach(async () => {
  t = createTestChain();
  pool = await openPool(t);
});

afterEach(async () => {
  await pool.close();
  t.close();
  t.remove();
});

const sender = () => t.senders[0]!;

describe('admission', () => {
  test('accepts a valid message and reports it pending under its chain CID', async () => {
    const signed = transfer(sender(), 0n);
    const cid = await pool.push(signed);
    expect(cid.toString()).toBe(cidOf(signed));
    expect(pool.pending().map(cidOf)).toEqual([cidOf(signed)]);
    expect(pool.size).toBe(1);
    expect(pool.getNonce(sender().address)).toBe(1n);
  });

  test('refuses a message larger than 64 KiB', async () => {
    const error = await refusal(pool.push(transfer(sender(), 0n, { params: new Uint8Array(65 * 1024) })));
    expect(error.code).toBe(MpoolErrorCode.MessageTooBig);
    expect(error.message).toMatch(/too large \(\d+B\)/);
  });

  test('refuses syntactically invalid messages, naming the field', async () => {
    let error = await refusal(pool.push(transfer(sender(), 0n, { gasPremium: 2_000_000_000n })));
    expect(error.code).toBe(MpoolErrorCode.InvalidMessage);
    expect(error.message).toContain("'GasFeeCap' less than 'GasPremium'");
    error = await refusal(pool.push(transfer(sender(), 0n, { gasLimit: PARAMS.blockGasLimit + 1n })));
    expect(error.code).toBe(MpoolErrorCode.InvalidMessage);
    expect(error.message).toContain("'GasLimit' field cannot be greater than a block's gas limit");
  });

  test('refuses a value above the total supply', async () => {
    const error = await refusal(pool.push(transfer(sender(), 0n, { value: PARAMS.totalFilecoin + 1n })));
    expect(error.code).toBe(MpoolErrorCode.ValueTooHigh);
  });

  test('refuses a fee cap below the minimum base fee', async () => {
    const error = await refusal(pool.push(transfer(sender(), 0n, { gasFeeCap: 99n, gasPremium: 0n })));
    expect(error.code).toBe(MpoolErrorCode.GasFeeCapTooLow);
    expect(error.message).toContain('GasFeeCap 99 is below the minimum base fee 100');
  });

  test('refuses a gas limit below the cost of storing the message', async () => {
    const error = await refusal(pool.push(transfer(sender(), 0n, { gasLimit: 1000n })));
    expect(error.code).toBe(MpoolErrorCode.InvalidMessage);
    expect(error.message).toContain('cannot be less than the cost of storing a message on chain 1000 <');
  });

  test('refuses a signature by another key', async () => {
    const message = transfer(sender(), 0n).message;
    const forged = signSecp(t.senders[1]!, message);
    const error = await refusal(pool.push(forged));
    expect(error.code).toBe(MpoolErrorCode.InvalidSignature);
    expect(error.message).toContain('signature did not match');
    expect(pool.size).toBe(0);
  });

  test('checks signatures alike one at a time (on the main thread) and in a crowd (in native batches)', async () => {
    const forgedAt = (signed: SignedMessage): SignedMessage => signSecp(t.senders[1]!, signed.message);
    const unrecoverable = (signed: SignedMessage): SignedMessage => ({
      ...signed,
      signature: { ...signed.signature, data: new Uint8Array(65) },
    });
    // Twelve pushes in one turn gather into off-thread batches; each bad one is refused alone.
    const crowd = Array.from({ length: 12 }, (_, i) => transfer(sender(), BigInt(i)));
    const sent = crowd.map((signed, i) => (i === 3 ? forgedAt(signed) : i === 7 ? unrecoverable(signed) : signed));
    const outcomes = await Promise.allSettled(sent.map((signed) => pool.push(signed)));
    const reasons = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'ok'));
    expect(reasons[3]).toContain('signature did not match');
    expect(reasons[7]).toContain('no public key recovers from the signature');
    expect(reasons.filter((r) => r === 'ok')).toHaveLength(10);
    // The same refusals one at a time.
    const single = transfer(sender(), 20n);
    expect((await refusal(pool.push(unrecoverable(single)))).message).toContain('no public key recovers');
    expect((await refusal(pool.push(forgedAt(single)))).message).toContain('signature did not match');
  });

  test('refuses a nonce below the state nonce', async () => {
    await t.mine([{ secp: [transfer(sender(), 0n)] }]);
    await t.chain.settled();
    const error = await refusal(pool.push(transfer(sender(), 0n, { value: 2n })));
    expect(error.code).toBe(MpoolErrorCode.NonceTooLow);
    expect(error.message).toContain('minimum expected nonce is 1');
  });

  test('refuses a sender with no actor, softly', async () => {
    const error = await refusal(pool.push(transfer(secpKey('nobody'), 0n)));
    expect(error.code).toBe(MpoolErrorCode.SoftValidation);
    expect(error.message).toContain('not found');
  });

  test('refuses a sender who cannot pay for the gas', async () => {
    const error = await refusal(pool.push(transfer(POOR, 0n)));
    expect(error.code).toBe(MpoolErrorCode.NotEnoughFunds);
    expect(error.message).toMatch(/not enough funds \(required: 3000000000000000, balance: 1000000000000\)/);
  });

  test('counts the gas the sender’s other pending messages reserve, but not the one replaced', async () => {
    // 400 FIL of gas each: two fit in 1000 FIL, a third does not.
    const feeCap = (400n * FIL) / 3_000_000n;
    const big = (nonce: bigint, premium = 100_000n) =>
      transfer(sender(), nonce, { gasFeeCap: feeCap, gasPremium: premium });
    await pool.push(big(0n));
    await pool.push(big(1n));
    const error = await refusal(pool.push(big(2n)));
    expect(error.code).toBe(MpoolErrorCode.SoftValidation);
    expect(error.message).toContain('not enough funds including pending messages');
    // Replacing nonce 1 frees its reservation.
    await pool.push(big(1n, 200_000n));
    expect(pool.size).toBe(2);
  });
});

describe('nonce gaps', () => {
  test('local pushes may leave gaps; network messages may run at most 4 ahead', async () => {
    await pool.push(transfer(sender(), 7n));
    expect(pool.getNonce(sender().address)).toBe(0n);

    const other = t.senders[1]!;
    const error = await refusal(pool.add(transfer(other, 5n)));
    expect(error.code).toBe(MpoolErrorCode.NonceGap);
    expect(error.message).toContain('(Nonce: 5, nextNonce: 0)');
    await pool.add(transfer(other, 4n));
    await pool.add(transfer(other, 0n));
    expect(pool.getNonce(other.address)).toBe(1n);
  });

  test('a network replacement across a gap is refused', async () => {
    const other = t.senders[1]!;
    await pool.add(transfer(other, 2n));
    const error = await refusal(pool.add(transfer(other, 2n, { gasPremium: 500_000n })));
    expect(error.code).toBe(MpoolErrorCode.NonceGap);
    expect(error.message).toContain('rejecting replace by fee because of nonce gap');
  });

  test('filling the gap advances the next nonce over the run', async () => {
    await pool.push(transfer(sender(), 1n));
    await pool.push(transfer(sender(), 2n));
    expect(pool.getNonce(sender().address)).toBe(0n);
    await pool.push(transfer(sender(), 0n));
    expect(pool.getNonce(sender().address)).toBe(3n);
  });
});

describe('replace by fee', () => {
  test('needs the premium raised by 10 % plus one; the pooled message takes the new values', async () => {
    const original = transfer(sender(), 0n, { gasPremium: 100_000n });
    await pool.push(original);
    expect(minimumReplacementPremium(100_000n)).toBe(110_001n);

    const same = await refusal(pool.push(original));
    expect(same.code).toBe(MpoolErrorCode.ExistingNonce);

    const short = transfer(sender(), 0n, { gasPremium: 110_000n, value: 5n });
    const error = await refusal(pool.push(short));
    expect(error.code).toBe(MpoolErrorCode.ReplaceByFeeTooLow);
    expect(error.message).toContain('increase GasPremium to 110001 from 110000');

    // Anything else may change too: recipient, value, gas limit, fee cap.
    const replacement = transfer(sender(), 0n, {
      gasPremium: 110_001n,
      value: 5n,
      to: keys.alice.address,
      gasLimit: 4_000_000n,
      gasFeeCap: 2_000_000_000n,
    });
    await pool.push(replacement);
    expect(pool.pending().map(cidOf)).toEqual([cidOf(replacement)]);
    expect(pool.size).toBe(1);
  });
});

describe('pruning', () => {
  test('goes down to the low-water mark, lowest premium first, keeping local senders', async () => {
    // 35 messages in all: the last one crosses the high-water mark.
    pool.setConfig({ ...DEFAULT_MPOOL_CONFIG, sizeLimitHigh: 34, sizeLimitLow: 20, pruneCooldownNs: 0n });
    const local = t.senders[0]!;
    const localMessages: SignedMessage[] = [];
    for (let nonce = 0n; nonce < 5n; nonce++) {
      // The worst premium in the pool: still kept.
      localMessages.push(transfer(local, nonce, { gasPremium: 100n }));
      await pool.push(localMessages.at(-1)!);
    }
    // Ten network senders, three messages each, premiums rising with the sender index.
    const network: SignedMessage[][] = [];
    for (let i = 1; i <= 10; i++) {
      const messages = [0n, 1n, 2n].map((nonce) => transfer(t.senders[i]!, nonce, { gasPremium: BigInt(i) * 10_000n }));
      for (const signed of messages) await pool.add(signed);
      network.push(messages);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.size).toBe(20);
    const left = new Set(pool.pending().map(cidOf));
    for (const signed of localMessages) expect(left.has(cidOf(signed))).toBe(true);
    // 15 network messages kept: the five best senders; the five cheapest went.
    for (let i = 0; i < 10; i++) {
      for (const signed of network[i]!) expect(left.has(cidOf(signed))).toBe(i >= 5);
    }
  });

  test('keeps memory bounded under a flood', async () => {
    pool.setConfig({ ...DEFAULT_MPOOL_CONFIG, sizeLimitHigh: 200, sizeLimitLow: 150, pruneCooldownNs: 0n });
    let maximum = 0;
    let accepted = 0;
    for (let round = 0n; round < 10n; round++) {
      const results = await Promise.allSettled(
        t.senders.slice(1, 61).map((key, i) => pool.add(transfer(key, round, { gasPremium: 100_000n + BigInt(i) }))),
      );
      for (const result of results) {
        if (result.status === 'fulfilled') accepted++;
        // A sender whose earlier messages were pruned now has a gap the network rule refuses.
        else expect((result.reason as MpoolError).code).toBe(MpoolErrorCode.NonceGap);
      }
      await new Promise((resolve) => setImmediate(resolve));
      maximum = Math.max(maximum, pool.size);
    }
    expect(accepted).toBeGreaterThan(300);
    // At most one event-loop turn of admissions beyond the high-water mark before the prune runs.
    expect(maximum).toBeLessThanOrEqual(200 + 60);
    expect(pool.size).toBeGreaterThanOrEqual(150);
  });
});

describe('persistence', () => {
  test('local messages survive a restart; network messages do not', async () => {
    const local = [transfer(sender(), 0n), transfer(sender(), 1n)];
    for (const signed of local) await pool.push(signed);
    await pool.add(transfer(t.senders[1]!, 0n));
    pool.setConfig({ ...DEFAULT_MPOOL_CONFIG, gasLimitOverestimation: 1.5 });
    await pool.close();
    t.close();

    t = t.reopen();
    pool = await openPool(t);
    expect(pool.pending().map(cidOf).sort()).toEqual(local.map(cidOf).sort());
    expect(pool.config.gasLimitOverestimation).toBe(1.5);
    expect(pool.getNonce(sender().address)).toBe(2n);
  });

  test('a restored message that was mined meanwhile is dropped', async () => {
    const signed = transfer(sender(), 0n);
    await pool.push(signed);
    await pool.close();
    await t.mine([{ secp: [signed] }]);
    t.close();
    t = t.reopen();
    pool = await openPool(t);
    expect(pool.size).toBe(0);
    expect(t.db.mpool.localMessages()).toHaveLength(0);
  });
});

describe('head changes', () => {
  test('included messages leave the pool; reverted ones come back', async () => {
    const messages = [0n, 1n, 2n].map((nonce) => transfer(sender(), nonce));
    for (const signed of messages) await pool.push(signed);
    const genesis = t.chain.head();

    const included = await t.mine([{ secp: messages.slice(0, 2) }]);
    expect(pool.pending().map(cidOf)).toEqual([cidOf(messages[2]!)]);
    expect(pool.getNonce(sender().address)).toBe(3n);
    expect(pool.head.key.equals(included.key)).toBe(true);

    // A heavier fork from genesis without them: the two come back.
    const fork1 = await t.mine([{ ticket: 'fork-1' }], { parent: genesis });
    const fork2 = await t.mine([{ ticket: 'fork-2' }], { parent: fork1 });
    expect(t.chain.head().key.equals(fork2.key)).toBe(true);
    expect(pool.head.key.equals(fork2.key)).toBe(true);
    expect(pool.pending().map(cidOf).sort()).toEqual(messages.map(cidOf).sort());
    expect(pool.getNonce(sender().address)).toBe(3n);
  });

  test('update listeners (MpoolSub) see every add, local or not, every removal, and reverted messages coming back', async () => {
    const updates: string[] = [];
    pool.onUpdate(({ type, message }) =>
      updates.push(`${type === MpoolUpdateType.Add ? 'add' : 'remove'} ${cidOf(message)}`),
    );
    const [local, network] = [transfer(sender(), 0n), transfer(t.senders[1]!, 0n)];
    await pool.push(local);
    await pool.add(network);
    expect(updates).toEqual([`add ${cidOf(local)}`, `add ${cidOf(network)}`]);
    const genesis = t.chain.head();
    await t.mine([{ secp: [local] }]);
    expect(updates.slice(2)).toEqual([`remove ${cidOf(local)}`]);
    // A heavier fork without it: it comes back.
    const fork1 = await t.mine([{ ticket: 'update-fork-1' }], { parent: genesis });
    await t.mine([{ ticket: 'update-fork-2' }], { parent: fork1 });
    expect(updates.slice(3)).toEqual([`add ${cidOf(local)}`]);
  });

  test('a message included from another sender’s view still advances the nonce', async () => {
    const mined = transfer(sender(), 0n);
    await t.mine([{ secp: [mined] }]);
    expect(pool.getNonce(sender().address)).toBe(1n);
    const error = await refusal(pool.push(mined));
    expect(error.code).toBe(MpoolErrorCode.NonceTooLow);
  });
});

describe('selection', () => {
  test('respects the block gas limit and keeps each sender’s nonces in order', async () => {
    // 3e9 gas each: at most three fit in a 1e10 block.
    const gasLimit = 3_000_000_000n;
    for (let i = 0; i < 4; i++) {
      for (let nonce = 0n; nonce < 2n; nonce++) {
        await pool.push(transfer(t.senders[i]!, nonce, { gasLimit, gasPremium: BigInt(i + 1) * 100_000n }));
      }
    }
    for (const ticketQuality of [0.9, 0.5]) {
      const selected = await pool.selectMessages(t.chain.head(), ticketQuality);
      const total = selected.reduce((sum, signed) => sum + signed.message.gasLimit, 0n);
      expect(selected.length).toBe(3);
      expect(total).toBeLessThanOrEqual(PARAMS.blockGasLimit);
      const nonces = new Map<string, bigint>();
      for (const { message } of selected) {
        const from = message.from.toString();
        expect(message.nonce).toBe(nonces.get(from) ?? 0n);
        nonces.set(from, message.nonce + 1n);
      }
      // Greedy takes the best-paying sender first.
      if (ticketQuality > 0.84) expect(selected[0]!.message.from.equals(t.senders[3]!.address)).toBe(true);
    }
  });

  test('skips messages after a nonce gap and messages the base already includes', async () => {
    // Lotus: null with nothing pending, [] when nothing pending can go in.
    expect(await pool.select(t.chain.head(), 0.9)).toBeNull();
    await pool.push(transfer(sender(), 0n));
    await pool.push(transfer(sender(), 2n));
    let selected = await pool.selectMessages(t.chain.head(), 0.9);
    expect(selected.map((s) => s.message.nonce)).toEqual([0n]);
    const base = await t.mine([{ secp: [transfer(sender(), 0n)] }]);
    selected = await pool.selectMessages(base, 0.9);
    expect(selected).toEqual([]);
    expect(await pool.select(base, 0.5)).toEqual([]);
  });

  test('selected messages execute in a block', async () => {
    const pushed = [0n, 1n, 2n].map((nonce) => transfer(sender(), nonce));
    for (const signed of pushed) await pool.push(signed);
    const selected = await pool.selectMessages(t.chain.head(), 0.5);
    const block = await t.mine([{ secp: selected }]);
    const child = await t.mine();
    expect(child.parents.equals(block.key)).toBe(true);
    const receipts = t.chain.readReceipts((await t.states.stateOf(block)).receiptsRoot);
    expect(receipts.map((r) => r.exitCode)).toEqual([0n, 0n, 0n]);
    expect(pool.size).toBe(0);
    expect(signedMessageCid(selected[0]!).toString()).toBe(cidOf(pushed[0]!));
  });
});

describe('publishing', () => {
  test('local messages are handed to publish listeners; network ones are not', async () => {
    const published: string[] = [];
    pool.onPublish((signed) => published.push(cidOf(signed)));
    const local = transfer(sender(), 0n);
    await pool.push(local);
    await pool.add(transfer(t.senders[1]!, 0n));
    expect(published).toEqual([cidOf(local)]);
    expect(pool.republish().map(cidOf)).toEqual([cidOf(local)]);
  });
});

describe('gossip verdicts', () => {
  test('soft refusals are ignored, malformed or badly signed messages rejected', async () => {
    expect(gossipVerdict(undefined)).toBe('accept');
    const gap = await refusal(pool.add(transfer(sender(), 9n)));
    expect(gossipVerdict(gap)).toBe('ignore');
    const forged = await refusal(pool.add(signSecp(t.senders[1]!, transfer(sender(), 0n).message)));
    expect(gossipVerdict(forged)).toBe('reject');
    const tooBig = await refusal(pool.add(transfer(sender(), 0n, { params: new Uint8Array(70_000) })));
    expect(gossipVerdict(tooBig)).toBe('reject');
  });
});
