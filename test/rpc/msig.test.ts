/**
 * The Msig* methods over HTTP against a real chain (SQLite chain store, executed tipsets) with a
 * real message pool whose MpoolPushMessage signs with the node wallet: a 2-of-2 multisig is
 * created, a send proposed (v0: the node pushes), approved (v1: a MessagePrototype the caller
 * pushes), and runs; the reads follow each step.
 */

import { RpcClient } from '../../src/rpc/index.js';
import { decodeCbor } from '../../src/types/cbor.js';
import { Address, cidToLotusJson, setDefaultNetwork } from '../../src/types/index.js';
import { fromBase64, toBase64 } from '../../src/utils/bytes.js';
import { encodeProposeParams, MultisigMethod, removeSignerParams } from '../../src/vm/index.js';
import { KeyType } from '../../src/wallet/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys, secpKey } from '../helpers/keys.js';

const { alice, bob } = keys;
const payee = secpKey('msig-payee').address;

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let s: ChainServer;
let v1: RpcClient;
let v0: RpcClient;

beforeAll(async () => {
  s = await startChainServer({ mpool: true });
  for (const key of [alice, bob]) s.wallet.import({ type: KeyType.Secp256k1, privateKey: key.privateKey });
  const token = await s.tokens.create(['read', 'write', 'sign']);
  v1 = new RpcClient({ url: s.url(1), token });
  v0 = new RpcClient({ url: s.url(0), token });
});
afterAll(async () => {
  await s.close();
  setDefaultNetwork('f');
});

/** Includes every pooled message in a tipset, then mines the tipset that executes them. */
async function mineThePool(): Promise<void> {
  await s.t.mine([{ secp: s.mpool?.pool.pending() ?? [] }]);
  await s.t.mine();
}

async function receiptOf(cid: unknown): Promise<Json> {
  const lookup = (await v1.request('Filecoin.StateSearchMsg', [null, cid, -1, true])) as Json;
  return lookup.Receipt;
}

/** Pushes a v1 builder's MessagePrototype as `lotus msig` does (MpoolPushMessage assigns the nonce). */
async function send(prototype: Json): Promise<unknown> {
  expect(prototype.ValidNonce).toBe(false);
  const signed = (await v1.request('Filecoin.MpoolPushMessage', [prototype.Message, null])) as Json;
  return signed.CID;
}

