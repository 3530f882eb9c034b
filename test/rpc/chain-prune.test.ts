/**
 * ChainPrune over the RPC, on the chain fixture: every answer at the head is the same after the
 * prune, older state is refused with ERR_STATE_NOT_AVAILABLE, headers and messages of old tipsets
 * are still served, and bad options and callers below admin are refused.
 */
import { formatPruneSummary } from '../../src/cli/commands/chain.js';
import type { PruneSummaryJson } from '../../src/rpc/methods/prune.js';
import type { SignedMessage } from '../../src/types/index.js';
import { signedMessageCid, type TipSet, tipSetKeyToLotusJson } from '../../src/types/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { call } from './harness.js';

const { alice, bob } = keys;
const WINDOW = 20;

let c: ChainServer;
let admin: Record<string, string>;
const sent: SignedMessage[] = [];

beforeAll(async () => {
  c = await startChainServer();
  admin = { authorization: `Bearer ${await c.tokens.create(['read', 'write', 'sign', 'admin'])}` };
  for (let height = 1n; height <= 60n; height++) {
    const transfer = signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL, nonce: height - 1n }));
    sent.push(transfer);
    await c.t.mine([{ secp: [transfer] }]);
  }
}, 60_000);
afterAll(() => c.close());

const key = (tipSet: TipSet) => tipSetKeyToLotusJson(tipSet.key);
const cidJson = (cid: { toString(): string }) => ({ '/': cid.toString() });

/** What a client reads at the head (and at `recent`, the oldest tipset the window keeps). */
async function answers(head: TipSet, recent: TipSet): Promise<unknown[]> {
  const block = cidJson(head.cids[0]!);
  const calls: [string, unknown[]][] = [
    ['ChainHead', []],
    ['StateGetActor', [alice.address.toString(), key(head)]],
    ['StateGetActor', [bob.address.toString(), key(recent)]],
    ['StateMinerPower', ['t01000', key(head)]],
    ['StateReadState', ['t01000', key(head)]],
    ['StateListActors', [key(head)]],
    ['ChainGetParentReceipts', [block]],
    ['ChainGetParentMessages', [block]],
    ['StateSearchMsg', [[], cidJson(signedMessageCid(sent[sent.length - 3]!)), -1, true]],
    ['StateCirculatingSupply', [key(head)]],
  ];
  const results = [];
  for (const [method, params] of calls) results.push(await call(c.url(), `Filecoin.${method}`, params));
  return results;
}

test('after ChainPrune the head answers the same, older state is refused, old headers and messages are served', async () => {
  const head = c.t.chain.head();
  const recent = c.t.chain.getTipSetByHeight(head.height - BigInt(WINDOW), head, false);
  const old = c.t.chain.getTipSetByHeight(5n, head, false);
  const before = await answers(head, recent);
  expect(before.every((answer) => (answer as { error?: unknown }).error === undefined)).toBe(true);
  const oldBlock = await call(c.url(), 'Filecoin.ChainGetBlock', [cidJson(old.cids[0]!)]);
  const oldMessages = await call(c.url(), 'Filecoin.ChainGetBlockMessages', [cidJson(old.cids[0]!)]);

  const pruned = await call(c.url(), 'Filecoin.ChainPrune', [{ Window: WINDOW }], admin);
  expect(pruned.error).toBeUndefined();
  const summary = pruned.result as Record<string, number>;
  expect(summary).toMatchObject({ HeadEpoch: 60, OldestStateEpoch: 40 });
  expect(summary.DeletedBlocks).toBeGreaterThan(0);
  expect(summary.UsedBytesAfter).toBeLessThan(summary.UsedBytesBefore!);
  const printed = formatPruneSummary(pruned.result as PruneSummaryJson);
  expect(printed).toMatch(/^head 60: state kept from epoch 40 on \(and genesis\)\ndeleted \d+ of \d+ blocks \(/);
  expect(printed).toContain(`deleted ${summary.DeletedBlocks} of ${summary.ScannedBlocks} blocks`);

  expect(await answers(head, recent)).toEqual(before);
  const refused = await call(c.url(), 'Filecoin.StateGetActor', [alice.address.toString(), key(old)]);
  expect(refused.error?.message).toContain(
    'state for epoch 5 is not available: this node prunes older state and holds state from epoch 40 on (and genesis)',
  );
  const oldSearch = await call(c.url(), 'Filecoin.StateSearchMsg', [[], cidJson(signedMessageCid(sent[2]!)), -1, true]);
  expect(oldSearch.error?.message).toContain('is not available');
  const oldChild = cidJson(c.t.chain.getTipSetByHeight(6n, head, false).cids[0]!);
  // The receipts are in the child's parent state; the messages' senders are resolved in the parent's.
  expect((await call(c.url(), 'Filecoin.ChainGetParentReceipts', [oldChild])).error?.message).toContain(
    'state for epoch 6 is not available: this node prunes older state',
  );
  expect((await call(c.url(), 'Filecoin.ChainGetParentMessages', [oldChild])).error?.message).toContain(
    'state for epoch 5 is not available: this node prunes older state',
  );
  expect(await call(c.url(), 'Filecoin.ChainGetBlock', [cidJson(old.cids[0]!)])).toEqual(oldBlock);
  expect(await call(c.url(), 'Filecoin.ChainGetBlockMessages', [cidJson(old.cids[0]!)])).toEqual(oldMessages);
  // Genesis state stays.
  const genesis = await call(c.url(), 'Filecoin.StateGetActor', [alice.address.toString(), key(c.t.chain.genesis)]);
  expect(genesis.error).toBeUndefined();
});

test('ChainPrune is admin-only and refuses a window that is not a positive number of epochs', async () => {
  const write = { authorization: `Bearer ${await c.tokens.create(['read', 'write'])}` };
  expect((await call(c.url(), 'Filecoin.ChainPrune', [{ Window: WINDOW }], write)).error?.message).toContain('admin');
  const zero = await call(c.url(), 'Filecoin.ChainPrune', [{ Window: 0 }], admin);
  expect(zero.error?.message).toContain('opts.Window: expected a positive number of epochs, got 0');
  const text = await call(c.url(), 'Filecoin.ChainPrune', [{ Window: 'ten' }], admin);
  expect(text.error?.message).toContain('Window');
  // Lotus's RetainState (finalities; negative keeps every state): nothing is deleted.
  const all = await call(c.url(), 'Filecoin.ChainPrune', [{ RetainState: -1, MovingGC: false }], admin);
  expect(all.result).toMatchObject({ DeletedBlocks: 0 });
});
