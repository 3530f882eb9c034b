/**
 * StateCall, StateListMessages, StateDecodeParams and StateEncodeParams over HTTP, served by a
 * real RPC server over a real chain (SQLite chain store, executed tipsets, a genesis multisig of
 * alice holding 50 FIL).
 */
import { RpcClient } from '../../src/rpc/index.js';
import { ACTOR_CODES, StateTree } from '../../src/state/index.js';
import {
  type Address,
  cidToLotusJson,
  messageCid,
  messageFromLotusJson,
  messageToLotusJson,
  setDefaultNetwork,
  signedMessageCid,
} from '../../src/types/index.js';
import { toBase64 } from '../../src/utils/bytes.js';
import { encodeProposeParams, IMPLICIT_CALL_GAS_LIMIT, MultisigMethod } from '../../src/vm/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { FIL, multisigTemplate } from '../helpers/genesis.js';
import { keys, secpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { balanceOf, firstMultisig } from '../helpers/state.js';

const { alice, bob } = keys;

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let s: ChainServer;
let v1: RpcClient;
let v0: RpcClient;
let msig: Address;

beforeAll(async () => {
  s = await startChainServer({ chain: { template: multisigTemplate() } });
  v1 = new RpcClient({ url: s.url(1) });
  v0 = new RpcClient({ url: s.url(0) });
  msig = firstMultisig(StateTree.load(s.t.chain.blockstore, s.t.chain.head().parentStateRoot));
});
afterAll(async () => {
  await s.close();
  setDefaultNetwork('f');
});

const transfer = (from: Address, value: bigint, fields = {}) =>
  messageToLotusJson(message({ from, to: bob.address, value, ...fields }));

describe('StateCall', () => {
  test('a send runs on the parent state with the sender’s nonce and Lotus’s implicit gas limit, and keeps nothing', async () => {
    const head = s.t.chain.head();
    const result = (await v1.request('Filecoin.StateCall', [
      transfer(alice.address, FIL, { nonce: 42n }),
      null,
    ])) as Json;
    expect(Object.keys(result)).toEqual(['MsgCid', 'Msg', 'MsgRct', 'GasCost', 'ExecutionTrace', 'Error', 'Duration']);
    const applied = messageFromLotusJson(result.Msg, 'Msg');
    expect(applied.nonce).toBe(0n);
    expect(applied.gasLimit).toBe(IMPLICIT_CALL_GAS_LIMIT);
    expect(result.MsgCid).toEqual(cidToLotusJson(messageCid(applied)));
    expect(result.MsgRct).toEqual({ ExitCode: 0, Return: null, GasUsed: expect.any(Number), EventsRoot: null });
    expect(result.GasCost).toEqual({
      Message: null,
      GasUsed: '0',
      BaseFeeBurn: '0',
      OverEstimationBurn: '0',
      MinerPenalty: '0',
      MinerTip: '0',
      Refund: '0',
      TotalCost: '0',
    });
    // The trace names the sender by its ID address, as the FVM's traces do.
    expect(result.ExecutionTrace.Msg).toMatchObject({ From: expect.stringMatching(/^t0\d+$/), Value: FIL.toString() });
    expect(result.Error).toBe('');
    expect(typeof result.Duration).toBe('number');
    // Nothing was kept: same head, same balance, and v0 answers the same call.
    expect(s.t.chain.head()).toBe(head);
    expect(balanceOf(StateTree.load(s.t.chain.blockstore, head.parentStateRoot), bob.address)).toBe(10n * FIL);
    const v0Result = (await v0.request('Filecoin.StateCall', [transfer(alice.address, FIL), null])) as Json;
    expect(v0Result.MsgRct.ExitCode).toBe(0);
  });

  test('a failing call answers its InvocResult with the exit code and the error, not a JSON-RPC error', async () => {
    const tooMuch = (await v1.request('Filecoin.StateCall', [transfer(bob.address, 11n * FIL), null])) as Json;
    expect(tooMuch.MsgRct.ExitCode).toBe(6); // SysErrInsufficientFunds
    expect(tooMuch.Error).not.toBe('');
    // Approving a transaction the multisig does not have: the actor's NotFound (17).
    const approve = messageToLotusJson(
      message({
        from: alice.address,
        to: msig,
        method: MultisigMethod.Approve,
        params: new Uint8Array([0x82, 0x07, 0x40]),
      }),
    );
    const missing = (await v1.request('Filecoin.StateCall', [approve, null])) as Json;
    expect(missing.MsgRct.ExitCode).toBe(17);
    expect(missing.Error).toContain('no such transaction 7');
  });

  test('a tipset’s messages from the same sender run first, so the call sees their nonce', async () => {
    const included = await s.t.mine([
      { secp: [signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }))] },
    ]);
    const key = included.key.cids.map(cidToLotusJson);
    const fromAlice = (await v1.request('Filecoin.StateCall', [transfer(alice.address, FIL), key])) as Json;
    expect(fromAlice.Msg.Nonce).toBe(1);
    const fromBob = (await v1.request('Filecoin.StateCall', [transfer(bob.address, FIL), key])) as Json;
    expect(fromBob.Msg.Nonce).toBe(0);
    await s.t.mine();
  });

  test('an unknown sender, a bad message or a wrong parameter count is a clear error', async () => {
    const stranger = secpKey('state-call-stranger').address;
    await expect(v1.request('Filecoin.StateCall', [transfer(stranger, 1n), null])).rejects.toThrow(
      `sender ${stranger} not found on chain`,
    );
    await expect(v1.request('Filecoin.StateCall', [{ To: bob.address.toString() }, null])).rejects.toThrow('message');
    await expect(v1.request('Filecoin.StateCall', [transfer(alice.address, 1n)])).rejects.toThrow('wrong param count');
  });
});

