/**
 * Scenario d: the message pool's persistence. A devnet that does not mine (so every message stays
 * in the pool) takes bursts of MpoolPush and MpoolPushMessage calls and is killed with SIGKILL
 * right after the n-th acknowledgement of a burst (n random), in the same event-loop turn the
 * answer arrived in. After each restart every acknowledged message must be pending again and each
 * sender's nonces must run without a gap, also for the nonce MpoolPushMessage hands out next.
 */
import { startDevnetProcess } from './devnet-process.js';
import { MessageLedger } from './messages.js';
import { probe } from './mining.js';
import { PushLoad, startPushDevnet } from './push-load.js';
import type { ChaosContext, ScenarioRecord } from './record.js';

export async function mpoolScenario(context: ChaosContext, record: ScenarioRecord, kills: number): Promise<void> {
  const devnet = await startPushDevnet(context, 'mpool', false);
  const { repo, options, walletSenders, presigned, senders, recipient } = devnet;
  let running = devnet.running;
  const ledger = new MessageLedger();
  for (let cycle = 1; cycle <= kills; cycle++) {
    if (cycle > 1) {
      running = await startDevnetProcess(options);
      record.count(await ledger.verify(running.rpc, senders), `restart ${cycle - 1}`);
    }
    const { node, rpc } = running;
    const ackTarget = 1 + Math.floor(context.random() * 40);
    let acks = 0;
    const load = new PushLoad({
      rpc,
      ledger,
      random: context.random,
      walletSenders,
      presigned,
      to: recipient,
      pauseMs: 0,
      onAck: () => {
        if (++acks === ackTarget) node.child.kill('SIGKILL');
      },
    });
    load.start();
    const timeout = setTimeout(() => node.child.kill('SIGKILL'), 60_000);
    await node.exited;
    clearTimeout(timeout);
    await load.stop();
    record.kills++;
    record.acknowledged = ledger.acknowledged;
    record.checkIntegrity(repo, `after kill ${cycle}`);
    context.log(`  kill ${cycle}/${kills} after ack ${ackTarget} of the burst (${acks} answers in all)`);
  }
  running = await startDevnetProcess(options);
  try {
    record.count(await ledger.verify(running.rpc, senders), `restart ${kills}`);
    await probe(record, running, walletSenders, recipient, ledger);
    record.count(await ledger.verify(running.rpc, senders), 'after a last push per sender');
  } finally {
    await running.node.stop();
  }
  record.checkIntegrity(repo, 'after a clean stop');
  record.acknowledged = ledger.acknowledged;
}
