/**
 * StateWaitMsg, StateSearchMsg, StateGetReceipt, StateReplay and StateCompute over HTTP, served
 * by a real RPC server over a real chain (SQLite chain store, executed tipsets).
 */
import { rmSync } from 'node:fs';
import { jest } from '@jest/globals';
import { main } from '../../src/cli/main.js';
import { RpcClient, type RpcServer } from '../../src/rpc/index.js';
import {
  cidToLotusJson,
  encodeSignedMessage,
  type Message,
  messageCid,
  messageToLotusJson,
  setDefaultNetwork,
  signedMessageCid,
  tipSetKeyToLotusJson,
} from '../../src/types/index.js';
import { startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import type { TestChain } from '../helpers/test-chain.js';

const { alice, bob } = keys;

interface Setup {
  t: TestChain;
  server: RpcServer;
  v1: RpcClient;
  v0: RpcClient;
  directory: string;
}

async function start(): Promise<Setup> {
  const c = await startChainServer();
  return {
    t: c.t,
    server: c.server,
    v1: new RpcClient({ url: c.url(1) }),
    v0: new RpcClient({ url: c.url(0) }),
    directory: c.directory,
  };
}

function transfer(fields: Partial<Message> = {}) {
  return signSecp(alice, message({ from: alice.address, to: bob.address, value: 2n * FIL, ...fields }));
}

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

describe('message lifecycle State methods over HTTP', () => {
  let s: Setup;
  beforeEach(async () => {
    s = await start();
  });
  afterEach(async () => {
    await s.server.close();
    s.t.close();
    rmSync(s.directory, { recursive: true, force: true });
    setDefaultNetwork('f');
  });

  test('StateSearchMsg (v1 and v0 forms) and StateGetReceipt (v0 only) answer a MsgLookup or null', async () => {
    const signed = transfer();
    const cid = cidToLotusJson(signedMessageCid(signed));
    const included = await s.t.mine([{ secp: [signed] }]);
    const execution = await s.t.mine();
    const lookup = (await s.v1.request('Filecoin.StateSearchMsg', [null, cid, -1, false])) as Json;
    expect(lookup).toEqual({
      Message: cid,
      Receipt: { ExitCode: 0, Return: null, GasUsed: expect.any(Number), EventsRoot: null },
      ReturnDec: null,
      TipSet: tipSetKeyToLotusJson(execution.key),
      Height: 2,
    });
    expect(await s.v0.request('Filecoin.StateSearchMsg', [cid])).toEqual(lookup);
    expect(await s.v0.request('Filecoin.StateSearchMsgLimited', [cid, 5])).toEqual(lookup);
    expect(await s.v0.request('Filecoin.StateGetReceipt', [cid, null])).toEqual(lookup.Receipt);
    await expect(s.v1.request('Filecoin.StateGetReceipt', [cid, null])).rejects.toThrow(
      "method 'Filecoin.StateGetReceipt' not found",
    );
    // From the inclusion tipset the message has not been executed yet: null, not an error.
    expect(await s.v1.request('Ledger.StateSearchMsg', [tipSetKeyToLotusJson(included.key), cid, -1, true])).toBeNull();
    // A CID the node never saw is Lotus's error, and a wrong parameter names itself.
    const unknown = cidToLotusJson(signedMessageCid(transfer({ nonce: 9n })));
    await expect(s.v1.request('Ledger.StateSearchMsg', [null, unknown, -1, true])).rejects.toThrow(
      'failed to load message',
    );
    await expect(s.v1.request('Ledger.StateSearchMsg', [null, cid, -1, 'yes'])).rejects.toThrow('allowReplaced');
    await expect(s.v1.request('Ledger.StateSearchMsg', [null, cid, -1])).rejects.toThrow('wrong param count');
  });

  test('StateWaitMsg long-polls until the message has `confidence` tipsets on top; v0 takes two parameters', async () => {
    const signed = transfer();
    const cid = cidToLotusJson(signedMessageCid(signed));
    // The node knows the message (as its pool would have stored it).
    s.t.chain.blockstore.put(signedMessageCid(signed), encodeSignedMessage(signed));
    let answered = false;
    const waiting = s.v1.request('Filecoin.StateWaitMsg', [cid, 2, -1, true]).then((result) => {
      answered = true;
      return result as Json;
    });
    const waitingV0 = s.v0.request('Filecoin.StateWaitMsg', [cid, 0]) as Promise<Json>;
    await new Promise((resolve) => setTimeout(resolve, 50));
    await s.t.mine([{ secp: [signed] }]); // 1
    const execution = await s.t.mine(); // 2
    expect((await waitingV0).Height).toBe(2);
    await s.t.mine(); // 3
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    await s.t.mine(); // 4
    const lookup = await waiting;
    expect(lookup.Height).toBe(2);
    expect(lookup.TipSet).toEqual(tipSetKeyToLotusJson(execution.key));
    expect(lookup.Receipt.ExitCode).toBe(0);
  });

  test('a pending StateWaitMsg ends with an error when the server stops, instead of holding it up', async () => {
    const cid = cidToLotusJson(signedMessageCid(transfer()));
    const waiting = s.v1.request('Ledger.StateWaitMsg', [cid, 1, -1, true]);
    const outcome = waiting.then(
      () => 'answered',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await s.server.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await outcome).toMatch(/stopped waiting for message|the node is stopping|cannot reach the node/);
    // afterEach closes again: harmless.
  });

  test('StateReplay: InvocResult with GasCost and trace, by search or by tipset; Lotus errors otherwise', async () => {
    const signed = transfer();
    const cid = cidToLotusJson(signedMessageCid(signed));
    const included = await s.t.mine([{ secp: [signed] }]);
    const other = await s.t.mine();
    const bySearch = (await s.v1.request('Filecoin.StateReplay', [null, cid])) as Json;
    const byTipSet = (await s.v0.request('Filecoin.StateReplay', [tipSetKeyToLotusJson(included.key), cid])) as Json;
    expect({ ...byTipSet, Duration: 0 }).toEqual({ ...bySearch, Duration: 0 });
    expect(bySearch.MsgCid).toEqual(cid);
    expect(bySearch.Msg).toEqual(messageToLotusJson(signed.message));
    expect(bySearch.Error).toBe('');
    const gas = bySearch.GasCost;
    expect(gas.Message).toEqual(cidToLotusJson(messageCid(signed.message)));
    expect(gas.GasUsed).toBe(String(bySearch.MsgRct.GasUsed));
    expect(BigInt(gas.BaseFeeBurn) + BigInt(gas.OverEstimationBurn) + BigInt(gas.MinerTip)).toBe(BigInt(gas.TotalCost));
    // Traces name actors by ID address, as the FVM's do.
    expect(bySearch.ExecutionTrace.Msg).toMatchObject({
      From: expect.stringMatching(/^t0\d+$/),
      Value: String(2n * FIL),
    });
    expect(bySearch.ExecutionTrace.MsgRct.ExitCode).toBe(0);
    await expect(s.v1.request('Ledger.StateReplay', [tipSetKeyToLotusJson(other.key), cid])).rejects.toThrow(
      'given message not found in tipset',
    );
    const pending = transfer({ nonce: 1n });
    s.t.chain.blockstore.put(signedMessageCid(pending), encodeSignedMessage(pending));
    await expect(s.v1.request('Ledger.StateReplay', [null, cidToLotusJson(signedMessageCid(pending))])).rejects.toThrow(
      `didn't find msg ${signedMessageCid(pending)}`,
    );
  });

  test('ledger state wait|search-msg|replay print Lotus output from this node', async () => {
    const signed = transfer();
    const cid = signedMessageCid(signed);
    await s.t.mine([{ secp: [signed] }]);
    const execution = await s.t.mine();
    await s.t.mine(); // the devnet's message confidence: one tipset on top
    const written: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const previous = process.env.LEDGER_API_INFO;
    process.env.LEDGER_API_INFO = `http://127.0.0.1:${s.server.port}`;
    try {
      await main(['node', 'ledger', 'state', 'wait', cid.toString()]);
      await main(['node', 'ledger', 'state', 'search-msg', cid.toString()]);
      await main(['node', 'ledger', 'state', 'replay', '--show-trace', cid.toString()]);
    } finally {
      write.mockRestore();
      if (previous === undefined) delete process.env.LEDGER_API_INFO;
      else process.env.LEDGER_API_INFO = previous;
    }
    const [waited, searched, replayed] = written;
    expect(waited).toMatch(
      new RegExp(
        `^Executed in tipset: \\[${execution.key.cids.join(' ')}\\]\nExit Code: 0\nGas Used: \\d+\nReturn: \n$`,
      ),
    );
    expect(searched).toBe(waited);
    expect(replayed).toMatch(/^Replay receipt:\nExit code: 0\nReturn: \nGas Used: \d+\nTotal Message Cost: \d+\n/);
    expect(replayed).toContain(`\t${bob.address.toString()}\t${2n * FIL}\t0\t\t0\t\n`);
  });

  test('StateCompute returns the root the chain recorded and a trace per message, implicit ones included', async () => {
    const signed = transfer();
    const included = await s.t.mine([{ secp: [signed] }]);
    const child = await s.t.mine();
    const output = (await s.v1.request('Filecoin.StateCompute', [
      Number(included.height),
      [],
      tipSetKeyToLotusJson(included.key),
    ])) as Json;
    expect(output.Root).toEqual(cidToLotusJson(child.parentStateRoot));
    expect(output.Trace.map((r: Json) => r.MsgCid)).toContainEqual(cidToLotusJson(signedMessageCid(signed)));
    // One user message, one block reward, one cron.
    expect(output.Trace).toHaveLength(3);
    const implicit = output.Trace.filter((r: Json) => r.GasCost.Message === null);
    expect(implicit).toHaveLength(2);
    const extra = messageToLotusJson(message({ from: bob.address, to: alice.address, value: FIL }));
    const withExtra = (await s.v1.request('Filecoin.StateCompute', [
      Number(included.height) + 1,
      [extra],
      null,
    ])) as Json;
    expect(withExtra.Trace[withExtra.Trace.length - 1].Msg).toEqual(extra);
    await expect(s.v1.request('Ledger.StateCompute', [0, null, tipSetKeyToLotusJson(included.key)])).rejects.toThrow(
      'below the tipset',
    );
  });
});
