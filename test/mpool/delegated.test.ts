/**
 * Delegated (type 3) messages in the pool and on chain: an f410 address that only received funds
 * (a placeholder with nonce 0) may send; its message is the EIP-1559 transaction it signed; included
 * in a block, the VM applies it, moves the value and makes the placeholder an EthAccount. Forged,
 * re-signed or wrong-chain messages are refused with a clear error; an EthAccount from genesis sends
 * too.
 */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { type MessagePool, MpoolErrorCode } from '../../src/mpool/index.js';
import { actorNameOf, StateTree } from '../../src/state/index.js';
import type { Address, SignedMessage } from '../../src/types/index.js';
import { ethKey, ethTransfer, signEth } from '../helpers/eth-keys.js';
import { accountOf, FIL, fundedTemplate } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { TestChain } from '../helpers/test-chain.js';
import { cidOf, openPool, refusal } from './harness.js';

/** Funded at genesis: an EthAccount. */
const GENESIS_ETH = ethKey('mpool-genesis-eth');
/** Funded by alice in block 1: a placeholder until its first message. */
const FRESH_ETH = ethKey('mpool-fresh-eth');
const RECIPIENT = ethKey('mpool-recipient');

let t: TestChain;
let pool: MessagePool;

beforeEach(async () => {
  t = TestChain.create({ onDisk: true, template: fundedTemplate([accountOf(GENESIS_ETH.address, 100n * FIL)]) });
  // alice funds the fresh f410 address: the send creates its placeholder.
  await t.mine([
    { secp: [signSecp(keys.alice, message({ from: keys.alice.address, to: FRESH_ETH.address, value: 50n * FIL }))] },
  ]);
  // The pool reads nonces in the state before its head: one more epoch makes the funding visible there.
  await t.mine();
  pool = await openPool(t);
});

afterEach(async () => {
  await pool.close();
  t.close();
  t.remove();
});

async function stateAfterHead(): Promise<StateTree> {
  return StateTree.load(t.chain.blockstore, (await t.states.stateOf(t.chain.head())).stateRoot);
}

function actorAt(tree: StateTree, address: Address) {
  const id = tree.lookupId(address);
  return id === undefined ? undefined : tree.getActor(id);
}

describe('delegated messages in the pool', () => {
  test('a funded placeholder sends; on chain the VM moves the value and makes it an EthAccount', async () => {
    const before = await stateAfterHead();
    const placeholder = actorAt(before, FRESH_ETH.address)!;
    expect(actorNameOf(placeholder.code)).toBe('placeholder');
    expect(placeholder.nonce).toBe(0n);

    const signed = signEth(FRESH_ETH, ethTransfer(FRESH_ETH, RECIPIENT.address, 0n, { value: 3n * FIL }));
    const cid = await pool.push(signed);
    expect(cid.toString()).toBe(cidOf(signed));
    expect(pool.pending().map(cidOf)).toEqual([cidOf(signed)]);
    // The next one may follow while the first is pending (the placeholder still has nonce 0 in state).
    await pool.push(signEth(FRESH_ETH, ethTransfer(FRESH_ETH, RECIPIENT.address, 1n)));
    expect(pool.getNonce(FRESH_ETH.address)).toBe(2n);

    await t.mine([{ secp: [signed] }]);
    await t.mine();
    const after = await stateAfterHead();
    const sender = actorAt(after, FRESH_ETH.address)!;
    expect(actorNameOf(sender.code)).toBe('ethaccount');
    expect(sender.nonce).toBe(1n);
    expect(sender.delegatedAddress?.equals(FRESH_ETH.address)).toBe(true);
    expect(actorAt(after, RECIPIENT.address)?.balance).toBe(3n * FIL);
    expect(sender.balance).toBeLessThan(placeholder.balance - 3n * FIL);
    expect(pool.pending()).toHaveLength(1);
  });

  test('an EthAccount funded at genesis sends', async () => {
    const signed = signEth(GENESIS_ETH, ethTransfer(GENESIS_ETH, RECIPIENT.address, 0n));
    await expect(pool.push(signed)).resolves.toBeDefined();
  });

  test('many pushed at once are recovered in one batch off the main thread; a forged one among them is refused', async () => {
    const messages = Array.from({ length: 12 }, (_, i) =>
      signEth(GENESIS_ETH, ethTransfer(GENESIS_ETH, RECIPIENT.address, BigInt(i))),
    );
    const forged = signEth(FRESH_ETH, ethTransfer(GENESIS_ETH, RECIPIENT.address, 12n));
    const results = await Promise.allSettled([...messages, forged].map((signed) => pool.push(signed)));
    expect(results.slice(0, 12).every((r) => r.status === 'fulfilled')).toBe(true);
    const refused = results[12] as PromiseRejectedResult;
    expect(refused.status).toBe('rejected');
    expect((refused.reason as Error).message).toContain(
      `signature did not match: signed by ${FRESH_ETH.address}, not by the sender ${GENESIS_ETH.address}`,
    );
    expect(pool.getNonce(GENESIS_ETH.address)).toBe(12n);
  });

  test.each<[string, () => SignedMessage]>([
    [
      'a value changed after signing',
      () => {
        const signed = signEth(FRESH_ETH, ethTransfer(FRESH_ETH, RECIPIENT.address, 0n));
        return { ...signed, message: { ...signed.message, value: 49n * FIL } };
      },
    ],
    [
      'a message signed by another Ethereum key',
      () => signEth(GENESIS_ETH, ethTransfer(FRESH_ETH, RECIPIENT.address, 0n)),
    ],
    [
      'a transaction signed for another chain',
      () => signEth(FRESH_ETH, ethTransfer(FRESH_ETH, RECIPIENT.address, 0n), 314),
    ],
    [
      'a plain send (method 0), which no Ethereum transaction converts to',
      () => {
        const signed = signEth(FRESH_ETH, ethTransfer(FRESH_ETH, RECIPIENT.address, 0n));
        return { ...signed, message: { ...signed.message, method: 0n } };
      },
    ],
  ])('refuses %s as an invalid signature', async (_label, forge) => {
    const forged = forge();
    const error = await refusal(pool.push(forged));
    expect(error.code).toBe(MpoolErrorCode.InvalidSignature);
    expect(error.message).toContain(
      `signature verification failed: failed to validate signature: invalid signature for message ${cidOf(forged)} (type 3)`,
    );
    expect(pool.size).toBe(0);
  });
});
