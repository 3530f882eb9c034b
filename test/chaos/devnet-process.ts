/**
 * A `ledger devnet` (1 s epochs) in its own process and repo, restartable on the same chain, and
 * what the scenarios watch it with: its head, its accounts, the reason its miner last failed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeProcess, sleep } from './node-process.js';
import { NodeRpc } from './rpc.js';

export interface DevnetOptions {
  readonly label: string;
  readonly repo: string;
  readonly logFile: string;
  readonly accounts: number;
  readonly mine: boolean;
}

export interface RunningDevnet {
  readonly node: NodeProcess;
  readonly rpc: NodeRpc;
}

/** First start (creating the devnet: pre-seal, genesis) or restart; resolves once RPC answers. */
export async function startDevnetProcess(options: DevnetOptions, timeoutMs = 60_000): Promise<RunningDevnet> {
  const args = ['devnet', '--api', '0', '--block-time', '1', '--accounts', String(options.accounts)];
  if (!options.mine) args.push('--no-mine');
  const node = new NodeProcess(options.label, options.repo, args, options.logFile);
  try {
    return { node, rpc: new NodeRpc(await node.waitForRpc(timeoutMs)) };
  } catch (error) {
    await node.kill9();
    throw error;
  }
}

/** The funded accounts of a devnet repo (`devnet.json`). */
export function devnetAccounts(repo: string): string[] {
  return (JSON.parse(readFileSync(join(repo, 'devnet.json'), 'utf8')) as { Accounts: string[] }).Accounts;
}

/** Resolves with the head height once it is above `height`, or undefined after `timeoutMs`. */
export async function waitForHeightAbove(rpc: NodeRpc, height: number, timeoutMs: number): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const head = await rpc.head(5_000);
      if (head.Height > height) return head.Height;
    } catch {
      // busy or restarting: ask again
    }
    await sleep(250);
  }
  return undefined;
}

/** The last reason the miner gave for a failed round in its log, if any. */
export function lastMiningFailure(node: NodeProcess): string | undefined {
  const lines = node.tail(200).split('\n').reverse();
  for (const line of lines) {
    if (!line.includes('mining round failed')) continue;
    try {
      const entry = JSON.parse(line) as { err?: { message?: string } };
      return entry.err?.message ?? line;
    } catch {
      return line;
    }
  }
  return undefined;
}

/** Polls ChainHead and keeps the highest height seen, until stopped. */
export class HeadWatcher {
  highest = -1;
  readonly #timer: NodeJS.Timeout;

  constructor(rpc: NodeRpc, intervalMs = 100) {
    this.#timer = setInterval(() => {
      rpc.head(2_000).then(
        (head) => {
          this.highest = Math.max(this.highest, head.Height);
        },
        () => undefined,
      );
    }, intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
