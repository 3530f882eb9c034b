/**
 * `ledger chain export [--tipset <key or height>] [--recent-stateroots N] [--skip-old-msgs] [--full] [--stream] <file>`:
 * asks the node (admin) to write a snapshot to `file` on its machine with `ChainExportToFile`, and
 * draws the export's progress from `ChainExportProgress` meanwhile. With `--stream` it does what
 * `lotus chain export` does (filecoin-project/lotus cli/chain.go): it reads the CAR from the
 * `ChainExport` channel over WebSocket (read permission) and writes the file on this machine.
 */
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { LedgerApi } from '../../rpc/client.js';
import { rpcUrl } from '../../rpc/endpoint.js';
import { NAMESPACES } from '../../rpc/method.js';
import { WebSocketRpcClient } from '../../rpc/ws-client.js';
import { type CidJson, cidToLotusJson, readJsonArray, readJsonCid } from '../../types/index.js';
import { LedgerError } from '../../utils/errors.js';
import { formatBytes } from '../byte-progress.js';
import { apiOf, findNode, globalOptions, type NodeEndpoint } from '../node-connection.js';
import { createProgress } from '../progress.js';

/** The export may take hours on a big chain; the progress polls keep their own short limit. */
const EXPORT_TIMEOUT_MS = 7 * 24 * 3600 * 1000;
const POLL_MS = 500;

interface ExportCommandOptions {
  tipset?: string;
  recentStateroots: bigint;
  skipOldMsgs?: boolean;
  full?: boolean;
  stream?: boolean;
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

/**
 * Writes the values of a ChainExport channel (base64 CAR chunks, then "" at the end) to `path`,
 * through a temporary file renamed at the end, and returns the bytes written. A channel that
 * closes without the end marker leaves no file: Lotus calls that an incomplete export.
 */
async function streamExport(endpoint: NodeEndpoint, path: string, params: readonly unknown[]): Promise<number> {
  if (existsSync(path)) throw new LedgerError('ERR_CLI_EXPORT', `${path} already exists`);
  const partial = `${path}.partial`;
  const client = await WebSocketRpcClient.connect(rpcUrl(endpoint.address, 1), endpoint.token);
  const out = createWriteStream(partial, { flags: 'wx' });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let bytes = 0;
  let complete = false;
  try {
    const channel = await client.subscribe(`${NAMESPACES[0]}.ChainExport`, params);
    for await (const value of channel) {
      if (typeof value !== 'string')
        throw new LedgerError('ERR_CLI_EXPORT', 'ChainExport sent a value that is no base64 string');
      complete = value === '';
      const chunk = Buffer.from(value, 'base64');
      bytes += chunk.length;
      if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
    }
    if (!complete) {
      throw new LedgerError(
        'ERR_CLI_EXPORT',
        'incomplete export: the node ended the stream early (connection lost, node stopping, or an error on the node)',
      );
    }
    out.end();
    await Promise.race([once(out, 'close'), failed]);
    await rename(partial, path);
    return bytes;
  } catch (error) {
    out.destroy();
    await rm(partial, { force: true });
    throw error;
  } finally {
    await client.close();
  }
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
    .option(
      '--stream',
      'stream the CAR over WebSocket (ChainExport, read permission) and write the file on this machine, as `lotus chain export` does',
    )
    .action(async (file: string, options: ExportCommandOptions, command: Command) => {
      const endpoint = findNode(globalOptions(command));
      const client = apiOf(endpoint, EXPORT_TIMEOUT_MS);
      const poller = apiOf(endpoint);
      const path = resolve(file);
      const key = await tipSetKeyJson(poller, options.tipset);
      const nroots = options.full === true ? null : Number(options.recentStateroots);
      if (options.stream === true) {
        const bytes = await streamExport(endpoint, path, [
          nroots ?? Number.MAX_SAFE_INTEGER,
          options.skipOldMsgs === true,
          key,
        ]);
        process.stdout.write(`${path}: ${formatBytes(bytes)} streamed\n`);
        return;
      }
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
