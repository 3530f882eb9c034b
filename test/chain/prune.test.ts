/**
 * The pruner (src/chain/prune.ts) on a real TestChain of 70 epochs with transfers: what it keeps
 * answers as before, what it drops is refused with ERR_STATE_NOT_AVAILABLE, headers and messages
 * stay, the database shrinks, blocks written meanwhile survive, and a prune cut short (aborted
 * between two batches, or its process killed with SIGKILL) leaves a consistent database a second
 * prune finishes.
 */
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { LOOKBACK_NO_LIMIT, MessageSearch } from '../../src/chain/message-search.js';
import { ChainPruner, type PruneSummary } from '../../src/chain/prune.js';
import { PruneSchedule } from '../../src/chain/prune-schedule.js';
import { oldestStateEpoch, StateNotAvailableError } from '../../src/chain/snapshot/index.js';
import { assertStateAvailable } from '../../src/chain/snapshot/state-window.js';
import { blockLinks, StateTree } from '../../src/state/index.js';
import {
  type CID,
  DAG_CBOR_CODE,
  messageCid,
  type SignedMessage,
  signedMessageCid,
  type TipSet,
} from '../../src/types/index.js';
import { AbortedError } from '../../src/utils/abort.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { TestChain } from '../helpers/test-chain.js';

const { alice, bob } = keys;
// The fixture's miner never proves its sectors: its power is gone after epoch 85 (DEVNET_2K deadlines).
const EPOCHS = 70n;
const WINDOW = 20n;

let t: TestChain;
let nonce = 0n;
let firstTransfer: SignedMessage;

function transfer(): SignedMessage {
  return signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL / 1000n, nonce: nonce++ }));
}

/** A chain of EPOCHS epochs, a transfer in every other one. */
async function buildChain(): Promise<void> {
  t = TestChain.create({ onDisk: true });
  nonce = 0n;
  firstTransfer = transfer();
  await t.mine([{ secp: [firstTransfer] }]);
  for (let height = 2n; height <= EPOCHS; height++) {
    await t.mine([{ secp: height % 2n === 0n ? [transfer()] : [] }]);
  }
}

const STORED_CODECS = new Set([DAG_CBOR_CODE, 0x55, 0x51]);

/** Blocks missing below `root` (0 when its whole DAG is in the store). */
function missingBelow(chain: TestChain, root: CID): number {
  let missing = 0;
  const seen = new Set<string>();
  const pending = [root];
  for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
    const key = cid.toString();
    // Identity CIDs hold their data; sector commitments (fil-commitment codecs) are no blocks.
    if (cid.multihash.code === 0 || !STORED_CODECS.has(cid.code) || seen.has(key)) continue;
    seen.add(key);
    const bytes = chain.db.blockstore.get(cid);
    if (bytes === undefined) missing++;
    else if (cid.code === DAG_CBOR_CODE) pending.push(...blockLinks(cid, bytes));
  }
  return missing;
}

/** What a state query at `tipSet` reads: every actor, and the receipts. */
function stateAnswers(chain: TestChain, tipSet: TipSet): string {
  const tree = StateTree.load(chain.db.blockstore, tipSet.parentStateRoot);
  const actors = [...tree.actors()].map(([id, actor]) => `${id}:${actor.balance}:${actor.nonce}:${actor.head}`);
  const receipts = chain.chain.readReceipts(tipSet.parentMessageReceipts);
  return JSON.stringify({ actors, receipts: receipts.map((r) => `${r.exitCode}:${r.gasUsed}`) });
}

function expectStateRefused(chain: TestChain, tipSet: TipSet): void {
  expect(() => assertStateAvailable(chain.chain, tipSet)).toThrow(StateNotAvailableError);
}

function report(what: string, summary: PruneSummary): void {
  console.log(
    `${what}: head ${summary.head}, window from ${summary.oldestStateEpoch}; marked ${summary.marked}, ` +
      `deleted ${summary.deleted} of ${summary.scanned} blocks (${summary.deletedBytes} B); used ` +
      `${summary.before.usedBytes} → ${summary.after.usedBytes} B, blocks ${summary.before.blocks} → ${summary.after.blocks}`,
  );
}

afterEach(() => {
  t.close();
  t.remove();
});