test('a 2-of-2 multisig: create, propose a send (v0), approve it (v1), the funds move and nothing is pending', async () => {
  const create = (await v1.request('Filecoin.MsigCreate', [
    2,
    [alice.address.toString(), bob.address.toString()],
    0,
    (10n * FIL).toString(),
    alice.address.toString(),
    '0',
  ])) as Json;
  expect(create).toEqual({
    Message: {
      Version: 0,
      To: 't01',
      From: alice.address.toString(),
      Nonce: 0,
      Value: (10n * FIL).toString(),
      GasLimit: 0,
      GasFeeCap: '0',
      GasPremium: '0',
      Method: 2,
      Params: expect.any(String),
      CID: { '/': expect.stringMatching(/^bafy2bza/) },
    },
    ValidNonce: false,
  });
  // The init actor's Exec of the multisig code with the constructor parameters, as Lotus's builder writes them.
  expect(await v1.request('Filecoin.StateDecodeParams', ['t01', 2, create.Message.Params, null])).toEqual({
    CodeCID: expect.objectContaining({ '/': expect.any(String) }),
    ConstructorParams: expect.any(String),
  });
  const createCid = await send(create);
  await mineThePool();
  const created = await receiptOf(createCid);
  expect(created.ExitCode).toBe(0);
  const [idBytes] = decodeCbor(fromBase64(created.Return)) as Uint8Array[];
  const msig = Address.fromBytes(idBytes as Uint8Array).toString();

  expect(await v1.request('Filecoin.MsigGetPending', [msig, null])).toEqual([]);
  expect(await v1.request('Filecoin.MsigGetAvailableBalance', [msig, null])).toBe((10n * FIL).toString());

  // v0 sends the proposal itself and answers its CID.
  const proposeCid = await v0.request('Filecoin.MsigPropose', [
    msig,
    payee.toString(),
    (3n * FIL).toString(),
    alice.address.toString(),
    0,
    null,
  ]);
  expect(proposeCid).toEqual({ '/': expect.stringMatching(/^bafy2bza/) });
  await mineThePool();
  expect((await receiptOf(proposeCid)).ExitCode).toBe(0);
  const aliceId = (await v1.request('Filecoin.StateLookupID', [alice.address.toString(), null])) as string;
  const pending = (await v1.request('Filecoin.MsigGetPending', [msig, null])) as Json[];
  expect(pending).toEqual([
    { ID: 0, To: payee.toString(), Value: (3n * FIL).toString(), Method: 0, Params: null, Approved: [aliceId] },
  ]);

  // A hash that does not match the proposal is refused by the actor (StateCall shows it without sending).
  const wrongHash = (await v1.request('Filecoin.MsigApproveTxnHash', [
    msig,
    0,
    alice.address.toString(),
    payee.toString(),
    (4n * FIL).toString(),
    bob.address.toString(),
    0,
    null,
  ])) as Json;
  const refused = (await v1.request('Filecoin.StateCall', [wrongHash.Message, null])) as Json;
  expect(refused.MsgRct.ExitCode).toBe(16);
  expect(refused.Error).toContain('hash does not match proposal params');

  // The approval that matches (the proposer given by key address, resolved to its ID) runs the send.
  const approve = (await v1.request('Filecoin.MsigApproveTxnHash', [
    msig,
    0,
    alice.address.toString(),
    payee.toString(),
    (3n * FIL).toString(),
    bob.address.toString(),
    0,
    null,
  ])) as Json;
  expect(approve.Message).toMatchObject({ To: msig, From: bob.address.toString(), Method: 3, Value: '0' });
  const approveCid = await send(approve);
  await mineThePool();
  expect((await receiptOf(approveCid)).ExitCode).toBe(0);
  expect(await v1.request('Filecoin.WalletBalance', [payee.toString()])).toBe((3n * FIL).toString());
  expect(await v1.request('Filecoin.MsigGetAvailableBalance', [msig, null])).toBe((7n * FIL).toString());
  expect(await v1.request('Filecoin.MsigGetPending', [msig, null])).toEqual([]);
  expect(await v1.request('Filecoin.MsigGetVestingSchedule', [msig, null])).toEqual({
    InitialBalance: '0',
    StartEpoch: 0,
    UnlockDuration: 0,
  });

  // The signer-change builders propose to the multisig itself, and the proposals can be cancelled.
  const carol = keys.carol.address.toString();
  const add = (await v1.request('Filecoin.MsigAddPropose', [msig, alice.address.toString(), carol, true])) as Json;
  expect(add.Message).toMatchObject({ To: msig, Method: Number(MultisigMethod.Propose) });
  expect(await v1.request('Filecoin.StateDecodeParams', [msig, 2, add.Message.Params, null])).toEqual({
    To: msig,
    Value: '0',
    Method: 5,
    Params: expect.any(String),
  });
  const addCid = await send(add);
  await mineThePool();
  expect((await receiptOf(addCid)).ExitCode).toBe(0);
  const cancel = (await v1.request('Filecoin.MsigAddCancel', [msig, alice.address.toString(), 1, carol, true])) as Json;
  const cancelCid = await send(cancel);
  await mineThePool();
  expect((await receiptOf(cancelCid)).ExitCode).toBe(0);
  expect(await v1.request('Filecoin.MsigGetPending', [msig, null])).toEqual([]);
});

test('a vesting multisig: the schedule, what vested between two tipsets and what is available', async () => {
  const duration = 1000n;
  const create = (await v1.request('Filecoin.MsigCreate', [
    0,
    [bob.address.toString()],
    Number(duration),
    (5n * FIL).toString(),
    bob.address.toString(),
    '0',
  ])) as Json;
  const createCid = await send(create);
  await mineThePool();
  const [idBytes] = decodeCbor(fromBase64((await receiptOf(createCid)).Return)) as Uint8Array[];
  const msig = Address.fromBytes(idBytes as Uint8Array).toString();
  const head = s.t.chain.head();
  const genesisKey = s.t.chain.genesis.key.cids.map(cidToLotusJson);
  const headKey = head.key.cids.map(cidToLotusJson);
  // Lotus's builder starts vesting at epoch 0; the amount still locked at epoch e is ceil(5 FIL × (1000 − e) / 1000).
  const lockedAt = (epoch: bigint) => (5n * FIL * (duration - epoch) + duration - 1n) / duration;
  expect(await v1.request('Filecoin.MsigGetVestingSchedule', [msig, headKey])).toEqual({
    InitialBalance: (5n * FIL).toString(),
    StartEpoch: 0,
    UnlockDuration: Number(duration),
  });
  expect(await v1.request('Filecoin.MsigGetAvailableBalance', [msig, headKey])).toBe(
    (5n * FIL - lockedAt(head.height)).toString(),
  );
  expect(await v1.request('Filecoin.MsigGetVested', [msig, genesisKey, headKey])).toBe(
    (5n * FIL - lockedAt(head.height)).toString(),
  );
  expect(await v1.request('Filecoin.MsigGetVested', [msig, headKey, headKey])).toBe('0');
  await expect(v1.request('Filecoin.MsigGetVested', [msig, headKey, genesisKey])).rejects.toThrow(
    `start tipset ${head.height} is after end tipset 0`,
  );
});

