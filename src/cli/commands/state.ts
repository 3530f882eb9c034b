/**
 * `ledger state replay|wait|search-msg`: a message's execution, printed as Lotus's CLI prints it
 * (filecoin-project/lotus `cli/state.go` StateReplayCmd, printMsg).
 */
import { Command, InvalidArgumentError } from 'commander';
import { CID } from 'multiformats/cid';
import { NodeUnreachableError } from '../../rpc/errors.js';
import {
  cidToLotusJson,
  jsonField,
  readJsonArray,
  readJsonBytes,
  readJsonCid,
  readJsonInt64,
  readJsonNullable,
  readJsonObject,
} from '../../types/index.js';
import { toHex } from '../../utils/bytes.js';
import { LedgerError } from '../../utils/errors.js';
import { apiOf, connectToNode, findNode, type GlobalOptions, globalOptions } from '../node-connection.js';

function cidArgument(value: string): CID {
  try {
    return CID.parse(value);
  } catch {
    throw new InvalidArgumentError(`${JSON.stringify(value)} is not a CID`);
  }
}

/** Go durations as Lotus's `--timeout` takes them: `90s`, `10m`, `1h`, `1h30m`. */
export function parseDuration(value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) {
    throw new InvalidArgumentError(`${JSON.stringify(value)} is not a duration like 90s, 10m or 1h`);
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return parts.reduce((total, p) => total + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}

/** Go's `%s` of a `[]cid.Cid`: `[cid1 cid2]`. */
function cidList(json: unknown, path: string): string {
  return `[${readJsonArray(json, path, readJsonCid).join(' ')}]`;
}

function hexOf(json: unknown, path: string): string {
  return toHex(readJsonBytes(json, path));
}

/** Lotus `printMsg`: where a message was executed and its receipt. */
export function formatMsgLookup(asked: CID, json: unknown): string {
  if (json === null) return 'message was not found on chain\n';
  const lookup = readJsonObject(json, 'MsgLookup');
  const receipt = readJsonObject(jsonField(lookup, 'Receipt'), 'MsgLookup.Receipt');
  const found = readJsonCid(jsonField(lookup, 'Message'), 'MsgLookup.Message');
  const lines: string[] = [];
  if (!found.equals(asked)) lines.push(`Message was replaced: ${found}`);
  lines.push(`Executed in tipset: ${cidList(jsonField(lookup, 'TipSet'), 'MsgLookup.TipSet')}`);
  lines.push(`Exit Code: ${readJsonInt64(jsonField(receipt, 'ExitCode'), 'Receipt.ExitCode')}`);
  lines.push(`Gas Used: ${readJsonInt64(jsonField(receipt, 'GasUsed'), 'Receipt.GasUsed')}`);
  lines.push(`Return: ${hexOf(jsonField(receipt, 'Return'), 'Receipt.Return')}`);
  const eventsRoot = readJsonNullable(jsonField(receipt, 'EventsRoot'), 'Receipt.EventsRoot', readJsonCid);
  if (eventsRoot !== null) lines.push(`Events Root: ${eventsRoot}`);
  return `${lines.map((line) => `${line}\n`).join('')}`;
}

interface TraceLine {
  readonly from: string;
  readonly to: string;
  readonly value: string;
  readonly method: bigint;
  readonly params: string;
  readonly exitCode: bigint;
  readonly return: string;
}

function traceLine(prefix: string, line: TraceLine): string {
  return `${prefix}${line.from}\t${line.to}\t${line.value}\t${line.method}\t${line.params}\t${line.exitCode}\t${line.return}\n`;
}

/** Lotus `printInternalExecutions`: each subcall one tab deeper than its caller. */
function subcallLines(prefix: string, json: unknown, path: string): string {
  if (json === null || json === undefined) return '';
  return readJsonArray(json, path, (item, at) => {
    const trace = readJsonObject(item, at);
    const msg = readJsonObject(jsonField(trace, 'Msg'), `${at}.Msg`);
    const rct = readJsonObject(jsonField(trace, 'MsgRct'), `${at}.MsgRct`);
    return (
      traceLine(prefix, {
        from: String(jsonField(msg, 'From')),
        to: String(jsonField(msg, 'To')),
        value: String(jsonField(msg, 'Value')),
        method: readJsonInt64(jsonField(msg, 'Method'), `${at}.Msg.Method`),
        params: hexOf(jsonField(msg, 'Params'), `${at}.Msg.Params`),
        exitCode: readJsonInt64(jsonField(rct, 'ExitCode'), `${at}.MsgRct.ExitCode`),
        return: hexOf(jsonField(rct, 'Return'), `${at}.MsgRct.Return`),
      }) + subcallLines(`${prefix}\t`, jsonField(trace, 'Subcalls'), `${at}.Subcalls`)
    );
  }).join('');
}

/** Lotus `StateReplayCmd`'s output for an InvocResult. */
export function formatReplay(json: unknown, options: { showTrace?: boolean; detailedGas?: boolean }): string {
  const result = readJsonObject(json, 'InvocResult');
  const msg = readJsonObject(jsonField(result, 'Msg'), 'InvocResult.Msg');
  const rct = readJsonObject(jsonField(result, 'MsgRct'), 'InvocResult.MsgRct');
  const gas = readJsonObject(jsonField(result, 'GasCost'), 'InvocResult.GasCost');
  const exitCode = readJsonInt64(jsonField(rct, 'ExitCode'), 'MsgRct.ExitCode');
  const returned = hexOf(jsonField(rct, 'Return'), 'MsgRct.Return');
  let out = 'Replay receipt:\n';
  out += `Exit code: ${exitCode}\n`;
  out += `Return: ${returned}\n`;
  out += `Gas Used: ${readJsonInt64(jsonField(rct, 'GasUsed'), 'MsgRct.GasUsed')}\n`;
  if (options.detailedGas === true) {
    out += `Base Fee Burn: ${String(jsonField(gas, 'BaseFeeBurn'))}\n`;
    // Lotus's spelling.
    out += `Overestimaton Burn: ${String(jsonField(gas, 'OverEstimationBurn'))}\n`;
    out += `Miner Penalty: ${String(jsonField(gas, 'MinerPenalty'))}\n`;
    out += `Miner Tip: ${String(jsonField(gas, 'MinerTip'))}\n`;
    out += `Refund: ${String(jsonField(gas, 'Refund'))}\n`;
  }
  out += `Total Message Cost: ${String(jsonField(gas, 'TotalCost'))}\n`;
  if (exitCode !== 0n) out += `Error message: ${JSON.stringify(String(jsonField(result, 'Error') ?? ''))}\n`;
  if (options.showTrace === true) {
    out += traceLine('', {
      from: String(jsonField(msg, 'From')),
      to: String(jsonField(msg, 'To')),
      value: String(jsonField(msg, 'Value')),
      method: readJsonInt64(jsonField(msg, 'Method'), 'Msg.Method'),
      params: hexOf(jsonField(msg, 'Params'), 'Msg.Params'),
      exitCode,
      return: returned,
    });
    const trace = readJsonObject(jsonField(result, 'ExecutionTrace'), 'InvocResult.ExecutionTrace');
    out += subcallLines('\t', jsonField(trace, 'Subcalls'), 'ExecutionTrace.Subcalls');
  }
  return out;
}

/** Lotus `build.MessageConfidence`: 5 on mainnet, 1 in the 2k (devnet) build. */
function messageConfidence(version: string): number {
  return version.split('+')[1] === 'mainnet' ? 5 : 1;
}

/**
 * fetch gives up on a response whose headers take longer than 300 s, so a long wait is a series
 * of StateWaitMsg calls, each shorter than that; asking again is harmless.
 */
const WAIT_CALL_MS = 240_000;

/** StateWaitMsg until the message lands (at the node's confidence) or `timeoutMs` passes: its MsgLookup JSON. */
export async function waitForMessage(options: GlobalOptions, cid: CID, timeoutMs: number): Promise<unknown> {
  const api = await connectToNode(options);
  const { Version } = await api.Version();
  const endpoint = findNode(options);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new LedgerError('ERR_TIMEOUT', `timed out waiting for message ${cid}`);
    const client = apiOf(endpoint, Math.min(left, WAIT_CALL_MS));
    try {
      return await client.StateWaitMsg(cidToLotusJson(cid), messageConfidence(Version), -1, true);
    } catch (error) {
      // Only this call's own time limit is retried; the node's errors and refusals end the wait.
      const timedOut = error instanceof NodeUnreachableError && (error.cause as Error)?.name === 'TimeoutError';
      if (!timedOut) throw error;
    }
  }
}