describe('StateListMessages', () => {
  test('lists the CIDs of matching messages walking back from the tipset; null when none', async () => {
    const signed = signSecp(alice, message({ from: alice.address, to: msig, value: 2n * FIL, nonce: 1n }));
    await s.t.mine([{ secp: [signed] }]);
    await s.t.mine();
    const cid = cidToLotusJson(signedMessageCid(signed));
    expect(await v1.request('Filecoin.StateListMessages', [{ To: msig.toString() }, null, 0])).toEqual([cid]);
    const fromAlice = (await v1.request('Filecoin.StateListMessages', [
      { From: alice.address.toString() },
      null,
      0,
    ])) as Json[];
    expect(fromAlice).toHaveLength(2);
    expect(fromAlice[0]).toEqual(cid);
    expect(
      await v0.request('Filecoin.StateListMessages', [
        { To: msig.toString(), From: alice.address.toString() },
        null,
        0,
      ]),
    ).toEqual([cid]);
    // Above the messages' epochs, an address without an actor, and a filter on both ends that matches nothing: null.
    const height = Number(s.t.chain.head().height);
    expect(await v1.request('Filecoin.StateListMessages', [{ To: msig.toString() }, null, height])).toBeNull();
    expect(
      await v1.request('Filecoin.StateListMessages', [{ To: secpKey('nobody').address.toString() }, null, 0]),
    ).toBeNull();
    expect(
      await v1.request('Filecoin.StateListMessages', [{ To: msig.toString(), From: bob.address.toString() }, null, 0]),
    ).toBeNull();
    await expect(v1.request('Filecoin.StateListMessages', [{}, null, 0])).rejects.toThrow(
      'must specify at least To or From in message filter',
    );
    await expect(v1.request('Filecoin.StateListMessages', [{ To: 'x' }, null, 0])).rejects.toThrow('match.To');
  });
});

describe('StateDecodeParams and StateEncodeParams', () => {
  test('a multisig Propose’s params go from CBOR to Lotus JSON and back', async () => {
    const cbor = encodeProposeParams(bob.address, 3n * FIL, 0n, new Uint8Array(0));
    const decoded = await v1.request('Filecoin.StateDecodeParams', [msig.toString(), 2, toBase64(cbor), null]);
    expect(decoded).toEqual({ To: bob.address.toString(), Value: (3n * FIL).toString(), Method: 0, Params: null });
    expect(await v0.request('Filecoin.StateDecodeParams', [msig.toString(), 2, toBase64(cbor), null])).toEqual(decoded);
    const code = cidToLotusJson(ACTOR_CODES.multisig);
    expect(await v1.request('Filecoin.StateEncodeParams', [code, 2, decoded])).toBe(toBase64(cbor));
    // Go's encoding/json: field names in any case, absent fields zero.
    expect(await v1.request('Filecoin.StateEncodeParams', [code, 3, { id: 7 }])).toBe(
      toBase64(new Uint8Array([0x82, 0x07, 0x40])),
    );
  });

  test('unknown methods, actors and fields, and undecodable bytes are clear errors; StateEncodeParams is v1 only', async () => {
    const code = cidToLotusJson(ACTOR_CODES.multisig);
    await expect(
      v1.request('Filecoin.StateDecodeParams', [msig.toString(), 2, toBase64(new Uint8Array([1])), null]),
    ).rejects.toThrow('the params are not a ProposeParams');
    await expect(v1.request('Filecoin.StateDecodeParams', [msig.toString(), 99, '', null])).rejects.toThrow(
      'method 99 of the multisig actor',
    );
    await expect(
      v1.request('Filecoin.StateDecodeParams', [secpKey('nobody').address.toString(), 2, '', null]),
    ).rejects.toThrow('actor not found');
    await expect(
      v1.request('Filecoin.StateEncodeParams', [code, 2, { To: bob.address.toString(), Amount: '1' }]),
    ).rejects.toThrow('ProposeParams has no field Amount');
    await expect(
      v1.request('Filecoin.StateEncodeParams', [
        cidToLotusJson(signedMessageCid(signSecp(alice, message({ from: alice.address, to: bob.address })))),
        2,
        {},
      ]),
    ).rejects.toThrow('unknown actor code');
    await expect(v0.request('Filecoin.StateEncodeParams', [code, 2, {}])).rejects.toThrow(
      "method 'Filecoin.StateEncodeParams' not found",
    );
  });
});
