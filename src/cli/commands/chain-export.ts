/**
 * `ledger chain export [--tipset <key or height>] [--recent-stateroots N] [--skip-old-msgs] [--full] <file>`:
 * asks the node (admin) to write a snapshot to `file` on its machine with `ChainExportToFile` — a
 * JSON-RPC answer cannot stream a CAR the way Lotus's websocket channel does — and draws the
 * export's progress from `ChainExportProgress` meanwhile.
 */
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { LedgerApi } from '../../rpc/client.js';
import { type CidJson, cidToLotusJson, readJsonArray, readJsonCid } from '../../types/index.js';
import { formatBytes } from '../byte-progress.js';
import { apiOf, findNode, globalOptions } from '../node-connection.js';
import { createProgress } from '../progress.js';

/** The export may take hours on a big chain; the progress polls keep their own short limit. */
const EXPORT_TIMEOUT_MS = 7 * 24 * 3600 * 1000;
const POLL_MS = 500;

interface ExportCommandOptions {
  tipset?: string;
  recentStateroots: bigint;
  skipOldMsgs?: boolean;
  full?: boolean;
}

function countParser(value: string): bigint {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return BigInt(value);
}

/** A height (`123` or `@123`) or a tipset key as comma-separated block CIDs, in Lotus JSON. */
async function tipSetKeyJson(api: LedgerApi, tipset: string | undefined): Promise<CidJson[] | null> {
  if (tipset === undefined) return null;
  const height = /^@?(\d+)$/.exec(tipset.trim());
  if (height !== null) return (await api.ChainGetTipSetByHeight(Number(height[1]), null)).Cids;
  const cids = tipset.split(',').map((text, i) => readJsonCid({ '/': text.trim() }, `--tipset[${i}]`));
  return cids.map(cidToLotusJson);
}

export function chainExportCommand(): Command {
  return new Command('export')
    .description(
      'Export a chain snapshot (CAR v1 in Lotus’s order) to a file on the node’s machine: every header back to ' +
        'genesis, state trees for the recent epochs (all with --full) and genesis, and messages',
    )
    .argument('<file>', 'where the node writes the CAR (must not exist); relative to this directory')
    .option(
      '--tipset <key or height>',
      'the tipset to export from: a height, or comma-separated block CIDs (default: head)',
    )
    .addOption(
      new Option('--recent-stateroots <n>', 'epochs of state trees to include, back from the tipset')
        .argParser(countParser)
        .default(2000n, '2000'),
    )
    .option('--skip-old-msgs', 'leave out messages older than the recent state roots')
    .option('--full', 'include every state tree back to genesis (a full snapshot)')
    .action(async (file: string, options: ExportCommandOptions, command: Command) => {
      const endpoint = findNode(globalOptions(command));
      const client = apiOf(endpoint, EXPORT_TIMEOUT_MS);
      const poller = apiOf(endpoint);
      const path = resolve(file);
      const key = await tipSetKeyJson(poller, options.tipset);
      const nroots = options.full === true ? null : Number(options.recentStateroots);
      const exporting = client.ChainExportToFile(path, nroots, options.skipOldMsgs === true, key);
      let progress: ReturnType<typeof createProgress> | undefined;
      let done = false;
      const polling = (async () => {
        while (!done) {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          if (done) return;
          const p = await poller.ChainExportProgress(path).catch(() => null);
          if (p === null || done) continue;
          const headEpoch = Number(p.HeadEpoch);
          progress ??= createProgress(`Exporting ${file}`, headEpoch);
          progress.update(
            headEpoch - Number(p.Epoch),
            `epoch ${p.Epoch}, ${p.Blocks} blocks, ${formatBytes(Number(p.Bytes))}`,
          );
        }
      })();
      try {
        const summary = await exporting;
        const head = readJsonArray(summary.Head, 'Head', readJsonCid);
        done = true;
        await polling;
        progress?.update(Number(summary.Height), 'done');
        progress?.stop();
        process.stdout.write(
          `${path}: ${summary.Full === true ? 'full' : 'minimal'} snapshot of epoch ${summary.Height} ` +
            `(${head.join(',')}), ${summary.Blocks} blocks, ${formatBytes(Number(summary.Bytes))}` +
            `${summary.Full === true ? '' : `, state from epoch ${summary.OldestStateEpoch}`}\n`,
        );
      } finally {
        done = true;
        progress?.stop();
      }
    });
}
