/**
 * JSON-RPC throughput and latency of a real `ledger daemon` (its own process, a temporary repo) on
 * 127.0.0.1: `Ledger.Version` and `Ledger.WalletList`, each without a token and with the admin
 * token, 10 connections for 10 s per case (autocannon, bounded by time). WalletList without a token
 * measures the permission-denied path. Writes bench/results/rpc.json with requests/s and p50/p99.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { type Measurement, report } from './harness.js';

const CONNECTIONS = 10;
const DURATION_SECONDS = 10;
const WALLET_KEYS = 10;

interface RpcMeasurement extends Measurement {
  p50Ms: number;
  p99Ms: number;
  requests: number;
}

const mainModule = pathToFileURL(fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))).href;

function startDaemon(repo: string): ChildProcess {
  // The CLI from source through tsx, so the benchmark needs no build step.
  const script = `import { main } from ${JSON.stringify(mainModule)}; await main(['node', 'ledger', ...process.argv.slice(1)]);`;
  return spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script, 'daemon', '--api', '0', '--network', 'devnet'],
    { env: { ...process.env, LEDGER_PATH: repo }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

async function waitForFile(path: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`the daemon did not write ${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return readFileSync(path, 'utf8').trim();
}

async function rpc(
  url: string,
  method: string,
  headers: Record<string, string>,
  params: unknown[] = [],
): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }),
  });
  return response.json();
}

async function measureCase(
  url: string,
  method: string,
  impl: string,
  headers: Record<string, string>,
  check: (response: unknown) => boolean,
): Promise<RpcMeasurement> {
  const expected = await rpc(url, method, headers);
  if (!check(expected)) throw new Error(`${method} [${impl}] answered ${JSON.stringify(expected)}`);
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', method, params: [], id: 1 }),
  });
  if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0) {
    throw new Error(
      `${method} [${impl}]: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`,
    );
  }
  const measurement = {
    case: method,
    impl,
    opsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
  };
  console.error(
    `  ${method} [${impl}]: ${Math.round(measurement.opsPerSec)} req/s, p50 ${measurement.p50Ms} ms, p99 ${measurement.p99Ms} ms`,
  );
  return measurement;
}

const repo = mkdtempSync(join(tmpdir(), 'ledger-bench-rpc-'));
const daemon = startDaemon(repo);
try {
  const address = await waitForFile(join(repo, 'api'));
  const port = address.split('/')[4];
  const url = `http://127.0.0.1:${port}/rpc/v1`;
  const admin = { authorization: `Bearer ${readFileSync(join(repo, 'token'), 'utf8').trim()}` };
  for (let i = 0; i < WALLET_KEYS; i++) await rpc(url, 'Ledger.WalletNew', admin, ['secp256k1']);

  const isVersion = (r: unknown) => (r as { result?: { Agent?: string } }).result?.Agent === 'ledger';
  const isKeyList = (r: unknown) => (r as { result?: unknown[] }).result?.length === WALLET_KEYS;
  const isDenied = (r: unknown) => (r as { error?: { code?: number } }).error?.code === 1;
  const results = [
    await measureCase(url, 'Ledger.Version', 'no token', {}, isVersion),
    await measureCase(url, 'Ledger.Version', 'admin token', admin, isVersion),
    await measureCase(url, 'Ledger.WalletList', 'admin token', admin, isKeyList),
    await measureCase(url, 'Ledger.WalletList', 'no token (denied)', {}, isDenied),
  ];
  const ops = (method: string, impl: string) =>
    results.find((r) => r.case === method && r.impl === impl)?.opsPerSec ?? Number.NaN;
  report(
    'rpc',
    results,
    {
      'Version: admin token vs no token': ops('Ledger.Version', 'admin token') / ops('Ledger.Version', 'no token'),
      'WalletList vs Version (admin token)':
        ops('Ledger.WalletList', 'admin token') / ops('Ledger.Version', 'admin token'),
    },
    {
      setup: {
        connections: CONNECTIONS,
        durationSeconds: DURATION_SECONDS,
        walletKeys: WALLET_KEYS,
        host: '127.0.0.1',
      },
    },
  );
} finally {
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.once('close', r));
  rmSync(repo, { recursive: true, force: true });
}
