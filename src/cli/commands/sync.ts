/**
 * `ledger sync status|wait|check-bad|mark-bad|unmark-bad` (filecoin-project/lotus `cli/sync.go`):
 * each worker's Base, Target, Height diff, Stage, Height, Elapsed and Error as Lotus prints them;
 * `wait` polls every 250 ms, redraws its lines (with a progress bar) on a terminal and prints
 * `Done!` once the node has caught up.
 */
import { Command } from 'commander';
import type { LedgerApi } from '../../rpc/client.js';
import type { ActiveSyncJson, SyncStateJson } from '../../sync/index.js';
import { SyncStage, syncStageName } from '../../sync/index.js';
import { formatGoDuration } from '../go-duration.js';
import { connectToNode, globalOptions } from '../node-connection.js';

const ZERO_TIME = '0001-01-01T00:00:00Z';
const POLL_MS = 250;

function cidsOf(tipSet: ActiveSyncJson['Base']): string {
  return `[${(tipSet?.Cids ?? []).map((cid) => cid['/']).join(' ')}]`;
}

export function heightDiff(worker: ActiveSyncJson): number {
  if (worker.Target === null) return 0;
  return Number(worker.Target.Height) - Number(worker.Base?.Height ?? 0);
}

function elapsedOf(worker: ActiveSyncJson, now: number): string | undefined {
  const start = worker.Start === ZERO_TIME ? undefined : Date.parse(worker.Start);
  if (start === undefined) return undefined;
  const end = worker.End === ZERO_TIME ? now : Date.parse(worker.End);
  return formatGoDuration(BigInt(Math.max(0, end - start)) * 1_000_000n);
}

/** The `sync status` text for a SyncState. */
export function formatSyncStatus(state: SyncStateJson, now = Date.now()): string {
  const lines = ['sync status:'];
  for (const worker of state.ActiveSyncs) {
    lines.push(`worker ${worker.WorkerID}:`);
    lines.push(`\tBase:\t${cidsOf(worker.Base)}`);
    lines.push(`\tTarget:\t${cidsOf(worker.Target)} (${worker.Target?.Height ?? 0})`);
    lines.push(`\tHeight diff:\t${heightDiff(worker)}`);
    lines.push(`\tStage: ${syncStageName(worker.Stage)}`);
    lines.push(`\tHeight: ${worker.Height}`);
    const elapsed = elapsedOf(worker, now);
    if (elapsed !== undefined) lines.push(`\tElapsed: ${elapsed}`);
    if (worker.Stage === SyncStage.Errored) lines.push(`\tError: ${worker.Message}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Lotus's choice: the last worker still working, else the last one. */
export function workerToShow(state: SyncStateJson): ActiveSyncJson | undefined {
  const working = state.ActiveSyncs.filter((w) => w.Stage !== SyncStage.Complete && w.Stage !== SyncStage.Idle);
  return working[working.length - 1] ?? state.ActiveSyncs[state.ActiveSyncs.length - 1];
}

function eta(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}h:${pad(Math.floor(s / 60) % 60)}m:${pad(s % 60)}s`;
}

function bar(done: number, total: number, width = 30): string {
  const fraction = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(0)}%`;
}

/** Whether the node has caught up: the shown worker reached its target, or the head is recent (Lotus `IsSyncDone`). */
async function isDone(api: LedgerApi, state: SyncStateJson, blockDelaySecs: number): Promise<boolean> {
  const worker = workerToShow(state);
  const working = state.ActiveSyncs.some(
    (w) => w.Stage !== SyncStage.Complete && w.Stage !== SyncStage.Idle && w.Stage !== SyncStage.Errored,
  );
  if (worker !== undefined && !working && worker.Stage === SyncStage.Complete && heightDiff(worker) === 0) return true;
  const head = await api.ChainHead();
  const minTimestamp = Math.min(...head.Blocks.map((b) => Number(b.Timestamp)));
  return !working && Date.now() / 1000 - minTimestamp < blockDelaySecs;
}

async function syncWait(api: LedgerApi, watch: boolean, out: NodeJS.WriteStream): Promise<void> {
  const tty = out.isTTY === true;
  const { BlockDelay } = await api.Version();
  let printed = 0;
  let first: { applied: number; at: number; height: number } | undefined;
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
  };
  process.once('SIGINT', onSignal);
  try {
    for (;;) {
      if (interrupted) {
        out.write('\nExit by user\n');
        return;
      }
      const state = await api.SyncState();
      const worker = workerToShow(state);
      if (worker === undefined) {
        if (!watch && (await isDone(api, state, BlockDelay))) break;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      const now = Date.now();
      first ??= { applied: state.VMApplied, at: now, height: worker.Height };
      const target = Number(worker.Target?.Height ?? 0);
      const base = Number(worker.Base?.Height ?? 0);
      const todo = target - worker.Height;
      const elapsed = (now - first.at) / 1000;
      const rate = elapsed > 0 ? (worker.Height - first.height) / elapsed : 0;
      const lines = [
        `Worker: ${worker.WorkerID}; Base: ${base}; Target: ${target} (diff: ${target - base})`,
        `State: ${syncStageName(worker.Stage)}; Current Epoch: ${worker.Height}; Todo: ${todo}, ETA: ${elapsed > 0 && rate > 0 ? eta(todo / rate) : ''}`,
      ];
      if (elapsed > 0) {
        const applied = state.VMApplied - first.applied;
        lines.push(`Validated ${applied} messages (${(applied / elapsed).toFixed(0)} per second)`);
      }
      if (tty) {
        lines.push(bar(worker.Height, target));
        out.write('\r\x1b[2K\x1b[A'.repeat(printed));
      }
      out.write(`${lines.join('\n')}\n`);
      printed = lines.length;
      if (!watch && (await isDone(api, state, BlockDelay))) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    out.write('\nDone!\n');
  } finally {
    process.removeListener('SIGINT', onSignal);
  }
}

export function syncCommand(): Command {
  const sync = new Command('sync').description('Inspect or interact with the chain syncer');
  sync
    .command('status')
    .description("Print each sync worker's base, target, height difference, stage, height and elapsed time")
    .action(async (_options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      process.stdout.write(formatSyncStatus(await api.SyncState()));
    });
  sync
    .command('wait')
    .description('Wait until the node has caught up with the network, then print Done!')
    .option('--watch', "don't exit after the node is synced")
    .action(async (options: { watch?: boolean }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      await syncWait(api, options.watch === true, process.stdout);
    });
  sync
    .command('check-bad')
    .description('Say why a block is in the bad-block cache')
    .argument('<blockCid>', 'the block CID')
    .action(async (cid: string, _options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const reason = await api.SyncCheckBad({ '/': cid });
      process.stdout.write(reason === '' ? 'block was not found in the bad block cache\n' : `${reason}\n`);
    });
  sync
    .command('mark-bad')
    .description('Mark a block as bad: chains containing it are refused')
    .argument('<blockCid>', 'the block CID')
    .action(async (cid: string, _options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      await api.SyncMarkBad({ '/': cid });
    });
  sync
    .command('unmark-bad')
    .description('Remove a block from the bad-block cache')
    .argument('<blockCid>', 'the block CID')
    .action(async (cid: string, _options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      await api.SyncUnmarkBad({ '/': cid });
    });
  return sync;
}
