/**
 * A method declares the services it needs: on a node without one of them the dispatcher answers one
 * error naming the method and the service, and `rpc.discover` lists only the methods the node serves.
 * Two real servers: one without a chain (wallet and tokens only), one with the chain fixture and no
 * message pool, network or miner.
 */

import { allMethods, type LedgerApi, ledgerApi, RpcClient, type RpcMethod } from '../../src/rpc/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { call, startTestServer, type TestServer } from './harness.js';

let bare: TestServer;
let chained: ChainServer;

beforeAll(async () => {
  [bare, chained] = await Promise.all([startTestServer(), startChainServer()]);
});
afterAll(() => Promise.all([bare.close(), chained.close()]));

/** The v1 method names a node serves when it has exactly `services`. */
function servedWith(...services: string[]): string[] {
  const served = (method: RpcMethod) => method.needs.every((service) => services.includes(service));
  return allMethods
    .filter((method) => method.apiVersions.includes(1) && served(method))
    .map((method) => `Ledger.${method.name}`)
    .sort();
}

async function discovered(url: string): Promise<string[]> {
  const { result } = await call(url, 'rpc.discover', []);
  return (result as { methods: { name: string }[] }).methods.map((method) => method.name).sort();
}

describe('a node without the chain', () => {
  test('answers a chain method with the one service-unavailable error, under either namespace', async () => {
    for (const name of ['Ledger.ChainHead', 'Filecoin.ChainHead']) {
      expect(await call(bare.url(1), name, [])).toEqual({
        error: { code: 1, message: `${name}: this node does not serve the chain (no chain service)` },
        id: 1,
        jsonrpc: '2.0',
      });
    }
    expect((await call(bare.url(1), 'Ledger.NetPeers', [])).error).toEqual({
      code: 1,
      message: 'Ledger.NetPeers: this node does not serve the libp2p network and chain sync (no net service)',
    });
  });

  test('rpc.discover lists only what it serves: no Chain*, State*, Mpool*, Net* or Sync* method', async () => {
    const names = await discovered(bare.url(1));
    // Its logger's subsystems are the one service the test server has (LogList, LogSetLevel).
    expect(names).toEqual(servedWith('logs'));
    expect(names).toContain('Ledger.WalletNew');
    expect(names).not.toContain('Ledger.ChainHead');
    expect(names).not.toContain('Ledger.StateSearchMsg');
    expect((await call(bare.url(1), 'Filecoin.Discover', [])).result).toEqual(
      (await call(bare.url(1), 'rpc.discover', [])).result,
    );
  });
});

describe('a node with the chain but no message pool, network or miner', () => {
  let api: LedgerApi;
  beforeAll(() => {
    api = ledgerApi(new RpcClient({ url: chained.url(1) }));
  });

  test('serves the chain methods through the typed client', async () => {
    const head = await api.ChainHead();
    expect(head.Height).toBe(Number(chained.t.chain.head().height));
    expect(head.Cids).toEqual(chained.t.chain.head().cids.map((cid) => ({ '/': cid.toString() })));
  });

  test('names the first service a method lacks', async () => {
    await expect(api.MpoolPending(null)).rejects.toMatchObject({
      rpcCode: 1,
      message: 'Ledger.MpoolPending: this node does not serve a message pool (no mpool service)',
    });
    await expect(api.MinerGetBaseInfo('t01000', 1, [])).rejects.toMatchObject({
      rpcCode: 1,
      message: 'Ledger.MinerGetBaseInfo: this node does not serve block production (no mining service)',
    });
  });

  test('rpc.discover lists the chain methods and leaves out the pool, network and miner ones', async () => {
    const names = await discovered(chained.url(1));
    expect(names).toEqual(servedWith('chain'));
    expect(names).toContain('Ledger.ChainHead');
    expect(names).toContain('Ledger.StateWaitMsg');
    expect(names).not.toContain('Ledger.MpoolPush');
    expect(names).not.toContain('Ledger.SyncState');
    expect(names).not.toContain('Ledger.MinerCreateBlock');
  });
});
