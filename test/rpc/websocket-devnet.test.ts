/**
 * go-jsonrpc's channel protocol against a real devnet (test/helpers/devnet.ts: in-process node,
 * real proofs, 1 s epochs), with the client written from the protocol's description
 * (ws-client.ts): ChainNotify over 20 epochs, MpoolSub for a pushed message, and xrpc.cancel.
 */
import type { SignedMessageJson } from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';
import { transferJson } from '../helpers/message-json.js';
import { GoJsonRpcClient } from './ws-client.js';

interface TipSetJson {
  Cids: Array<{ '/': string }>;
  Blocks: Array<{ Parents: Array<{ '/': string }> }>;
  Height: number;
}
type HeadChanges = Array<{ Type: string; Val: TipSetJson }>;

const EPOCHS = 20;
let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 1000, accounts: 2 });
}, 180_000);
afterAll(() => devnet?.stop());

const cidsOf = (tipSet: TipSetJson) => tipSet.Cids.map((cid) => cid['/']);

test(
  `ChainNotify: one "current", then ${EPOCHS} applies, each on the one before, none of the chain's tipsets missing`,
  async () => {
    const client = await GoJsonRpcClient.connect(devnet.url.replace('/rpc/v1', '/rpc/v0'));
    const channel = await client.subscribe('Filecoin.ChainNotify');
    const [current] = (await channel.waitForValues(1)) as HeadChanges[];
    const start = current?.[0]?.Val.Height as number;
    // 20 new heads (on a busy machine a block may take longer than its 1 s epoch, and the miner
    // then leaves null rounds: their heights have no tipset, and no apply).
    await channel.waitForValues(EPOCHS + 1, EPOCHS * 15_000);
    const [first, ...rest] = channel.values.slice(0, EPOCHS + 1) as HeadChanges[];
    expect(first).toHaveLength(1);
    expect(first?.[0]?.Type).toBe('current');
    // A single miner never forks itself: every later value is one apply of a child of the last.
    let previous = (first as HeadChanges)[0]?.Val as TipSetJson;
    for (const changes of rest) {
      expect(changes.map((c) => c.Type)).toEqual(['apply']);
      const applied = (changes[0] as HeadChanges[number]).Val;
      expect(applied.Blocks[0]?.Parents.map((cid) => cid['/'])).toEqual(cidsOf(previous));
      expect(applied.Height).toBeGreaterThan(previous.Height);
      previous = applied;
    }
    // Nothing missing: the applies are the canonical chain, height by height (null rounds have none).
    const canonical: string[][] = [];
    for (let height = start + 1; height <= previous.Height; height++) {
      const tipSet = await devnet.rpc<TipSetJson>('ChainGetTipSetByHeight', [height, null]);
      if (tipSet.Height === height) canonical.push(cidsOf(tipSet));
    }
    expect(rest.map((changes) => cidsOf((changes[0] as HeadChanges[number]).Val))).toEqual(canonical);
    const heights = rest.map((changes) => (changes[0] as HeadChanges[number]).Val.Height);
    console.log(`ChainNotify: current at ${start}, applies at ${heights.join(', ')}`);
    await client.close();
    expect(client.violations).toEqual([]);
  },
  EPOCHS * 15_000 + 30_000,
);

test('MpoolSub reports a pushed message joining the pool (Type 0) and leaving it when mined (Type 1)', async () => {
  const client = await GoJsonRpcClient.connect(devnet.url);
  const channel = await client.subscribe('Filecoin.MpoolSub');
  const [from, to] = devnet.accounts.map((account) => account.address) as [string, string];
  const signed = await devnet.rpc<SignedMessageJson>('MpoolPushMessage', [transferJson(from, to, 1n), null], 'sign');
  const cid = signed.CID['/'];
  const updates = () => channel.values as Array<{ Type: number; Message: SignedMessageJson }>;
  const deadline = Date.now() + 60_000;
  while (!updates().some((u) => u.Type === 1 && u.Message.CID['/'] === cid)) {
    if (Date.now() > deadline) throw new Error(`no removal of ${cid} within 60 s: ${JSON.stringify(updates())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const ours = updates().filter((u) => u.Message.CID['/'] === cid);
  expect(ours.map((u) => u.Type)).toEqual([0, 1]);
  expect(ours[0]?.Message).toEqual(signed);
  await client.close();
  expect(client.violations).toEqual([]);
}, 90_000);

test('xrpc.cancel ends a ChainNotify subscription on the server: closed once, nothing after', async () => {
  const client = await GoJsonRpcClient.connect(devnet.url);
  const channel = await client.subscribe('Filecoin.ChainNotify');
  await channel.waitForValues(2, 60_000);
  channel.cancel();
  await channel.waitForClose();
  const count = channel.values.length;
  // Two more epochs: a subscription still alive on the server would send to a closed channel.
  await devnet.waitForHeight(BigInt(devnet.node.chain!.chain.head().height) + 2n, 60_000);
  expect(channel.values).toHaveLength(count);
  expect(client.violations).toEqual([]);
  expect(await client.call('Filecoin.Version')).toHaveProperty('APIVersion');
  await client.close();
}, 150_000);
