/**
 * How long `ledger devnet` (what `npm start` runs) takes, in its own process on a temporary repo,
 * with the proof parameters already cached:
 *
 * - first run: until the RPC answers (`Ledger.Version`), until the first mined block is the head;
 * - restart on the same repo: until the RPC answers, until the next block extends the old head.
 *
 * Runs the built CLI (`bin/ledger.js`, as `npm start` does), so run `npm run build:ts` first.
 * Targets: RPC < 3 s, first block within one block time. Writes bench/results/startup.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BLOCK_TIME_SECS = Number(process.env.LEDGER_BENCH_BLOCK_TIME ?? 4);
const RUNS = Number(process.env.LEDGER_BENCH_RUNS ?? 3);
const BLOCK_TIMEOUT_MS = 180_000;

interface Run {
  rpcSeconds: number;
  blockSeconds: number;
}

function assertBuilt(): void {
  const built = join(root, 'dist', 'bundle', 'main.js');
  if (!existsSync(built)) throw new Error('dist/ is missing: run `npm run build:ts` first');
  const source = statSync(join(root, 'src', 'node', 'node.ts')).mtimeMs;
  if (statSync(built).mtimeMs < source) {
    throw new Error('dist/ is older than src/: run `npm run build:ts` first');
  }
}

function startDevnet(repo: string): ChildProcess {
  return spawn(
    process.execPath,
    [join(root, 'bin', 'ledger.js'), 'devnet', '--api', '0', '--block-time', String(BLOCK_TIME_SECS)],
    {
      env: { ...process.env, LEDGER_PATH: repo },
      // LEDGER_BENCH_LOG=<file> keeps the nodes' logs (appended) to see where the time went.
      stdio: [
        'ignore',
        'ignore',
        process.env.LEDGER_BENCH_LOG ? openSync(process.env.LEDGER_BENCH_LOG, 'a') : 'ignore',
      ],
    },
  );
}

async function rpc(url: string, method: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, params: [], id: 1 }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value; the time is taken the moment it does. */
async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function measureStart(repo: string): Promise<Run & { height: number }> {
  const apiFile = join(repo, 'api');
  rmSync(apiFile, { force: true });
  const previous = existsSync(join(repo, 'devnet.json'));
  const started = performance.now();
  const child = startDevnet(repo);
  try {
    const url = await until('the api file', 60_000, async () => {
      if (!existsSync(apiFile)) return undefined;
      const [, , host, , port] = readFileSync(apiFile, 'utf8').trim().split('/');
      return `http://${host}:${port}/rpc/v1`;
    });
    const startHeight = await until('the RPC', 60_000, async () => {
      await rpc(url, 'Ledger.Version');
      return ((await rpc(url, 'Ledger.ChainHead')) as { Height: number }).Height;
    });
    const rpcSeconds = (performance.now() - started) / 1000;
    const height = await until('a new block', BLOCK_TIMEOUT_MS, async () => {
      const head = ((await rpc(url, 'Ledger.ChainHead')) as { Height: number }).Height;
      return head > startHeight ? head : undefined;
    });
    const blockSeconds = (performance.now() - started) / 1000;
    console.error(
      `  ${previous ? 'restart' : 'first run'}: RPC ${rpcSeconds.toFixed(2)} s, block at height ${height} ${blockSeconds.toFixed(2)} s`,
    );
    return { rpcSeconds, blockSeconds, height };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function main(): Promise<void> {
  assertBuilt();
  console.error(`ledger devnet startup, block time ${BLOCK_TIME_SECS} s, ${RUNS} runs (proof parameters cached)`);
  const first: Run[] = [];
  const restart: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const repo = mkdtempSync(join(tmpdir(), 'ledger-startup-'));
    try {
      first.push(await measureStart(repo));
      restart.push(await measureStart(repo));
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  }
  const summary = (runs: Run[]) => ({
    rpcSeconds: median(runs.map((r) => r.rpcSeconds)),
    firstBlockSeconds: median(runs.map((r) => r.blockSeconds)),
    runs,
  });
  const result = {
    benchmark: 'startup',
    command: `ledger devnet --api 0 --block-time ${BLOCK_TIME_SECS}`,
    blockTimeSeconds: BLOCK_TIME_SECS,
    targets: { rpcSeconds: 3, firstBlockSeconds: BLOCK_TIME_SECS },
    firstRun: summary(first),
    restart: summary(restart),
  };
  const out = join(root, 'bench', 'results', 'startup.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    JSON.stringify({ firstRun: result.firstRun, restart: result.restart }, (k, v) => (k === 'runs' ? undefined : v)),
  );
  console.error(`wrote ${out}`);
}

await main();