test('after a prune the head answers as before, older state is refused, headers and messages stay, the database shrinks', async () => {
  await buildChain();
  const head = t.chain.head();
  expect(missingBelow(t, head.parentStateRoot)).toBe(0);
  const recentHeight = head.height - WINDOW;
  const recent = t.chain.getTipSetByHeight(recentHeight, head, false);
  const before = { head: stateAnswers(t, head), recent: stateAnswers(t, recent) };
  const old = t.chain.getTipSetByHeight(10n, head, false);
  const blockMessages = (tipSet: TipSet) =>
    tipSet.blocks.flatMap((header) => {
      const { blsMessages, secpMessages } = t.chain.blockMessages(header);
      return [...blsMessages.map(messageCid), ...secpMessages.map(signedMessageCid)].map(String);
    });
  const oldMessages = blockMessages(old);
  expect(oldMessages.length).toBe(1);

  const summary = await new ChainPruner(t.chain, t.db).prune({ window: WINDOW, batchSize: 64 });
  report('prune', summary);

  expect(summary.oldestStateEpoch).toBe(recentHeight);
  expect(oldestStateEpoch(t.db)).toBe(recentHeight);
  expect(summary.deleted).toBeGreaterThan(0);
  expect(summary.after.blocks).toBe(summary.before.blocks - summary.deleted);
  expect(summary.after.usedBytes).toBeLessThan(summary.before.usedBytes);
  // Kept state is whole, and answers as before.
  expect(missingBelow(t, head.parentStateRoot)).toBe(0);
  expect(missingBelow(t, recent.parentStateRoot)).toBe(0);
  expect(missingBelow(t, t.chain.genesis.parentStateRoot)).toBe(0);
  expect(stateAnswers(t, head)).toBe(before.head);
  expect(stateAnswers(t, recent)).toBe(before.recent);
  expect(() => assertStateAvailable(t.chain, t.chain.genesis)).not.toThrow();
  const headState = await t.states.stateOf(head);
  expect(missingBelow(t, headState.stateRoot)).toBe(0);
  // Older state is refused, by the RPC's check and the node's own readers.
  expect(missingBelow(t, old.parentStateRoot)).toBeGreaterThan(0);
  expectStateRefused(t, old);
  await expect(t.states.stateOf(old)).rejects.toThrow(
    `state for epoch 10 is not available: this node prunes older state and holds state from epoch ${recentHeight} on (and genesis)`,
  );
  const search = new MessageSearch({ chain: t.chain });
  await expect(search.search(head, signedMessageCid(firstTransfer), LOOKBACK_NO_LIMIT, false)).rejects.toThrow(
    StateNotAvailableError,
  );
  // Headers and messages of old tipsets are still served.
  const reloaded = t.chain.getTipSetByHeight(10n, head, false);
  expect(reloaded.key.equals(old.key)).toBe(true);
  expect(blockMessages(reloaded)).toEqual(oldMessages);
  // Which of them ran needs the parent state (Lotus's MessagesForTipset resolves senders there).
  expect(() => t.chain.tipSetMessages(reloaded)).toThrow(StateNotAvailableError);
  expect(t.chain.getMessage(signedMessageCid(firstTransfer)).nonce).toBe(0n);
  // The chain goes on from the pruned state.
  const next = await t.mine([{ secp: [transfer()] }]);
  await t.mine();
  expect(missingBelow(t, t.chain.head().parentStateRoot)).toBe(0);
  expect(t.chain.head().parents.equals(next.key)).toBe(true);
}, 120_000);

test('blocks written while the prune runs survive it, whether new or once unreachable', async () => {
  await buildChain();
  const old = t.chain.getTipSetByHeight(10n, t.chain.head(), false);
  const oldRoot = old.parentStateRoot;
  const oldRootBytes = t.db.blockstore.get(oldRoot)!;
  const pruner = new ChainPruner(t.chain, t.db);
  const pruning = pruner.prune({ window: WINDOW, batchSize: 16 });
  await expect(pruner.prune({ window: WINDOW })).rejects.toThrow('a prune is already running');
  // Written again while the prune runs: someone references it anew, so it must stay.
  t.db.blockstore.put(oldRoot, oldRootBytes);
  let mined = 0;
  while (pruner.running && mined < 10) {
    await t.mine([{ secp: [transfer()] }]);
    mined++;
  }
  const summary = await pruning;
  report('prune while mining', summary);
  expect(mined).toBeGreaterThan(1);
  expect(summary.writtenMeanwhile).toBeGreaterThan(1);
  expect(t.db.blockstore.has(oldRoot)).toBe(true);
  await t.mine();
  const head = t.chain.head();
  expect(missingBelow(t, head.parentStateRoot)).toBe(0);
  expect(missingBelow(t, head.parentMessageReceipts)).toBe(0);
  // A second prune keeps everything the chain needs.
  const second = await new ChainPruner(t.chain, t.db).prune({ window: WINDOW });
  expect(missingBelow(t, t.chain.head().parentStateRoot)).toBe(0);
  expect(second.oldestStateEpoch).toBe(head.height - WINDOW);
}, 120_000);

test('a block no tipset links yet, written before the prune (a message sync fetched, a ChainPutObj object), survives it', async () => {
  await buildChain();
  // A message of a block sync has fetched but not added yet: stored, reachable from no tipset.
  const pending = transfer();
  const pendingCid = signedMessageCid(pending);
  t.chain.putBlock({ header: t.chain.head().blocks[0]!, blsMessages: [], secpkMessages: [pending] });
  expect(t.db.blockstore.has(pendingCid)).toBe(true);
  const summary = await new ChainPruner(t.chain, t.db).prune({ window: WINDOW });
  report('prune with an unlinked block', summary);
  expect(summary.deleted).toBeGreaterThan(0);
  expect(summary.deleted).toBeLessThanOrEqual(summary.candidates);
  expect(t.db.blockstore.has(pendingCid)).toBe(true);
}, 120_000);

