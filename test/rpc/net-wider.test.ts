/**
 * NetPeerInfo, NetAgentVersion and NetBandwidthStats over HTTP, served by a real RPC server over
 * a real libp2p host on 127.0.0.1 that is connected to a second one (identify, hello and gossip
 * run between them as between nodes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { LocalBeacon } from '../../src/beacon/index.js';
import { BlockValidator } from '../../src/consensus/index.js';
import { LedgerNetwork, loadOrCreatePeerKey } from '../../src/net/index.js';
import { generateJwtSecret, RpcServer, startingNodeInfo, TokenAuthority } from '../../src/rpc/index.js';
import { BlockIntake, SyncManager } from '../../src/sync/index.js';
import { setDefaultNetwork } from '../../src/types/index.js';
import { Keystore, Wallet } from '../../src/wallet/index.js';
import { GENESIS_TIMESTAMP, PARAMS } from '../helpers/genesis.js';
import { until } from '../helpers/sync-nodes.js';
import { TestChain } from '../helpers/test-chain.js';
import { call } from './harness.js';

const logger = pino({ level: 'silent' });
let t: TestChain;
let directory: string;
let ours: LedgerNetwork;
let theirs: LedgerNetwork;
let server: RpcServer;
let sync: SyncManager;
let url: string;
let admin: Record<string, string>;

async function network(name: string): Promise<LedgerNetwork> {
  const net = await LedgerNetwork.create({
    chain: t.chain,
    networkName: 'ledger-test',
    privateKey: await loadOrCreatePeerKey(mkdtempSync(join(directory, `${name}-`))),
    listen: ['/ip4/127.0.0.1/tcp/0'],
    logger,
  });
  await net.start();
  return net;
}

beforeAll(async () => {
  setDefaultNetwork('t');
  t = TestChain.create();
  directory = mkdtempSync(join(tmpdir(), 'ledger-net-rpc-'));
  ours = await network('ours');
  theirs = await network('theirs');
  const validator = new BlockValidator({
    chain: t.chain,
    states: t.states,
    beacon: LocalBeacon.fromSeed(new Uint8Array(32), GENESIS_TIMESTAMP, PARAMS.blockDelaySecs),
    params: PARAMS,
  });
  sync = new SyncManager({
    chain: t.chain,
    intake: new BlockIntake({ chain: t.chain, validator }),
    exchange: ours.exchange,
    params: PARAMS,
    logger,
  });
  const tokens = new TokenAuthority(generateJwtSecret());
  admin = { authorization: `Bearer ${await tokens.create(['read', 'write', 'sign', 'admin'])}` };
  server = await RpcServer.start({
    context: {
      node: startingNodeInfo('0.1.0+devnet', 4),
      wallet: new Wallet(new Keystore(join(directory, 'keystore'))),
      tokens,
      chain: { store: t.chain, states: t.states, params: PARAMS, networkName: 'ledger-test' },
      net: { network: ours, sync },
    },
    logger,
    host: '127.0.0.1',
    port: 0,
  });
  url = `http://127.0.0.1:${server.port}/rpc/v1`;
  await ours.connect(theirs.listenAddresses()[0] as string);
  // Identify has run once the peer store knows the other side's agent.
  await until(() => ours.host.getConnections().length > 0, 10_000);
  for (let i = 0; i < 100 && (await ours.peerRecord(theirs.peerId))?.agentVersion === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

afterAll(async () => {
  await server.close();
  sync.stop();
  await ours.stop();
  await theirs.stop();
  t.close();
  rmSync(directory, { recursive: true, force: true });
  setDefaultNetwork('f');
});

describe('NetPeerInfo', () => {
  test("a connected peer: identify's agent and protocols, its addresses, its connections", async () => {
    const info = (await call(url, 'Filecoin.NetPeerInfo', [theirs.peerId])).result as Record<string, unknown>;
    expect(info).toMatchObject({
      ID: theirs.peerId,
      Agent: expect.stringMatching(/\S/),
      Addrs: expect.arrayContaining([expect.stringMatching(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+$/)]),
      Protocols: expect.arrayContaining(['/fil/hello/1.0.0', '/ipfs/id/1.0.0']),
      ConnMgrMeta: {
        FirstSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        Value: expect.any(Number),
        Tags: expect.any(Object),
        Conns: expect.any(Object),
      },
    });
    const protocols = info.Protocols as string[];
    expect(protocols).toEqual([...protocols].sort());
    expect(Object.keys(info.ConnMgrMeta as { Conns: object })).toEqual(['FirstSeen', 'Value', 'Tags', 'Conns']);
  });

  test('a peer never met has empty fields, as in Lotus; a malformed peer id is an error naming it', async () => {
    const stranger = '12D3KooWGzxzKZYveHXtpG6AsrUJBcWxHBFS2HsEoGTxrMLvKXtf';
    expect((await call(url, 'Filecoin.NetPeerInfo', [stranger])).result).toEqual({
      ID: stranger,
      Agent: '',
      Addrs: null,
      Protocols: null,
      ConnMgrMeta: null,
    });
    expect((await call(url, 'Filecoin.NetPeerInfo', ['not-a-peer'])).error).toEqual({
      code: 1,
      message: expect.stringContaining('invalid peer id "not-a-peer"'),
    });
  });
});

describe('NetAgentVersion', () => {
  test("the agent the peer's identify reported; an error for a peer that reported none", async () => {
    const agent = (await call(url, 'Filecoin.NetAgentVersion', [theirs.peerId])).result;
    expect(agent).toBe((await ours.peerRecord(theirs.peerId))?.agentVersion);
    expect(agent).toMatch(/\S/);
    expect(
      (await call(url, 'Filecoin.NetAgentVersion', ['12D3KooWGzxzKZYveHXtpG6AsrUJBcWxHBFS2HsEoGTxrMLvKXtf'])).error,
    ).toEqual({ code: 1, message: expect.stringContaining('no agent version known') });
  });
});

describe('NetBandwidthStats', () => {
  test('bytes in and out over the connection, growing with traffic; rates as numbers', async () => {
    const read = async () =>
      (await call(url, 'Filecoin.NetBandwidthStats', [])).result as {
        TotalIn: number;
        TotalOut: number;
        RateIn: number;
        RateOut: number;
      };
    const first = await read();
    expect(Object.keys(first)).toEqual(['TotalIn', 'TotalOut', 'RateIn', 'RateOut']);
    // The handshake, identify and hello went both ways already.
    expect(first.TotalIn).toBeGreaterThan(0);
    expect(first.TotalOut).toBeGreaterThan(0);
    await ours.sayHello(theirs.peerId);
    const second = await read();
    expect(second.TotalOut).toBeGreaterThan(first.TotalOut);
    expect(second.TotalIn).toBeGreaterThan(first.TotalIn);
    expect(typeof second.RateIn).toBe('number');
    expect(second.RateIn).toBeGreaterThanOrEqual(0);
  });
});

const STRANGER = '12D3KooWGzxzKZYveHXtpG6AsrUJBcWxHBFS2HsEoGTxrMLvKXtf';

describe('NetBandwidthStatsByPeer', () => {
  type Stats = { TotalIn: number; TotalOut: number; RateIn: number; RateOut: number };
  const byPeer = async () => (await call(url, 'Filecoin.NetBandwidthStatsByPeer', [])).result as Record<string, Stats>;

  test("the connected peer's bytes by its peer id, growing with traffic with it, within the node's totals", async () => {
    const first = await byPeer();
    expect(Object.keys(first)).toEqual([theirs.peerId]);
    const theirFirst = first[theirs.peerId]!;
    expect(Object.keys(theirFirst)).toEqual(['TotalIn', 'TotalOut', 'RateIn', 'RateOut']);
    expect(theirFirst.TotalIn).toBeGreaterThan(0);
    expect(theirFirst.TotalOut).toBeGreaterThan(0);
    await ours.sayHello(theirs.peerId);
    const second = (await byPeer())[theirs.peerId]!;
    expect(second.TotalOut).toBeGreaterThan(theirFirst.TotalOut);
    expect(second.TotalIn).toBeGreaterThan(theirFirst.TotalIn);
    const totals = (await call(url, 'Filecoin.NetBandwidthStats', [])).result as Stats;
    expect(second.TotalIn).toBeLessThanOrEqual(totals.TotalIn);
    expect(second.TotalOut).toBeLessThanOrEqual(totals.TotalOut);
    expect((await call(url, 'Filecoin.NetBandwidthStatsByPeer', [1])).error?.code).toBe(-32602);
  });
});

describe('NetConnectedness, NetPing, NetFindPeer', () => {
  test('a connected peer is 1 (go-libp2p Connected), a stranger 0; a malformed id is an error naming it', async () => {
    expect((await call(url, 'Filecoin.NetConnectedness', [theirs.peerId])).result).toBe(1);
    expect((await call(url, 'Filecoin.NetConnectedness', [STRANGER])).result).toBe(0);
    expect((await call(url, 'Filecoin.NetConnectedness', ['not-a-peer'])).error).toEqual({
      code: 1,
      message: expect.stringContaining('invalid peer id "not-a-peer"'),
    });
  });

  test('NetPing answers the round trip as a time.Duration in ns; a peer that cannot be reached is an error', async () => {
    const rtt = (await call(url, 'Filecoin.NetPing', [theirs.peerId])).result;
    expect(Number.isInteger(rtt)).toBe(true);
    expect(rtt as number).toBeGreaterThanOrEqual(0);
    expect((rtt as number) % 1_000_000).toBe(0);
    expect((await call(url, 'Filecoin.NetPing', [STRANGER])).error).toEqual({
      code: 1,
      message: expect.stringContaining(`cannot ping ${STRANGER}`),
    });
    expect((await call(url, 'Filecoin.NetPing', [])).error?.code).toBe(-32602);
  });

  test("NetFindPeer gives the addresses the peer store holds as Lotus's AddrInfo; an unknown peer is not found", async () => {
    const found = (await call(url, 'Filecoin.NetFindPeer', [theirs.peerId])).result as { ID: string; Addrs: string[] };
    expect(Object.keys(found)).toEqual(['ID', 'Addrs']);
    expect(found.ID).toBe(theirs.peerId);
    const port = theirs.listenAddresses()[0]!.split('/')[4];
    expect(found.Addrs).toContain(`/ip4/127.0.0.1/tcp/${port}`);
    expect((await call(url, 'Filecoin.NetFindPeer', [STRANGER])).error).toEqual({
      code: 1,
      message: expect.stringContaining('routing: not found'),
    });
  });
});

describe('NetListening and NetVersion (net_listening, net_version)', () => {
  test('true while the host listens; the EIP-155 chain id in decimal; v1 only, and under their Ethereum names', async () => {
    expect((await call(url, 'Filecoin.NetListening', [])).result).toBe(true);
    expect((await call(url, 'net_listening', [])).result).toBe(true);
    expect((await call(url, 'Filecoin.NetVersion', [])).result).toBe(String(PARAMS.eip155ChainId));
    expect((await call(url, 'net_version', [])).result).toBe(String(PARAMS.eip155ChainId));
    const v0 = url.replace('/rpc/v1', '/rpc/v0');
    expect((await call(v0, 'Filecoin.NetVersion', [])).error?.code).toBe(-32601);
  });
});

describe('SyncValidateTipset, SyncUnmarkAllBad', () => {
  test('genesis is valid; a tipset that fails Expected Consensus is an error naming the block and goes to the bad-block cache', async () => {
    const genesisKey = t.chain.genesis.cids.map((cid) => ({ '/': cid.toString() }));
    expect((await call(url, 'Filecoin.SyncValidateTipset', [genesisKey])).result).toBe(true);
    // The fixture's blocks are unsigned, with tickets derived from labels: no real block producer made them.
    const forged = await t.mine();
    const key = forged.cids.map((cid) => ({ '/': cid.toString() }));
    const answer = await call(url, 'Filecoin.SyncValidateTipset', [key]);
    expect(answer.error).toEqual({ code: 1, message: expect.stringContaining(forged.cids[0]!.toString()) });
    const reason = (await call(url, 'Filecoin.SyncCheckBad', [key[0]])).result;
    expect(reason).toEqual(expect.stringMatching(/\S/));
    expect((await call(url, 'Filecoin.SyncValidateTipset', [[{ '/': 'bafy-not-a-cid' }]])).error?.code).toBe(-32602);

    expect((await call(url, 'Filecoin.SyncUnmarkAllBad', [])).error).toEqual({
      code: 1,
      message: "missing permission to invoke 'SyncUnmarkAllBad' (need 'admin')",
    });
    expect(await call(url, 'Filecoin.SyncUnmarkAllBad', [], admin)).toMatchObject({ result: null });
    expect((await call(url, 'Filecoin.SyncCheckBad', [key[0]])).result).toBe('');
  });
});

// Last: blocking closes the connection the tests above use.
describe('NetBlockAdd, NetBlockRemove, NetBlockList', () => {
  test('a blocked peer is disconnected and cannot be dialled until it is removed', async () => {
    expect((await call(url, 'Filecoin.NetBlockList', [])).result).toEqual({
      Peers: null,
      IPAddrs: null,
      IPSubnets: null,
    });
    expect((await call(url, 'Filecoin.NetBlockAdd', [{ Peers: [theirs.peerId] }])).error?.message).toBe(
      "missing permission to invoke 'NetBlockAdd' (need 'admin')",
    );
    expect(await call(url, 'Filecoin.NetBlockAdd', [{ Peers: [theirs.peerId] }], admin)).toMatchObject({
      result: null,
    });
    expect((await call(url, 'Filecoin.NetBlockList', [])).result).toEqual({
      Peers: [theirs.peerId],
      IPAddrs: null,
      IPSubnets: null,
    });
    await until(() => !ours.isConnected(theirs.peerId), 10_000);
    expect((await call(url, 'Filecoin.NetConnectedness', [theirs.peerId])).result).toBe(0);
    const dial = [{ ID: theirs.peerId, Addrs: theirs.listenAddresses() }];
    expect((await call(url, 'Filecoin.NetConnect', dial, admin)).error).toEqual({
      code: 1,
      message: expect.stringContaining(`cannot connect to ${theirs.listenAddresses()[0]}`),
    });
    expect(ours.isConnected(theirs.peerId)).toBe(false);

    expect(await call(url, 'Filecoin.NetBlockRemove', [{ Peers: [theirs.peerId] }], admin)).toMatchObject({
      result: null,
    });
    expect((await call(url, 'Filecoin.NetBlockList', [])).result).toEqual({
      Peers: null,
      IPAddrs: null,
      IPSubnets: null,
    });
    expect(await call(url, 'Filecoin.NetConnect', dial, admin)).toMatchObject({ result: null });
    expect((await call(url, 'Filecoin.NetConnectedness', [theirs.peerId])).result).toBe(1);
  });

  test('a blocked IP or subnet closes the connections from it and refuses new ones, both ways', async () => {
    expect(ours.isConnected(theirs.peerId)).toBe(true);
    const acl = { IPAddrs: ['127.0.0.1'], IPSubnets: ['10.0.0.0/8', 'fd00::/8'] };
    expect(await call(url, 'Filecoin.NetBlockAdd', [acl], admin)).toMatchObject({ result: null });
    expect((await call(url, 'Filecoin.NetBlockList', [])).result).toEqual({
      Peers: null,
      IPAddrs: ['127.0.0.1'],
      IPSubnets: ['10.0.0.0/8', 'fd00::/8'],
    });
    await until(() => !ours.isConnected(theirs.peerId), 10_000);
    // Their dial to us is refused at accept as ours to them is at dial.
    await expect(theirs.connect(ours.listenAddresses()[0] as string)).rejects.toThrow();
    expect(ours.isConnected(theirs.peerId)).toBe(false);
    expect(await call(url, 'Filecoin.NetBlockRemove', [acl], admin)).toMatchObject({ result: null });
    await theirs.connect(ours.listenAddresses()[0] as string);
    await until(() => ours.isConnected(theirs.peerId), 10_000);
    // The bytes of the connections the blocks closed still count for the peer.
    const stats = (await call(url, 'Filecoin.NetBandwidthStatsByPeer', [])).result as Record<
      string,
      { TotalIn: number }
    >;
    expect(stats[theirs.peerId]!.TotalIn).toBeGreaterThan(0);
  });

  test('a malformed entry is an error naming it, and nothing of the list is applied', async () => {
    const bad = async (acl: unknown) => (await call(url, 'Filecoin.NetBlockAdd', [acl], admin)).error;
    expect(await bad({ Peers: [STRANGER], IPAddrs: ['300.1.1.1'] })).toEqual({
      code: 1,
      message: 'error parsing IP address 300.1.1.1',
    });
    expect(await bad({ IPSubnets: ['10.0.0.0/33'] })).toEqual({
      code: 1,
      message: expect.stringContaining('error parsing subnet 10.0.0.0/33'),
    });
    expect(await bad({ Peers: ['nobody'] })).toEqual({
      code: 1,
      message: expect.stringContaining('invalid peer id "nobody"'),
    });
    expect(await bad({ Peers: 'nobody' })).toMatchObject({
      code: -32602,
      message: expect.stringContaining('acl.Peers'),
    });
    expect((await call(url, 'Filecoin.NetBlockList', [])).result).toEqual({
      Peers: null,
      IPAddrs: null,
      IPSubnets: null,
    });
  });
});
