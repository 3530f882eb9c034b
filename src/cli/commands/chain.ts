/**
 * `ledger chain …`: reads the chain of a running node over RPC, printing as Lotus's CLI does
 * (filecoin-project/lotus `cli/chain.go`). Other `chain` subcommands (export) add themselves to the
 * group this returns.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { PruneSummaryJson } from '../../rpc/methods/prune.js';
import {
  jsonFail,
  jsonField,
  readJsonArray,
  readJsonCid,
  readJsonInt64,
  readJsonObject,
  stringifyJsonLossless,
} from '../../types/index.js';
import { formatBytes } from '../byte-progress.js';
import { followChannel } from '../follow.js';
import { apiOf, connectToNode, findNode, globalOptions } from '../node-connection.js';

/** A prune walks the whole chain and sweeps the whole blockstore: hours on a mainnet-sized database. */
const PRUNE_TIMEOUT_MS = 7 * 24 * 3600 * 1000;

function windowParser(value: string): bigint {
  if (!/^\d+$/.test(value) || BigInt(value) < 1n)
    throw new InvalidArgumentError('the window must be a positive number of epochs');
  return BigInt(value);
}

function heightParser(value: string): bigint {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('the height must be a non-negative integer');
  return BigInt(value);
}

/** The CIDs and height of a TipSet in Lotus JSON. */
function readTipSetSummary(json: unknown): { cids: string[]; height: bigint } {
  const object = readJsonObject(json, 'TipSet');
  return {
    cids: readJsonArray(jsonField(object, 'Cids'), 'TipSet.Cids', readJsonCid).map(String),
    height: readJsonInt64(jsonField(object, 'Height'), 'TipSet.Height'),
  };
}

export function chainCommand(): Command {
  const chain = new Command('chain').description('Read the chain of a running node');

  chain
    .command('head')
    .description('Print the CIDs of the head tipset, one per line (--height: only its epoch)')
    .option('--height', 'print only the head epoch')
    .action(async (options: { height?: boolean }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const head = readTipSetSummary(await api.ChainHead());
      process.stdout.write(options.height === true ? `${head.height}\n` : head.cids.map((cid) => `${cid}\n`).join(''));
    });

  chain
    .command('get-tipset')
    .description(
      'Print the tipset at a height as Lotus JSON (at a null round: the tipset before it, as ChainGetTipSetByHeight)',
    )
    .requiredOption('--height <epoch>', 'the epoch', heightParser)
    .option('--cids', 'print only the block CIDs, one per line')
    .action(async (options: { height: bigint; cids?: boolean }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const tipSet = await api.ChainGetTipSetByHeight(options.height, null);
      if (options.cids === true) {
        process.stdout.write(
          readTipSetSummary(tipSet)
            .cids.map((cid) => `${cid}\n`)
            .join(''),
        );
      } else {
        process.stdout.write(`${stringifyJsonLossless(tipSet, 2)}\n`);
      }
    });

  chain
    .command('notify')
    .description(
      'Follow the head over WebSocket (ChainNotify) until Ctrl-C: one line per head change, `<type> <height> {<block CIDs>}` (current first, then revert/apply), or the raw HeadChange JSON with --json',
    )
    .option('--json', 'print each notification (an array of {Type, Val}) as Lotus JSON on one line')
    .action(async (options: { json?: boolean }, command: Command) => {
      await followChannel(globalOptions(command), 'ChainNotify', (changes) => {
        process.stdout.write(
          options.json === true ? `${stringifyJsonLossless(changes)}\n` : formatHeadChanges(changes),
        );
      });
    });

  chain
    .command('prune')
    .description(
      'Delete state trees and receipts older than --window epochs below the head (headers and messages stay), while the node runs (ChainPrune, admin); prints what was removed',
    )
    .option(
      '--window <epochs>',
      "epochs of state to keep (default: the node's [Chainstore.Prune] Window)",
      windowParser,
    )
    .action(async (options: { window?: bigint }, command: Command) => {
      const api = apiOf(findNode(globalOptions(command)), PRUNE_TIMEOUT_MS);
      const summary = await api.ChainPrune(options.window === undefined ? {} : { Window: Number(options.window) });
      process.stdout.write(formatPruneSummary(summary));
    });

  return chain;
}

/** What `chain prune` prints of ChainPrune's answer. */
export function formatPruneSummary(summary: PruneSummaryJson): string {
  return (
    `head ${summary.HeadEpoch}: state kept from epoch ${summary.OldestStateEpoch} on (and genesis)\n` +
    `deleted ${summary.DeletedBlocks} of ${summary.ScannedBlocks} blocks (${formatBytes(summary.DeletedBytes)} of data), ` +
    `kept ${summary.MarkedBlocks} (+${summary.WrittenMeanwhile} written meanwhile) in ${(summary.Milliseconds / 1000).toFixed(1)} s\n` +
    `database in use ${formatBytes(summary.UsedBytesBefore)} → ${formatBytes(summary.UsedBytesAfter)} ` +
    `(file ${formatBytes(summary.FileBytes)}; SQLite reuses the freed pages)\n`
  );
}

/** `<type> <height> {<cid>,<cid>}` per change: the tipset key as Lotus prints one (chain/types/tipset_key.go). */
export function formatHeadChanges(json: unknown): string {
  return readJsonArray(json, 'HeadChanges', (change, path) => {
    const object = readJsonObject(change, path);
    const type = jsonField(object, 'Type');
    if (typeof type !== 'string') jsonFail(`${path}.Type`, 'a string', type);
    const { cids, height } = readTipSetSummary(jsonField(object, 'Val'));
    return `${type} ${height} {${cids.join(',')}}\n`;
  }).join('');
}