test('v0 and v1 take the Lotus parameter lists; the builders refuse bad input with a clear error', async () => {
  const msig = 't01000';
  const hashForm = [msig, 0, payee.toString(), '0', alice.address.toString(), 0, null];
  // v1: MsigCancel by ID, MsigCancelTxnHash with the proposal; v0: MsigCancel is the hash form.
  expect(((await v1.request('Filecoin.MsigCancel', [msig, 0, alice.address.toString()])) as Json).Message.Method).toBe(
    4,
  );
  expect(((await v1.request('Filecoin.MsigCancelTxnHash', hashForm)) as Json).Message.Method).toBe(4);
  await expect(v0.request('Filecoin.MsigCancelTxnHash', hashForm)).rejects.toThrow(
    "method 'Filecoin.MsigCancelTxnHash' not found",
  );
  await expect(v0.request('Filecoin.MsigCancel', [msig, 0, alice.address.toString()])).rejects.toThrow(
    'wrong param count',
  );
  // Approvals and cancellations call Approve (3) or Cancel (4) on the multisig, with no value.
  const [a, b] = [alice.address.toString(), bob.address.toString()];
  const builders: Array<[string, unknown[], number]> = [
    ['MsigApprove', [msig, 0, a], 3],
    ['MsigAddApprove', [msig, b, 0, a, b, false], 3],
    ['MsigAddCancel', [msig, a, 0, b, false], 4],
    ['MsigSwapApprove', [msig, b, 0, a, a, b], 3],
    ['MsigSwapCancel', [msig, a, 0, a, b], 4],
  ];
  for (const [name, params, method] of builders) {
    const built = (await v1.request(`Filecoin.${name}`, params)) as Json;
    expect([name, built.Message.To, built.Message.Method, built.Message.Value]).toEqual([name, msig, method, '0']);
  }
  // Swap and remove propose to the multisig itself.
  const swap = (await v1.request('Filecoin.MsigSwapPropose', [
    msig,
    alice.address.toString(),
    alice.address.toString(),
    bob.address.toString(),
  ])) as Json;
  expect(swap.Message).toMatchObject({ To: msig, Method: 2 });
  const remove = (await v1.request('Filecoin.MsigRemoveSigner', [
    msig,
    alice.address.toString(),
    bob.address.toString(),
    false,
  ])) as Json;
  const removeParams = removeSignerParams.encode({ signer: bob.address, decrease: false });
  expect(remove.Message.Params).toBe(
    toBase64(encodeProposeParams(Address.fromString(msig), 0n, MultisigMethod.RemoveSigner, removeParams)),
  );
  await expect(
    v1.request('Filecoin.MsigCreate', [3, [alice.address.toString()], 0, '0', alice.address.toString(), '0']),
  ).rejects.toThrow('cannot require signing of more addresses than provided for multisig');
  await expect(
    v1.request('Filecoin.MsigPropose', [msig, payee.toString(), '-1', alice.address.toString(), 0, null]),
  ).rejects.toThrow('must provide a non-negative amount for proposed send');
  await expect(
    v1.request('Filecoin.MsigPropose', [msig, payee.toString(), 5, alice.address.toString(), 0, null]),
  ).rejects.toThrow('value');
  await expect(v1.request('Filecoin.MsigGetPending', [alice.address.toString(), null])).rejects.toThrow(
    'is not a multisig',
  );
  await expect(
    v0.request('Filecoin.MsigCreate', [3, [alice.address.toString()], 0, '0', alice.address.toString(), '0']),
  ).rejects.toThrow('creating prototype: cannot require signing');
});
