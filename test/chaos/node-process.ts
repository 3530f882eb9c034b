/**
 * A `ledger` process run from the built CLI (`bin/ledger.js`, as users run it), each in its own
 * repo: start it, find its RPC endpoint through the repo's `api` and `token` files (what the CLI
 * itself reads), kill it with SIGKILL, stop it with SIGTERM, and read its memory from /proc. Its
 * stderr (pino JSON lines) goes to a log file and is scanned line by line for the caller.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, statSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Repo } from '../../src/node/repo.js';
import { RpcClient } from '../../src/rpc/client.js';
import { rpcUrl } from '../../src/rpc/endpoint.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI under test; `LEDGER_CHAOS_BIN` points the run at another build (an older commit's, say). */
export const LEDGER_BIN = process.env.LEDGER_CHAOS_BIN || join(ROOT, 'bin', 'ledger.js');

/** Every process started and not yet exited, so a run that aborts leaves none behind. */
const live = new Set<NodeProcess>();

export async function killAll(): Promise<void> {
  await Promise.all([...live].map((node) => node.kill9()));
}

export interface Endpoint {
  readonly url: string;
  readonly token: string;
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class NodeProcess {
  readonly label: string;
  readonly repo: string;
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  readonly exited: Promise<ExitStatus>;
  #exit: ExitStatus | undefined;
  readonly #log: WriteStream;
  readonly #tail: string[] = [];
  readonly #lineListeners = new Set<(line: string) => void>();

  /** Runs `ledger --repo <repo> <args…>`; stderr is appended to `logFile`. */
  constructor(label: string, repo: string, args: readonly string[], logFile: string) {
    this.label = label;
    this.repo = repo;
    this.#log = createWriteStream(logFile, { flags: 'a' });
    this.#log.write(`\n=== ${new Date().toISOString()} ${label}: ledger --repo ${repo} ${args.join(' ')}\n`);
    this.child = spawn(process.execPath, [LEDGER_BIN, '--repo', repo, ...args], {
      // LEDGER_API_INFO would point the node's own CLI helpers at another node.
      env: { ...process.env, LEDGER_API_INFO: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    live.add(this);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        live.delete(this);
        resolve(this.#exit);
      });
    });
    const lines = createInterface({ input: this.child.stderr! });
    lines.on('line', (line) => {
      this.#log.write(`${line}\n`);
      this.#tail.push(line);
      if (this.#tail.length > 200) this.#tail.shift();
      for (const listener of this.#lineListeners) listener(line);
    });
    lines.on('close', () => this.#log.end());
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.#exit === undefined;
  }

  get exitStatus(): ExitStatus | undefined {
    return this.#exit;
  }

  /** The last lines of the log, for an error message. */
  tail(lines = 12): string {
    return this.#tail.slice(-lines).join('\n');
  }

  /** Calls `listener` with every later stderr line; returns the unsubscribe function. */
  onLine(listener: (line: string) => void): () => void {
    this.#lineListeners.add(listener);
    return () => this.#lineListeners.delete(listener);
  }

  /** Resolves with the first later stderr line that `match` accepts, or undefined after `timeoutMs`. */
  waitForLine(match: (line: string) => boolean, timeoutMs: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      const done = (line: string | undefined) => {
        clearTimeout(timer);
        off();
        resolve(line);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      const off = this.onLine((line) => {
        if (match(line)) done(line);
      });
      void this.exited.then(() => done(undefined));
    });
  }

  /**
   * Waits until this process serves JSON-RPC: its `api` file written after it started (a file left
   * by a killed predecessor is older) and ChainHead answering.
   */
  async waitForRpc(timeoutMs: number): Promise<Endpoint> {
    const repo = new Repo(this.repo);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.alive) {
        throw new Error(`${this.label} exited (${describeExit(this.#exit!)}) before serving RPC:\n${this.tail()}`);
      }
      const api = this.#freshApi(repo);
      const token = repo.readToken();
      if (api && token !== undefined) {
        const endpoint = { url: rpcUrl(api, 1), token };
        try {
          await new RpcClient({ ...endpoint, timeoutMs: 2_000 }).request('Ledger.ChainHead');
          return endpoint;
        } catch {
          // listening soon
        }
      }
      if (Date.now() > deadline) throw new Error(`${this.label} did not serve RPC within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** The repo's API address if this process wrote it (not a file left by a killed predecessor). */
  #freshApi(repo: Repo): string | undefined {
    try {
      return statSync(repo.apiFile).mtimeMs >= this.startedAt - 5 ? repo.readApi() : undefined;
    } catch {
      return undefined; // not written yet
    }
  }

  /** SIGKILL, then waits until the process is gone (reaped, so its pid no longer holds the repo lock). */
  async kill9(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (a clean stop); SIGKILL when it has not exited after `graceMs`. Returns how it ended. */
  async stop(graceMs = 30_000): Promise<ExitStatus> {
    if (!this.alive) return this.#exit!;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const status = await this.exited;
    clearTimeout(timer);
    return status;
  }

  /** Resident and peak resident memory in bytes (/proc/<pid>/status VmRSS, VmHWM); undefined once gone. */
  memory(): { rss: number; hwm: number } | undefined {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
      return { rss: kib('VmRSS') * 1024, hwm: kib('VmHWM') * 1024 };
    } catch {
      return undefined;
    }
  }
}

export function describeExit(status: ExitStatus): string {
  return status.signal === null ? `exit code ${status.code}` : `signal ${status.signal}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs the CLI to completion (a short command such as `proofs params`); rejects on a non-zero exit. */
export function runLedger(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LEDGER_BIN, ...args], {
      env: { ...process.env, LEDGER_API_INFO: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`ledger ${args.join(' ')} exited with ${code}:\n${output}`)),
    );
  });
}
