/**
 * A real devnet node in this process for end-to-end tests: the library's `startDevnet`
 * (src/node/library.ts; a temporary repo, real proofs from the shared cache, real keys and
 * signatures, the JSON-RPC server on an ephemeral port of 127.0.0.1, the mining loop) plus test
 * conveniences: the node itself, `rpc()` with a token of any permission, `waitForHeight()`.
 *
 *   const devnet = await startDevnet({ blockTimeMs: 4000 });
 *   await devnet.waitForHeight(3);
 *   const head = await devnet.rpc('ChainHead');
 *   await devnet.stop();
 *
 * `stop()` stops the node and removes the repo unless `keepRepo` is set (or the repo was given);
 * `startDevnet({ repo: devnet.repoPath })` restarts on the same chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogLevel } from '../../src/index.js';
import { type DevnetNode, launchDevnet } from '../../src/node/launch.js';
import type { Devnet as LibraryDevnet } from '../../src/node/library.js';
import { PERMISSIONS, type Permission, RpcClient } from '../../src/rpc/index.js';
import { setDefaultNetwork, type TipSet } from '../../src/types/index.js';

export interface StartDevnetOptions {
  /** Epoch length in ms, rounded up to whole seconds (block timestamps are seconds). Default 4000. */
  readonly blockTimeMs?: number;
  /** An existing repo to (re)start; a new temporary one otherwise. */
  readonly repo?: string;
  /** Keep a temporary repo after stop() (to restart on it). */
  readonly keepRepo?: boolean;
  /** Run the mining loop (default true). */
  readonly mine?: boolean;
  /** Funded secp256k1 accounts (default 10). */
  readonly accounts?: number;
  /** Funded Ethereum accounts (default 10). */
  readonly ethAccounts?: number;
  /** attoFIL per funded account (default 10,000 FIL). */
  readonly accountBalance?: bigint;
  /** A pino level for the node's log on stderr (default silent; `LEDGER_TEST_LOG=debug` overrides). */
  readonly logLevel?: LogLevel;
}

export interface Devnet extends LibraryDevnet {
  /** `http://127.0.0.1:<port>/rpc/v1` (the library's `rpcUrl`). */
  readonly url: string;
  readonly node: DevnetNode;
  /** The library's `repo`. */
  readonly repoPath: string;
  /** Calls `Ledger.<method>` with a token of `perm` (default admin) and returns the Lotus JSON result. */
  rpc<T = unknown>(method: string, params?: readonly unknown[], perm?: Permission | 'none'): Promise<T>;
  /** Resolves with the head once the chain reaches `height` (polls the chain store). */
  waitForHeight(height: number | bigint, timeoutMs?: number): Promise<TipSet>;
}

export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  // A kept repo is made here, so the library treats it as the caller's and leaves it at stop().
  const keptRepo = options.repo === undefined && options.keepRepo === true;
  const repo = keptRepo ? mkdtempSync(join(tmpdir(), 'ledger-devnet-')) : options.repo;
  let started: Awaited<ReturnType<typeof launchDevnet>>;
  try {
    started = await launchDevnet({
      ...(repo === undefined ? {} : { repo }),
      blockTime: Math.max(1, Math.ceil((options.blockTimeMs ?? 4000) / 1000)),
      mine: options.mine ?? true,
      ...(options.accounts === undefined ? {} : { accounts: options.accounts }),
      ...(options.ethAccounts === undefined ? {} : { ethAccounts: options.ethAccounts }),
      ...(options.accountBalance === undefined ? {} : { balance: options.accountBalance }),
      logLevel: (process.env.LEDGER_TEST_LOG as LogLevel | undefined) ?? options.logLevel ?? 'silent',
    });
  } catch (error) {
    if (keptRepo && repo !== undefined) rmSync(repo, { recursive: true, force: true });
    throw error;
  }
  const { node, devnet } = started;
  const tokens = new Map<Permission, string>([['admin', devnet.token]]);
  const tokenFor = async (perm: Permission): Promise<string> => {
    let minted = tokens.get(perm);
    if (minted === undefined) {
      minted = await node.tokens.create(PERMISSIONS.slice(0, PERMISSIONS.indexOf(perm) + 1));
      tokens.set(perm, minted);
    }
    return minted;
  };
  const chain = node.chain;
  if (chain === undefined) throw new Error('the devnet node has no chain');

  return {
    ...devnet,
    url: devnet.rpcUrl,
    node,
    repoPath: devnet.repo,
    async rpc<T>(method: string, params: readonly unknown[] = [], perm: Permission | 'none' = 'admin'): Promise<T> {
      const client = new RpcClient({ url: devnet.rpcUrl, ...(perm === 'none' ? {} : { token: await tokenFor(perm) }) });
      return (await client.request(`Ledger.${method}`, params)) as T;
    },
    async waitForHeight(height, timeoutMs = 120_000) {
      const target = BigInt(height);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const head = chain.chain.head();
        if (head.height >= target) return head;
        if (Date.now() > deadline) {
          throw new Error(`the devnet did not reach height ${target} in ${timeoutMs} ms (head ${head.height})`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      try {
        await devnet.stop();
      } finally {
        // LedgerNode.start made `t` the process's default address network; other tests expect `f`.
        setDefaultNetwork('f');
      }
    },
  };
}
