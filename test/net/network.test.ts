/**
 * Two real libp2p hosts on 127.0.0.1 (TCP, noise, yamux, identify, gossipsub): hello between
 * peers on the same and on another genesis, chain exchange of real mainnet headers and messages,
 * gossip validated before delivery, penalties for bad gossip, and the exchange rate limit.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import pino from 'pino';
import { type HelloMessage, LedgerNetwork, loadOrCreatePeerKey, type NetworkChain } from '../../src/net/index.js';
import { Address, type BlockMsg, type SignedMessage, signedMessageCid, type TipSet } from '../../src/types/index.js';
import { fromHex } from '../../src/utils/bytes.js';
import { secpKey } from '../helpers/keys.js';
import { loadMainnetChain, type MainnetChain } from '../helpers/mainnet-chain.js';
import { message, signSecp } from '../helpers/messages.js';

const logger = pino({ level: 'silent' });
const repos: string[] = [];
const networks: LedgerNetwork[] = [];

async function startNetwork(
  chain: NetworkChain,
  options: { exchangeRate?: { perSecond: number; burst: number } } = {},
) {
  const repo = mkdtempSync(join(tmpdir(), 'ledger-net-'));
  repos.push(repo);
  const network = await LedgerNetwork.create({
    chain,
    networkName: 'testnetnet',
    privateKey: await loadOrCreatePeerKey(repo),
    listen: ['/ip4/127.0.0.1/tcp/0'],
    logger,
    ...options,
  });
  networks.push(network);
  await network.start();
  return { network, repo };
}

function waitFor<T>(register: (resolve: (value: T) => void) => void, ms = 10_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let chain: MainnetChain;
beforeAll(async () => {
  chain = await loadMainnetChain();
});

afterEach(async () => {
  await Promise.all(networks.splice(0).map((network) => network.stop()));
  for (const repo of repos.splice(0)) rmSync(repo, { recursive: true, force: true });
});

test('the peer key persists in the repo with mode 0600', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'ledger-net-'));
  repos.push(repo);
  const first = await loadOrCreatePeerKey(repo);
  const again = await loadOrCreatePeerKey(repo);
  expect(again.publicKey.equals(first.publicKey)).toBe(true);
  expect(statSync(join(repo, 'libp2p.key')).mode & 0o777).toBe(0o600);
});

test('peers on the same genesis say hello; listen addresses carry /p2p/<id>', async () => {
  const { network: server } = await startNetwork(chain);
  const { network: client } = await startNetwork(chain);
  const address = server.listenAddresses()[0] as string;
  expect(address).toMatch(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/${server.peerId}$`));
  const hello = waitFor<[string, HelloMessage]>((resolve) => {
    server.hooks = { onHello: (peer, message) => resolve([peer, message]) };
  });
  expect(await client.connect(address)).toBe(server.peerId);
  const [peer, message] = await hello;
  expect(peer).toBe(client.peerId);
  expect(message.heaviestTipSetHeight).toBe(39n);
  expect(message.genesisHash.equals(chain.genesis.cids[0]!)).toBe(true);
  expect(client.peers().map((p) => p.id)).toEqual([server.peerId]);
  await until(() => client.latency(server.peerId) !== undefined);
});

test('a peer on another genesis is disconnected after its hello', async () => {
  const { network: server } = await startNetwork(chain);
  const other: NetworkChain = { ...chain, genesis: chain.tipSets[5] as TipSet };
  const { network: stranger } = await startNetwork(other);
  let greeted = false;
  server.hooks = {
    onHello: () => {
      greeted = true;
    },
  };
  await stranger.connect(server.listenAddresses()[0] as string);
  await until(() => server.peers().length === 0 && stranger.peers().length === 0);
  expect(greeted).toBe(false);
});

test('chain exchange fetches real headers and messages over libp2p, checked against the headers', async () => {
  const { network: server } = await startNetwork(chain);
  const { network: client } = await startNetwork(chain);
  await client.connect(server.listenAddresses()[0] as string);
  const head = chain.tipSets[0] as TipSet;
  const headers = await client.exchange.getBlocks(server.peerId, head.key, 900);
  expect(headers.map((t) => t.key.toString())).toEqual(chain.tipSets.map((t) => t.key.toString()));
  const full = await client.exchange.getChainMessages(server.peerId, headers.slice(0, 12));
  expect(full).toHaveLength(12);
  const messageCount = full.reduce(
    (n, t) => n + t.blocks.reduce((m, b) => m + b.blsMessages.length + b.secpkMessages.length, 0),
    0,
  );
  expect(messageCount).toBeGreaterThan(0);
  const one = await client.exchange.getFullTipSet(server.peerId, (chain.tipSets[3] as TipSet).key);
  expect(one.tipSet.key.equals((chain.tipSets[3] as TipSet).key)).toBe(true);
  // Genesis's parent is the sha256 "filecoin genesis" block, not a header: the server has no such tipset.
  await expect(client.exchange.getBlocks(server.peerId, chain.genesis.parents, 1)).rejects.toThrow(/NotFound \(201\)/);
});

test('a peer that serves a chain that does not link is caught', async () => {
  const lying: NetworkChain = {
    ...chain,
    // Answers every request from the head, whatever was asked.
    loadTipSet: (key) =>
      key.equals((chain.tipSets[10] as TipSet).key) ? (chain.tipSets[0] as TipSet) : chain.loadTipSet(key),
  };
  const { network: server } = await startNetwork(lying);
  const { network: client } = await startNetwork(chain);
  await client.connect(server.listenAddresses()[0] as string);
  await expect(client.exchange.getBlocks(server.peerId, (chain.tipSets[10] as TipSet).key, 3)).rejects.toThrow(
    /the first tipset is .* not the requested/,
  );
});

test('requests above the per-peer rate get GoAway and cost the peer points', async () => {
  const { network: server } = await startNetwork(chain, { exchangeRate: { perSecond: 0.001, burst: 2 } });
  const { network: client } = await startNetwork(chain);
  await client.connect(server.listenAddresses()[0] as string);
  const key = (chain.tipSets[0] as TipSet).key;
  await client.exchange.getBlocks(server.peerId, key, 1);
  await client.exchange.getBlocks(server.peerId, key, 1);
  await expect(client.exchange.getBlocks(server.peerId, key, 1)).rejects.toThrow(/GoAway \(202\): rate limit exceeded/);
  expect(server.scores.score(client.peerId)).toBeLessThan(0);
});

test('gossip: a valid block is delivered, an invalid one is rejected and its sender penalised', async () => {
  const { network: a } = await startNetwork(chain);
  const { network: b } = await startNetwork(chain);
  await b.connect(a.listenAddresses()[0] as string);
  const good = (chain.tipSets[0] as TipSet).blocks[0]!;
  const bad = (chain.tipSets[1] as TipSet).blocks[0]!;
  const delivered: BlockMsg[] = [];
  a.hooks = {
    validateBlock: (_peer, block) => (block.header.height === bad.height ? 'reject' : 'accept'),
    onBlock: (_peer, block) => delivered.push(block),
  };
  await until(() => b.host.services.pubsub.getSubscribers(b.blocksTopic).length > 0);
  await b.publishBlock({ header: bad, blsMessages: [], secpkMessages: [] });
  await b.publishBlock({ header: good, blsMessages: [], secpkMessages: [] });
  await until(() => delivered.length === 1);
  expect(delivered[0]!.header.height).toBe(39n);
  expect(a.scores.score(b.peerId)).toBeLessThanOrEqual(-100);
  expect(a.scores.penalties(b.peerId).map((p) => p.reason)).toContain('invalid block gossip');
  // A ban closes the connection, and a new one from the banned peer is dropped.
  await until(() => a.peers().length === 0);
  await b.connect(a.listenAddresses()[0] as string).catch(() => undefined);
  await until(() => a.peers().length === 0 && b.peers().length === 0);
  expect(a.scores.isBanned(b.peerId)).toBe(true);
});

test('undecodable gossip is rejected before any hook sees it', async () => {
  const { network: a } = await startNetwork(chain);
  const { network: b } = await startNetwork(chain);
  await b.connect(a.listenAddresses()[0] as string);
  let seen = 0;
  a.hooks = {
    validateBlock: () => {
      seen++;
      return 'accept';
    },
  };
  await until(() => b.host.services.pubsub.getSubscribers(b.blocksTopic).length > 0);
  await b.host.services.pubsub.publish(b.blocksTopic, fromHex('8300'));
  await until(() => a.scores.score(b.peerId) < 0);
  expect(seen).toBe(0);
  expect(a.scores.penalties(b.peerId)[0]?.reason).toMatch(/undecodable block gossip/);
});

test('a pool message is gossiped to subscribed peers, and not even encoded while none is', async () => {
  const { network: a } = await startNetwork(chain);
  const { network: b } = await startNetwork(chain);
  const sender = secpKey('gossip-sender');
  const signed = signSecp(sender, message({ from: sender.address, to: Address.newId(1000n), value: 1n }));
  const publish = jest.spyOn(b.host.services.pubsub, 'publish');
  await b.publishMessage(signed);
  expect(publish).not.toHaveBeenCalled();
  const received: SignedMessage[] = [];
  a.hooks = {
    validateMessage: (_peer, gossiped) => {
      received.push(gossiped);
      return 'accept';
    },
  };
  await b.connect(a.listenAddresses()[0] as string);
  await until(() => b.host.services.pubsub.getSubscribers(b.messagesTopic).length > 0);
  await b.publishMessage(signed);
  await until(() => received.length === 1);
  expect(publish).toHaveBeenCalledTimes(1);
  expect(signedMessageCid(received[0]!).equals(signedMessageCid(signed))).toBe(true);
});