export function stateCommand(): Command {
  const state = new Command('state').description("Inspect a message's execution on the chain of a running node");

  state
    .command('replay')
    .description('Replay a message and print its receipt, gas cost and (--show-trace) its execution trace')
    .argument('<messageCid>', 'the message CID (the signed CID for secp256k1 messages)', cidArgument)
    .option('--show-trace', 'print the execution trace: From To Value Method Params ExitCode Return, subcalls indented')
    .option('--detailed-gas', 'print the gas cost by part')
    .action(async (cid: CID, options: { showTrace?: boolean; detailedGas?: boolean }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      let result: unknown;
      try {
        result = await api.StateReplay(null, cidToLotusJson(cid));
      } catch (error) {
        throw new LedgerError('ERR_REPLAY_FAILED', `replay call failed: ${(error as Error).message}`, { cause: error });
      }
      process.stdout.write(formatReplay(result, options));
    });

  state
    .command('wait')
    .alias('wait-msg')
    .description('Wait for a message to be executed on chain (with the network’s message confidence) and print it')
    .argument('<messageCid>', 'the message CID (the signed CID for secp256k1 messages)', cidArgument)
    .option('--timeout <duration>', 'give up after this long', parseDuration, 600_000)
    .action(async (cid: CID, options: { timeout: number }, command: Command) => {
      const lookup = await waitForMessage(globalOptions(command), cid, options.timeout);
      process.stdout.write(formatMsgLookup(cid, lookup));
    });

  state
    .command('search-msg')
    .description('Search the chain for a message without waiting')
    .argument('<messageCid>', 'the message CID (the signed CID for secp256k1 messages)', cidArgument)
    .action(async (cid: CID, _options: unknown, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const lookup = await api.StateSearchMsg(null, cidToLotusJson(cid), -1, true);
      process.stdout.write(formatMsgLookup(cid, lookup));
    });

  return state;
}
