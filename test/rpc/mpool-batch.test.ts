/**
 * MpoolBatchPush, MpoolBatchPushUntrusted, MpoolBatchPushMessage, MpoolCheckMessages,
 * MpoolCheckPendingMessages and MpoolClear over HTTP, served by a real RPC server over a real
 * chain and the message pool the node opens on it (MpoolPushMessage signing with the node wallet).
 */
import { RpcClient } from '../../src/rpc/index.js';
import {
  cidToLotusJson,
  type Message,
  messageCid,
  messageToLotusJson,
  type SignedMessage,
  setDefaultNetwork,
  signedMessageCid,
  signedMessageToLotusJson,
} from '../../src/types/index.js';
import { KeyType } from '../../src/wallet/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys, secpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';

const { alice, bob, worker } = keys;

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let s: ChainServer;
let v1: RpcClient;
let v0: RpcClient;

beforeEach(async () => {
  s = await startChainServer({ mpool: true });
  s.wallet.import({ type: KeyType.Secp256k1, privateKey: bob.privateKey });
  const token = await s.tokens.create(['read', 'write', 'sign']);
  v1 = new RpcClient({ url: s.url(1), token });
  v0 = new RpcClient({ url: s.url(0), token });
});
afterEach(async () => {
  await s.close();
  setDefaultNetwork('f');
});

const fromAlice = (nonce: bigint, fields: Partial<Message> = {}): SignedMessage =>
  signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL, nonce, ...fields }));
const json = (signed: SignedMessage) => signedMessageToLotusJson(signed);
const cidJson = (signed: SignedMessage) => cidToLotusJson(signedMessageCid(signed));

describe('batch pushes', () => {
  test('MpoolBatchPush pushes each message and answers their CIDs; null for an empty list', async () => {
    const batch = [fromAlice(0n), fromAlice(1n)];
    expect(await v1.request('Filecoin.MpoolBatchPush', [batch.map(json)])).toEqual(batch.map(cidJson));
    expect(((await v1.request('Filecoin.MpoolPending', [null])) as Json[]).map((m) => m.CID)).toEqual(
      batch.map(cidJson),
    );
    expect(await v1.request('Filecoin.MpoolBatchPush', [[]])).toBeNull();
    expect(await v0.request('Filecoin.MpoolBatchPushUntrusted', [[json(fromAlice(2n))]])).toEqual([
      cidJson(fromAlice(2n)),
    ]);
  });

  test('a refused message stops the batch, names itself, and leaves the ones before it pushed', async () => {
    const tooLow = fromAlice(0n, { gasFeeCap: 1n, gasPremium: 1n });
    await expect(v1.request('Filecoin.MpoolBatchPush', [[json(fromAlice(0n)), json(tooLow)]])).rejects.toThrow(
      `message from ${alice.address} with nonce 0 (2 of 2; the 1 before it were pushed)`,
    );
    expect(await v1.request('Filecoin.MpoolPending', [null])).toHaveLength(1);
    // Untrusted pushes allow no nonce gap.
    await expect(v1.request('Filecoin.MpoolBatchPushUntrusted', [[json(fromAlice(5n))]])).rejects.toThrow('nonce gap');
    await expect(v1.request('Filecoin.MpoolBatchPush', [[{ Message: {} }]])).rejects.toThrow('signedMessages[0]');
  });

  test('MpoolBatchPushMessage signs with the wallet, consecutive nonces, one spec for all', async () => {
    const unsigned = (value: bigint) =>
      messageToLotusJson({
        ...message({ from: bob.address, to: alice.address, value }),
        gasLimit: 0n,
        gasFeeCap: 0n,
        gasPremium: 0n,
      });
    const signed = (await v1.request('Filecoin.MpoolBatchPushMessage', [
      [unsigned(FIL), unsigned(2n * FIL)],
      { MaxFee: '0' },
    ])) as Json[];
    expect(signed.map((m) => [m.Message.Nonce, m.Message.Value])).toEqual([
      [0, FIL.toString()],
      [1, (2n * FIL).toString()],
    ]);
    expect(signed[0]).toEqual({
      Message: expect.any(Object),
      Signature: { Type: 1, Data: expect.any(String) },
      CID: expect.any(Object),
    });
    expect(await v1.request('Filecoin.MpoolBatchPushMessage', [null, null])).toBeNull();
    // A key the wallet lacks: the first message is refused, with its place in the batch.
    const stranger = secpKey('batch-stranger').address;
    await expect(
      v1.request('Filecoin.MpoolBatchPushMessage', [[{ ...unsigned(1n), From: stranger.toString() }], null]),
    ).rejects.toThrow(`message from ${stranger} (1 of 1; none before it was pushed)`);
  });
});

