/**
 * The message pool over the chain fixture: an on-disk chain whose genesis funds 100 senders (the
 * chain's `senders`, 1000 FIL each) and POOR, a pool opened on it as the node opens it, and
 * transfers with ample gas, and the MpoolPushMessage signer over that pool.
 */
import { expect } from '@jest/globals';
import {
  GasEstimator,
  type MessagePool,
  type MessagePoolOptions,
  MessageSigner,
  MpoolError,
  mpoolChainOf,
  MessagePool as Pool,
} from '../../src/mpool/index.js';
import { type Message, type SignedMessage, setDefaultNetwork, signedMessageCid } from '../../src/types/index.js';
import { accountOf, FIL, fundedTemplate, PARAMS } from '../helpers/genesis.js';
import { keys, type SecpKey, secpKey } from '../helpers/keys.js';
import { signSecp } from '../helpers/messages.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { TestChain } from '../helpers/test-chain.js';

export const SENDER_COUNT = 100;
/** A sender with almost nothing: 0.000001 FIL. */
export const POOR = secpKey('mpool-poor');

export function createTestChain(): TestChain {
  setDefaultNetwork('t');
  return TestChain.create({
    onDisk: true,
    senders: SENDER_COUNT,
    template: fundedTemplate([accountOf(POOR.address, 10n ** 12n)]),
  });
}

/** The pool on the chain, as the node opens it, without republishing and with a seeded random source. */
export function openPool(t: TestChain, options: Partial<MessagePoolOptions> = {}): Promise<MessagePool> {
  return Pool.open({
    chain: mpoolChainOf(t.chain, t.states),
    params: PARAMS,
    store: t.db.mpool,
    transaction: (fn) => t.db.transaction(fn),
    republishTimer: false,
    random: seededRandom(1),
    ...options,
  });
}

/**
 * The node's MessageSigner (MpoolPushMessage) over `pool`: gas estimated with a seeded random
 * source, messages signed with the chain's senders; `onSign` sees every signing.
 */
export function messageSigner(t: TestChain, pool: MessagePool, onSign: () => void = () => {}): MessageSigner {
  const gas = new GasEstimator({ chain: mpoolChainOf(t.chain, t.states), pool, random: seededRandom(3) });
  const byAddress = new Map<string, SecpKey>(t.senders.map((key) => [key.address.toString(), key]));
  return new MessageSigner({
    pool,
    gas,
    store: t.db.mpool,
    sign: async (address, message) => {
      onSign();
      return signSecp(byAddress.get(address.toString()) as SecpKey, message);
    },
  });
}

/** 1 FIL from the first sender to bob with no nonce or gas set, as MpoolPushMessage receives it; fields override. */
export function unsetMessage(t: TestChain, fields: Partial<Message> = {}): Message {
  return {
    from: (t.senders[0] as SecpKey).address,
    to: keys.bob.address,
    nonce: 0n,
    value: FIL,
    gasLimit: 0n,
    gasFeeCap: 0n,
    gasPremium: 0n,
    method: 0n,
    params: new Uint8Array(0),
    ...fields,
  };
}

/** A plain transfer of 1 attoFIL to bob with ample gas; fields override. */
export function transfer(key: SecpKey, nonce: bigint, fields: Partial<Message> = {}): SignedMessage {
  return signSecp(key, {
    from: key.address,
    to: keys.bob.address,
    nonce,
    value: 1n,
    gasLimit: 3_000_000n,
    gasFeeCap: 1_000_000_000n,
    gasPremium: 100_000n,
    method: 0n,
    params: new Uint8Array(0),
    ...fields,
  });
}

export function cidOf(signed: SignedMessage): string {
  return signedMessageCid(signed).toString();
}

/** The MpoolError a refused push rejects with; fails when the pool accepts the message. */
export async function refusal(promise: Promise<unknown>): Promise<MpoolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MpoolError);
    return error as MpoolError;
  }
  throw new Error('the pool accepted the message');
}