test('a prune cut short between two batches leaves a consistent database, and the next prune finishes it', async () => {
  await buildChain();
  const head = t.chain.head();
  const answers = stateAnswers(t, head);
  const controller = new AbortController();
  const pruning = new ChainPruner(t.chain, t.db).prune({ window: WINDOW, batchSize: 32, signal: controller.signal });
  for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
  controller.abort(new Error('simulated crash'));
  await expect(pruning).rejects.toBeInstanceOf(AbortedError);
  const partway = t.db.blockSweep.size();
  t.close();

  t = t.reopen();
  const oldest = head.height - WINDOW;
  expect(oldestStateEpoch(t.db)).toBe(oldest);
  expect(missingBelow(t, head.parentStateRoot)).toBe(0);
  expect(stateAnswers(t, t.chain.head())).toBe(answers);
  expectStateRefused(t, t.chain.getTipSetByHeight(10n, head, false));
  expectStateRefused(t, t.chain.getTipSetByHeight(oldest - 1n, head, false));

  const finished = await new ChainPruner(t.chain, t.db).prune({ window: WINDOW });
  report('prune after the cut', finished);
  expect(finished.deleted).toBeGreaterThan(0);
  expect(finished.after.blocks).toBeLessThan(partway.blocks);
  expect(stateAnswers(t, t.chain.head())).toBe(answers);
  expect(missingBelow(t, t.chain.head().parentStateRoot)).toBe(0);
  // Nothing left to delete at the same head.
  const again = await new ChainPruner(t.chain, t.db).prune({ window: WINDOW });
  expect(again.deleted).toBe(0);
}, 120_000);

test('the background schedule prunes every IntervalEpochs while the chain goes on, and stops cleanly', async () => {
  t = TestChain.create({ onDisk: true });
  nonce = 0n;
  const summaries: PruneSummary[] = [];
  const schedule = new PruneSchedule(t.chain, new ChainPruner(t.chain, t.db), {
    window: WINDOW,
    intervalEpochs: 10n,
    onPruned: (summary) => summaries.push(summary),
  });
  for (let height = 1n; height <= EPOCHS; height++) {
    await t.mine([{ secp: [transfer()] }]);
    expect(missingBelow(t, t.chain.head().parentStateRoot)).toBe(0);
    // A block time: the event loop turns (the fixture's mining alone may never leave the microtask queue).
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  }
  await schedule.stop();
  // Due once the head is 10 epochs past window + oldest: at 31 (oldest 1), then at 41 (oldest 21), …
  expect(summaries.length).toBeGreaterThanOrEqual(3);
  const oldests = summaries.map((summary) => summary.oldestStateEpoch);
  expect(oldests).toEqual([...oldests].sort((a, b) => Number(a - b)));
  expect(oldestStateEpoch(t.db)).toBe(oldests[oldests.length - 1]);
  expect(schedule.due()).toBe(false);
  expect(missingBelow(t, t.chain.genesis.parentStateRoot)).toBe(0);
  // A new schedule on the same chain is not due at once: the recorded window says when.
  const again = new PruneSchedule(t.chain, new ChainPruner(t.chain, t.db), { window: WINDOW, intervalEpochs: 10n });
  expect(again.due()).toBe(false);
  await again.stop();
}, 120_000);

test('kill -9 of a process in the middle of its sweep leaves a consistent database; the next prune finishes', async () => {
  await buildChain();
  const head = t.chain.head();
  const answers = stateAnswers(t, head);
  const blocksBefore = t.db.blockSweep.size().blocks;
  const path = t.databasePath;
  t.close();

  const child = fork(resolve('test/chain/prune-child.ts'), [path, String(WINDOW)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
  await new Promise<void>((done, fail) => {
    child.once('message', () => done());
    void exited.then((signal) => fail(new Error(`the pruning process exited (${signal}) before it swept`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');

  t = t.reopen();
  const partway = t.db.blockSweep.size().blocks;
  expect(partway).toBe(blocksBefore - 3);
  const oldest = head.height - WINDOW;
  expect(oldestStateEpoch(t.db)).toBe(oldest);
  expect(missingBelow(t, head.parentStateRoot)).toBe(0);
  expect(stateAnswers(t, t.chain.head())).toBe(answers);
  expectStateRefused(t, t.chain.getTipSetByHeight(oldest - 1n, head, false));
  const finished = await new ChainPruner(t.chain, t.db).prune({ window: WINDOW });
  report('prune after kill -9', finished);
  expect(finished.after.blocks).toBeLessThan(partway);
  expect(stateAnswers(t, t.chain.head())).toBe(answers);
}, 120_000);