describe('checks', () => {
  /** Lotus's order of checks for a message that passes the validity check. */
  const ALL_CODES = [9, 11, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12];
  const prototype = (m: Message, validNonce = true) => ({ Message: messageToLotusJson(m), ValidNonce: validNonce });
  const codes = (list: Json[]) => list.map((check) => check.Code);
  const failed = (list: Json[]) => list.filter((check) => !check.OK).map((check) => [check.Code, check.Err]);

  test('a good message passes every check, with Lotus’s shape and hints', async () => {
    const good = message({ from: alice.address, to: bob.address, value: FIL });
    const [checks] = (await v1.request('Filecoin.MpoolCheckMessages', [[prototype(good)]])) as Json[][];
    expect(codes(checks as Json[])).toEqual(ALL_CODES);
    expect(failed(checks as Json[])).toEqual([]);
    const cid = cidToLotusJson(messageCid(good));
    const byCode = new Map((checks as Json[]).map((check) => [check.Code, check]));
    expect(byCode.get(9)).toEqual({ Cid: cid, Code: 9, OK: true, Err: '', Hint: { nonce: 0 } });
    expect(byCode.get(11)?.Hint).toEqual({ balance: (1000n * FIL).toString() });
    expect(byCode.get(1)?.Hint).toBeNull();
    expect(byCode.get(4)?.Hint.minGas).toMatchObject({ Name: 'OnChainMessage', ComputeGas: expect.any(Number) });
    expect(byCode.get(6)?.Hint).toEqual({ baseFee: s.t.chain.head().parentBaseFee.toString() });
    expect(byCode.get(10)?.Hint).toEqual({ nextNonce: 0 });
    expect(byCode.get(12)?.Hint).toEqual({
      requiredFunds: (good.gasFeeCap * good.gasLimit + good.value).toString(),
    });
    expect(await v1.request('Filecoin.MpoolCheckMessages', [[]])).toEqual([]);
  });

  test('a bad message reports Lotus’s check codes: fee cap, gas, nonce, balance, validity', async () => {
    const bad = message({
      from: bob.address,
      to: alice.address,
      value: 20n * FIL,
      nonce: 3n,
      gasLimit: 100n,
      gasFeeCap: 99n,
      gasPremium: 1n,
    });
    const invalid = message({ from: alice.address, to: bob.address, gasFeeCap: 1n, gasPremium: 2n });
    const flexible = message({ from: alice.address, to: bob.address, nonce: 9n });
    const [badChecks, invalidChecks, flexibleChecks] = (await v1.request('Filecoin.MpoolCheckMessages', [
      [prototype(bad), prototype(invalid), prototype(flexible, false)],
    ])) as Json[][];
    // Below the minimum base fee the base-fee checks are skipped, as in Lotus.
    expect(codes(badChecks as Json[])).toEqual([9, 11, 1, 2, 3, 4, 5, 10, 12]);
    expect(failed(badChecks as Json[])).toEqual([
      [4, 'GasLimit less than epoch minimum gas'],
      [5, 'GasFeeCap less than minimum base fee'],
      [10, "message nonce doesn't match next nonce (0)"],
      [12, 'insufficient balance'],
    ]);
    // A syntactically invalid message ends its list at the validity check.
    expect(codes(invalidChecks as Json[])).toEqual([9, 11, 1, 2, 3]);
    expect(failed(invalidChecks as Json[])).toEqual([
      [3, "syntactically invalid message: 'GasFeeCap' less than 'GasPremium'"],
    ]);
    // Without ValidNonce the nonce is not checked (the pool will assign it); the sender was seen before: no nonce hint.
    expect(failed(flexibleChecks as Json[])).toEqual([]);
    expect((flexibleChecks as Json[])[0]).toMatchObject({ Code: 9, OK: true, Hint: null });
    // A sender without an actor: only the state nonce check, failed.
    const stranger = secpKey('check-stranger').address;
    const [unknownChecks] = (await v1.request('Filecoin.MpoolCheckMessages', [
      [prototype(message({ from: stranger, to: bob.address }))],
    ])) as Json[][];
    expect(failed(unknownChecks as Json[])).toEqual([[9, `error retrieving state nonce: actor ${stranger} not found`]]);
    expect(unknownChecks).toHaveLength(1);
    await expect(v0.request('Filecoin.MpoolCheckMessages', [[]])).rejects.toThrow(
      "method 'Filecoin.MpoolCheckMessages' not found",
    );
    await expect(v1.request('Filecoin.MpoolCheckMessages', [[{ Message: { To: 't01' } }]])).rejects.toThrow(
      'prototypes[0]',
    );
  });

  test('MpoolCheckMessages continues from the pooled messages; MpoolCheckPendingMessages checks them from the state', async () => {
    await v1.request('Filecoin.MpoolBatchPush', [[json(fromAlice(0n)), json(fromAlice(1n))]]);
    const next = message({ from: alice.address, to: bob.address, nonce: 2n });
    const [checks] = (await v1.request('Filecoin.MpoolCheckMessages', [[prototype(next)]])) as Json[][];
    expect((checks as Json[])[0]?.Hint).toEqual({ nonce: 2 });
    expect(failed(checks as Json[])).toEqual([]);
    const pending = (await v1.request('Filecoin.MpoolCheckPendingMessages', [alice.address.toString()])) as Json[][];
    expect(pending).toHaveLength(2);
    expect(pending.map((list) => list.find((check) => check.Code === 10)?.Hint)).toEqual([
      { nextNonce: 0 },
      { nextNonce: 1 },
    ]);
    expect(pending.flatMap(failed)).toEqual([]);
    expect(await v1.request('Filecoin.MpoolCheckPendingMessages', [worker.address.toString()])).toBeNull();
    // Replacing the pooled nonce 0 with a send of more than alice has: its list fails the balance check, and the
    // pooled nonce 1 after it is checked too.
    const replacement = fromAlice(0n, { value: 2000n * FIL }).message;
    const replaced = (await v1.request('Filecoin.MpoolCheckReplaceMessages', [
      [messageToLotusJson(replacement)],
    ])) as Json[][];
    expect(replaced.map((list) => list[0]?.Cid)).toEqual([
      cidToLotusJson(messageCid(replacement)),
      cidToLotusJson(messageCid(fromAlice(1n).message)),
    ]);
    expect(replaced.map(failed)).toEqual([[[12, 'insufficient balance']], [[12, 'insufficient balance']]]);
  });
});

describe('MpoolClear', () => {
  test('without local it keeps this node’s messages; with local it drops them all', async () => {
    await v1.request('Filecoin.MpoolPush', [json(fromAlice(0n))]);
    const fromNetwork = signSecp(bob, message({ from: bob.address, to: alice.address, value: 1n }));
    await s.mpool?.pool.add(fromNetwork);
    expect(await v1.request('Filecoin.MpoolPending', [null])).toHaveLength(2);
    expect(await v1.request('Filecoin.MpoolClear', [false])).toBeNull();
    expect(((await v1.request('Filecoin.MpoolPending', [null])) as Json[]).map((m) => m.CID)).toEqual([
      cidJson(fromAlice(0n)),
    ]);
    expect(await v0.request('Filecoin.MpoolClear', [true])).toBeNull();
    expect(await v1.request('Filecoin.MpoolPending', [null])).toEqual([]);
    expect(s.t.db.mpool.localMessages()).toEqual([]);
    await expect(v1.request('Filecoin.MpoolClear', ['yes'])).rejects.toThrow('local');
  });
});
