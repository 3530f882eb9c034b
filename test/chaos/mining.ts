/**
 * Scenario a: a mining devnet (1 s epochs) with MpoolPush (pre-signed) and MpoolPushMessage calls
 * in flight, killed with SIGKILL again and again. After each (re)start the miner must produce a
 * block: for about two kills in five (from the third on) the kill lands the moment the miner has
 * recorded it in its slash filter, which is when the block is being written; otherwise at a random
 * moment up to 3 s after it is on chain. After each kill: integrity of the database; after each restart: the head is
 * not behind the last head seen, every acknowledged message is on chain or pending, no sender has
 * a nonce gap.
 */
import {
  HeadWatcher,
  lastMiningFailure,
  type RunningDevnet,
  startDevnetProcess,
  waitForHeightAbove,
} from './devnet-process.js';
import { MessageLedger } from './messages.js';
import { sleep } from './node-process.js';
import { type PresignedSender, PushLoad, startPushDevnet } from './push-load.js';
import { between, type ChaosContext, type ScenarioRecord } from './record.js';
import { isRefusal } from './rpc.js';
import { waitForMinedRecord } from './store-check.js';

/** A miner with no new block for this long is stuck (a PoSt takes ~3 s here when quiet, ~15 s when busy). */
const MINING_STALL_MS = 60_000;

export interface Miner extends RunningDevnet {
  readonly repo: string;
  readonly ledger: MessageLedger;
  readonly walletSenders: readonly string[];
  readonly presigned: readonly PresignedSender[];
  readonly recipient: string;
}

export async function miningScenario(context: ChaosContext, record: ScenarioRecord, kills: number): Promise<Miner> {
  const devnet = await startPushDevnet(context, 'miner', true);
  const { repo, options, walletSenders, presigned, senders, recipient } = devnet;
  let running = devnet.running;
  const ledger = new MessageLedger();
  let highestSeen = -1;
  let stuck = false;

  for (let cycle = 1; cycle <= kills; cycle++) {
    if (cycle > 1) {
      running = await startDevnetProcess(options);
      await checkAfterRestart(record, running, ledger, senders, highestSeen, `restart ${cycle - 1}`);
    }
    const { node, rpc } = running;
    const restartHeight = (await rpc.head()).Height;
    const watcher = new HeadWatcher(rpc);
    const load = new PushLoad({ rpc, ledger, random: context.random, walletSenders, presigned, to: recipient });
    load.start();
    // The miner must mine again after each restart: either the kill waits for its next block to be
    // recorded, or for a block on chain and then lands at a random moment up to 3 s later. A stuck
    // miner is reported once; later cycles kill without waiting for it.
    const stalled = () => {
      stuck = true;
      record.fail(
        `the miner produced no block for ${MINING_STALL_MS / 1000} s after ${cycle === 1 ? 'its first start' : `restart ${cycle - 1}`} (head ${restartHeight}): ${lastMiningFailure(node) ?? 'no error logged'}`,
      );
    };
    let moment: string;
    // The first two kills are random ones, so the chain holds blocks full of messages (which the
    // abuse scenario computes) whatever the timed kills do to the miner.
    if (!stuck && cycle > 2 && context.random() < 0.4) {
      const recorded = await waitForMinedRecord(repo, MINING_STALL_MS);
      await node.kill9();
      moment = recorded ? 'as a block was recorded' : 'after waiting for a block in vain';
      if (!recorded) stalled();
    } else {
      if (!stuck && (await waitForHeightAbove(rpc, restartHeight, MINING_STALL_MS)) === undefined) stalled();
      const delay = between(context, 0, 3_000);
      await sleep(delay);
      await node.kill9();
      moment = `${Math.round(delay)} ms ${stuck ? 'in' : 'after a block'}`;
    }
    watcher.stop();
    await load.stop();
    if (node.exitStatus?.signal !== 'SIGKILL') {
      record.fail(`the miner exited by itself before kill ${cycle}: ${node.tail(5)}`);
    }
    highestSeen = Math.max(highestSeen, watcher.highest);
    record.kills++;
    record.acknowledged = ledger.acknowledged;
    const store = record.checkIntegrity(repo, `after kill ${cycle}`);
    context.log(
      `  kill ${cycle}/${kills} ${moment}: head ${watcher.highest < 0 ? 'not seen' : watcher.highest}, ${ledger.acknowledged} acked so far` +
        (store.orphanMinedRecords === undefined
          ? ''
          : `; slash filter holds a block never stored (height ${store.orphanMinedRecords.join(', ')})`),
    );
  }

  running = await startDevnetProcess(options);
  await checkAfterRestart(record, running, ledger, senders, highestSeen, `restart ${kills}`);
  const restartHeight = (await running.rpc.head()).Height;
  const load = new PushLoad({
    rpc: running.rpc,
    ledger,
    random: context.random,
    walletSenders,
    presigned,
    to: recipient,
  });
  load.start();
  const waitMs = stuck ? 15_000 : MINING_STALL_MS;
  const mined = await waitForHeightAbove(running.rpc, restartHeight, waitMs);
  await load.stop();
  if (mined === undefined) {
    record.fail(
      `the miner produced no block for ${waitMs / 1000} s after the last restart (head ${restartHeight}): ${lastMiningFailure(running.node) ?? 'no error logged'}`,
    );
  } else {
    record.note(`the miner mines again after the last restart (head ${restartHeight} -> ${mined})`);
  }
  // One more MpoolPushMessage per wallet sender: a nonce handed out past a lost message shows as a gap.
  await probe(record, running, walletSenders, recipient, ledger);
  record.count(await ledger.verify(running.rpc, senders), 'at the end');
  record.acknowledged = ledger.acknowledged;
  return { ...running, repo, ledger, walletSenders, presigned, recipient };
}

async function checkAfterRestart(
  record: ScenarioRecord,
  running: RunningDevnet,
  ledger: MessageLedger,
  senders: readonly string[],
  highestSeen: number,
  when: string,
): Promise<void> {
  const head = await running.rpc.head();
  if (head.Height < highestSeen)
    record.fail(`${when}: head ${head.Height} is behind the ${highestSeen} seen before the kill`);
  record.count(await ledger.verify(running.rpc, senders), when);
}

/**
 * Pushes one MpoolPushMessage per sender and records it: a nonce handed out past a lost message
 * shows as a gap. A refusal (a sender with 1,000 pending messages) is noted, not fatal.
 */
export async function probe(
  record: ScenarioRecord,
  running: RunningDevnet,
  senders: readonly string[],
  to: string,
  ledger: MessageLedger,
): Promise<void> {
  for (const from of senders) {
    const message = {
      Version: 0,
      To: to,
      From: from,
      Nonce: 0,
      Value: '7',
      GasLimit: 0,
      GasFeeCap: '0',
      GasPremium: '0',
      Method: 0,
      Params: '',
    };
    const signed = await running.rpc
      .call<{ CID: { '/': string }; Message: { Nonce: number } }>('MpoolPushMessage', [message, null])
      .catch((error: unknown) => {
        if (!isRefusal(error)) throw error;
        record.note(`probe push from ${from} refused: ${error.message}`);
        return undefined;
      });
    if (signed === undefined) continue;
    ledger.record({ cid: signed.CID['/'], from, nonce: Number(signed.Message.Nonce), via: 'MpoolPushMessage' });
  }
}
