/**
 * A follower daemon (a separate process) killed with SIGKILL in the middle of catching up, then
 * started again on the same repo: it reopens its store at the last validated tipset and catches up
 * with the miner. Each tipset is added in its own transaction, so the kill leaves nothing half
 * written.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importGenesisIntoRepo } from '../../src/cli/genesis-import.js';
import { Repo } from '../../src/node/repo.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const TIMEOUT_MS = 20 * 60_000;
const CHAIN_LENGTH = 40;
const MAIN = pathToFileURL(resolve('src/cli/main.ts')).href;

let miner: Devnet;
let repo: string;
const children: ChildProcess[] = [];

function daemon(bootstrap: string): ChildProcess {
  const argv = JSON.stringify(['node', 'ledger', 'daemon', '--repo', repo, '--api', '0', '--bootstrap', bootstrap]);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { main } from ${JSON.stringify(MAIN)}; await main(${argv});`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LEDGER_API_INFO: '' } },
  );
  child.stderr?.resume();
  children.push(child);
  return child;
}

/** The follower's head height over its RPC API, or undefined while it is not serving. */
async function followerHeight(): Promise<number | undefined> {
  const api = new Repo(repo).readApi();
  if (api === undefined) return undefined;
  const [, , host, , port] = api.split('/');
  try {
    const response = await fetch(`http://${host}:${port}/rpc/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Ledger.ChainHead', params: [] }),
    });
    const json = (await response.json()) as { result?: { Height: number } };
    return json.result?.Height;
  } catch {
    return undefined;
  }
}

async function until(check: () => Promise<boolean>, what: string, pollMs = 100): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

beforeAll(async () => {
  miner = await startDevnet({ blockTimeMs: 1000, accounts: 1 });
  // Long enough that catching up takes a while (a follower validates about 60 epochs a second
  // unloaded, slower on a busy machine, which widens the window too): it is caught mid-sync.
  await miner.waitForHeight(CHAIN_LENGTH, TIMEOUT_MS);
  repo = mkdtempSync(join(tmpdir(), 'ledger-restart-'));
  await importGenesisIntoRepo(repo, join(miner.repoPath, 'genesis.car'));
}, TIMEOUT_MS);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await miner?.stop();
  if (repo !== undefined) rmSync(repo, { recursive: true, force: true });
});

test(
  'a follower killed mid-sync resumes from its store and catches up',
  async () => {
    const bootstrap = miner.node.net!.network.listenAddresses()[0]!;
    const first = daemon(bootstrap);
    let reached = 0;
    // Polled closely: the first height above genesis the follower reports is taken mid-sync.
    await until(
      async () => {
        reached = (await followerHeight()) ?? 0;
        return reached > 0;
      },
      'the follower to start syncing',
      5,
    );
    const target = Number(miner.node.chain!.chain.head().height);
    expect(reached).toBeLessThan(target); // still mid-sync when killed
    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGKILL');
    await exited;

    daemon(bootstrap);
    await until(async () => (await followerHeight()) !== undefined, 'the restarted follower to serve');
    // Reopened at (or past) where it was killed: nothing was lost.
    expect((await followerHeight())!).toBeGreaterThanOrEqual(reached);
    await until(
      async () => ((await followerHeight()) ?? 0) >= Number(miner.node.chain!.chain.head().height) - 1,
      'the restarted follower to catch up',
    );
  },
  TIMEOUT_MS,
);
