/**
 * A real devnet node in this process for end-to-end tests: a temporary repo, real proofs (the 2 KiB
 * parameters from the shared cache), real keys and signatures, the JSON-RPC server on 127.0.0.1 with
 * an ephemeral port, and the mining loop producing blocks.
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
import { pino } from 'pino';
import { LedgerNode } from '../../src/node/index.js';
import { PERMISSIONS, type Permission, RpcClient, rpcUrl } from '../../src/rpc/index.js';
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
  /** attoFIL per funded account (default 10,000 FIL). */
  readonly accountBalance?: bigint;
  /** A pino level for the node's log on stderr (default silent; `LEDGER_TEST_LOG=debug` overrides). */
  readonly logLevel?: string;
}

export interface Devnet {
  /** `http://127.0.0.1:<port>/rpc/v1`. */
  readonly url: string;
  /** The admin token. */
  readonly token: string;
  readonly node: LedgerNode;
  readonly repoPath: string;
  /** Calls `Ledger.<method>` with a token of `perm` (default admin) and returns the Lotus JSON result. */
  rpc<T = unknown>(method: string, params?: readonly unknown[], perm?: Permission | 'none'): Promise<T>;
  /** Resolves with the head once the chain reaches `height` (polls the chain store). */
  waitForHeight(height: number | bigint, timeoutMs?: number): Promise<TipSet>;
  stop(): Promise<void>;
}

export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const repoPath = options.repo ?? mkdtempSync(join(tmpdir(), 'ledger-devnet-'));
  const removeRepo = options.repo === undefined && options.keepRepo !== true;
  const blockDelaySecs = BigInt(Math.max(1, Math.ceil((options.blockTimeMs ?? 4000) / 1000)));
  const logger = pino({ level: process.env.LEDGER_TEST_LOG ?? options.logLevel ?? 'silent' }, pino.destination(2));
  let node: LedgerNode;
  try {
    node = await LedgerNode.start({
      repoPath,
      logger,
      overrides: { apiPort: 0 },
      devnet: {
        blockDelaySecs,
        mine: options.mine ?? true,
        ...(options.accounts === undefined ? {} : { accounts: options.accounts }),
        ...(options.accountBalance === undefined ? {} : { accountBalance: options.accountBalance }),
      },
    });
  } catch (error) {
    if (removeRepo) rmSync(repoPath, { recursive: true, force: true });
    throw error;
  }
  const token = node.repo.readToken() as string;
  const tokens = new Map<Permission, string>([['admin', token]]);
  const tokenFor = async (perm: Permission): Promise<string> => {
    let minted = tokens.get(perm);
    if (minted === undefined) {
      minted = await node.tokens.create(PERMISSIONS.slice(0, PERMISSIONS.indexOf(perm) + 1));
      tokens.set(perm, minted);
    }
    return minted;
  };
  const url = rpcUrl(node.apiAddress, 1);
  const chain = node.chain;
  if (chain === undefined) throw new Error('the devnet node has no chain');

  return {
    url,
    token,
    node,
    repoPath,
    async rpc<T>(method: string, params: readonly unknown[] = [], perm: Permission | 'none' = 'admin'): Promise<T> {
      const client = new RpcClient({ url, ...(perm === 'none' ? {} : { token: await tokenFor(perm) }) });
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
        await node.stop();
      } finally {
        setDefaultNetwork('f');
        if (removeRepo) rmSync(repoPath, { recursive: true, force: true });
      }
    },
  };
}
