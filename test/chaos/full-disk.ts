/**
 * Scenario e: a mining devnet whose repo lives on a small tmpfs, filled to the last byte while
 * messages are pushed. While the disk is full the node must stay up and refuse what it cannot
 * store with an error that says so; nothing it acknowledged may be lost, and nothing it refused
 * may be kept (a refused MpoolPushMessage that stays in the pool spends a nonce the client never
 * learnt of). Once space is freed it must mine again without a restart. Then a kill -9 and a
 * restart, with the same checks. Needs `mount -t tmpfs` (root); skipped, saying why, without it.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { devnetAccounts, lastMiningFailure, startDevnetProcess, waitForHeightAbove } from './devnet-process.js';
import { MessageLedger } from './messages.js';
import { probe } from './mining.js';
import { sleep } from './node-process.js';
import { exportKeys, PushLoad } from './push-load.js';
import { type ChaosContext, logFile, type ScenarioRecord } from './record.js';

const TMPFS_SIZE = '64m';
const FULL_MIN_MS = 6_000;
const FULL_MAX_MS = 30_000;
/** What an error about a full disk says, in SQLite's, Node's or our words. */
const CLEAR_DISK_ERROR = /disk|space|full|SQLITE_FULL|ENOSPC|storage/i;

/** Writes to `file` until the filesystem has no byte left. */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 0xa5);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

export async function fullDiskScenario(context: ChaosContext, record: ScenarioRecord): Promise<void> {
  const mountpoint = join(context.dir, 'tmpfs');
  mkdirSync(mountpoint);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', mountpoint], { stdio: 'pipe' });
  } catch (error) {
    const reason = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
    record.skipped = `cannot mount a tmpfs here (${reason || 'mount failed'})`;
    context.log(`  SKIPPED: ${record.skipped}`);
    return;
  }
  const repo = join(mountpoint, 'repo');
  const options = { label: 'full-disk', repo, logFile: logFile(context, 'full-disk'), accounts: 3, mine: true };
  let running: Awaited<ReturnType<typeof startDevnetProcess>> | undefined;
  try {
    running = await startDevnetProcess(options, 180_000);
    const accounts = devnetAccounts(repo);
    const walletSenders = accounts.slice(0, 2);
    const presigned = await exportKeys(running.rpc, accounts.slice(2, 3));
    const senders = [...walletSenders, presigned[0]!.address.toString('t')];
    const ledger = new MessageLedger();
    const { rpc } = running;
    const pushLoad = (maxAcksPerSender: number) =>
      new PushLoad({
        rpc,
        ledger,
        random: context.random,
        walletSenders,
        presigned,
        to: accounts[0] as string,
        pauseMs: 20,
        maxAcksPerSender,
      });
    // Mining and pushing first, so the full disk meets a miner with blocks to write and a pool in use.
    const warmUp = pushLoad(150);
    warmUp.start();
    if ((await waitForHeightAbove(running.rpc, 0, 90_000)) === undefined) {
      record.fail(
        `the devnet on the tmpfs mined no block in 90 s: ${lastMiningFailure(running.node) ?? 'no error logged'}`,
      );
    }
    await warmUp.stop();
    const filler = join(mountpoint, 'filler');
    const filled = fill(filler);
    const acksBefore = ledger.acknowledged;
    context.log(`  disk full (${(filled / 1024 / 1024).toFixed(1)} MiB of filler); pushing on`);
    // Pushing on (up to 800 more per sender: the pool takes 1,000 pending per sender) until the node
    // has refused pushes and a mining round has failed on the full disk, or 30 s. SQLite writes into
    // space its WAL already holds first, so the refusals start only after a while.
    const load = pushLoad(800);
    load.start();
    let roundFailed = false;
    void running.node
      .waitForLine((line) => line.includes('mining round failed'), FULL_MAX_MS)
      .then((line) => {
        roundFailed = line !== undefined;
      });
    const fullSince = Date.now();
    while (
      Date.now() - fullSince < FULL_MAX_MS &&
      (Date.now() - fullSince < FULL_MIN_MS || load.refused === 0 || !roundFailed)
    ) {
      await sleep(200);
    }
    context.log(
      `  full for ${((Date.now() - fullSince) / 1000).toFixed(1)} s${roundFailed ? ', a mining round failed' : ''}`,
    );
    const refusedWhileFull = new Map(load.refusals);
    const acksWhileFull = ledger.acknowledged - acksBefore;
    rmSync(filler);
    if (!running.node.alive) {
      record.fail(`the node died on the full disk: ${running.node.tail(5)}`);
      await load.stop();
      return;
    }
    const refusedCount = [...refusedWhileFull.values()].reduce((a, b) => a + b, 0);
    record.note(`while full: ${acksWhileFull} pushes acknowledged, ${refusedCount} refused`);
    for (const [message, count] of refusedWhileFull) {
      if (!CLEAR_DISK_ERROR.test(message))
        record.fail(`refusal that does not say the disk is full (${count}x): ${message}`);
      else record.note(`refused ${count}x: ${message}`);
    }
    const freedAt = (await running.rpc.head()).Height;
    const mined = await waitForHeightAbove(running.rpc, freedAt, 90_000);
    if (mined === undefined) {
      record.fail(
        `no block in 90 s after space was freed (head ${freedAt}): ${lastMiningFailure(running.node) ?? 'no error logged'}`,
      );
    } else record.note(`mines again without a restart once space is freed (head ${freedAt} -> ${mined})`);
    await load.stop();
    await probe(record, running, walletSenders, accounts[0] as string, ledger);
    record.count(await ledger.verify(running.rpc, senders, { unacknowledged: true }), 'after space was freed');

    await running.node.kill9();
    record.kills++;
    record.checkIntegrity(repo, 'after the kill');
    running = await startDevnetProcess(options);
    record.count(await ledger.verify(running.rpc, senders, { unacknowledged: true }), 'after the restart');
    await running.node.stop();
    record.checkIntegrity(repo, 'after a clean stop');
    record.acknowledged = ledger.acknowledged;
  } finally {
    await running?.node.kill9();
    try {
      execFileSync('umount', [mountpoint], { stdio: 'pipe' });
    } catch {
      execFileSync('umount', ['-l', mountpoint], { stdio: 'pipe' });
    }
  }
}
