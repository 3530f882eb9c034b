/**
 * JSON-RPC throughput and latency of a real `ledger daemon` (its own process, a temporary repo) on
 * 127.0.0.1: `Ledger.Version` and `Ledger.WalletList`, each without a token and with the admin
 * token, 10 connections for 10 s per case (autocannon, bounded by time). WalletList without a token
 * measures the permission-denied path. Writes bench/results/rpc.json with requests/s and p50/p99.
 *
 * WebSocket (the node side in this process, the clients in another: bench/rpc-ws-clients.ts):
 * - ChainNotify fan-out: 1,000 subscribers on a server over the chain fixture; for each of 20 heads,
 *   the time from the chain store taking the head to the last subscriber having its message; p50/p99.
 * - ChainHead over WebSocket vs over HTTP POST on a devnet that does not mine: 10 connections, one
 *   call in flight on each, 10 s each; requests/s side by side and their ratio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { startChainServer } from '../test/helpers/chain-server.js';
import { startDevnet } from '../test/helpers/devnet.js';
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

const SUBSCRIBERS = 1000;
const FANOUT_HEADS = 20;
const FANOUT_INTERVAL_MS = 500;
const clientsScript = fileURLToPath(new URL('./rpc-ws-clients.ts', import.meta.url));
/** The same clock in every process (rpc-ws-clients.ts uses it too). */
const now = () => performance.timeOrigin + performance.now();

/** Runs rpc-ws-clients.ts in its own process and returns the JSON line it prints. */
async function runClients(args: readonly string[]): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--import', 'tsx', clientsScript, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`rpc-ws-clients.ts ${args.join(' ')} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** One call over a fresh WebSocket: the answer's result, to check both transports agree. */
async function callOverWebSocket(url: string, method: string): Promise<unknown> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const answer = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }));
  const result = JSON.parse(await answer).result;
  socket.close();
  return result;
}

/**
 * Heads come from the chain fixture (test/helpers/test-chain.ts: a real chain store, tipsets of
 * hand-made blocks), one every FANOUT_INTERVAL_MS, so that what is timed is the RPC's fan-out, not
 * block production; a head's time is taken when the chain store makes it the head.
 */
async function measureFanout(): Promise<Record<string, number>> {
  const server = await startChainServer();
  try {
    const headAt = new Map<number, number>();
    const clients = runClients(['fanout', server.url(), String(SUBSCRIBERS), String(FANOUT_HEADS)]);
    // Heads until the clients have seen enough of them with every subscriber on.
    let done = false;
    clients.finally(() => {
      done = true;
    });
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, FANOUT_INTERVAL_MS));
      const tipSet = await server.t.tipSet(server.t.chain.head(), [{}]);
      headAt.set(Number(tipSet.height), now());
      server.t.chain.addTipSet(tipSet);
      await server.t.chain.settled();
    }
    const { lastByHeight } = (await clients) as { lastByHeight: Record<string, number> };
    const delays = Object.entries(lastByHeight)
      .map(([height, last]) => last - (headAt.get(Number(height)) ?? Number.NaN))
      .filter((delay) => !Number.isNaN(delay))
      .sort((a, b) => a - b);
    if (delays.length < FANOUT_HEADS) throw new Error(`fan-out: only ${delays.length} heads measured`);
    const fanout = {
      subscribers: SUBSCRIBERS,
      heads: delays.length,
      p50Ms: percentile(delays, 50),
      p99Ms: percentile(delays, 99),
      maxMs: delays.at(-1) as number,
    };
    console.error(
      `  ChainNotify fan-out to ${SUBSCRIBERS} WebSocket subscribers over ${delays.length} heads: p50 ${fanout.p50Ms.toFixed(1)} ms, p99 ${fanout.p99Ms.toFixed(1)} ms`,
    );
    return fanout;
  } finally {
    await server.close();
  }
}

async function measureChainHeadTransports(): Promise<RpcMeasurement[]> {
  const devnet = await startDevnet({ mine: false, accounts: 1 });
  try {
    const viaHttp = ((await rpc(devnet.url, 'Ledger.ChainHead', {})) as { result: unknown }).result;
    const viaWs = await callOverWebSocket(devnet.url, 'Ledger.ChainHead');
    if (JSON.stringify(viaHttp) !== JSON.stringify(viaWs))
      throw new Error('ChainHead differs between HTTP and WebSocket');
    const measurements: RpcMeasurement[] = [];
    for (const transport of ['http', 'ws'] as const) {
      const { perSecond } = (await runClients([
        'load',
        devnet.url,
        transport,
        String(CONNECTIONS),
        String(DURATION_SECONDS),
        'Ledger.ChainHead',
      ])) as { perSecond: number };
      const impl = transport === 'ws' ? 'WebSocket' : 'HTTP POST';
      console.error(`  Ledger.ChainHead [${impl}]: ${Math.round(perSecond)} req/s`);
      measurements.push({
        case: 'Ledger.ChainHead',
        impl,
        opsPerSec: perSecond,
        p50Ms: Number.NaN,
        p99Ms: Number.NaN,
        requests: Math.round(perSecond * DURATION_SECONDS),
      });
    }
    return measurements;
  } finally {
    await devnet.stop();
  }
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
    ...(await measureChainHeadTransports()),
  ];
  const fanout = await measureFanout();
  const ops = (method: string, impl: string) =>
    results.find((r) => r.case === method && r.impl === impl)?.opsPerSec ?? Number.NaN;
  report(
    'rpc',
    results,
    {
      'Version: admin token vs no token': ops('Ledger.Version', 'admin token') / ops('Ledger.Version', 'no token'),
      'WalletList vs Version (admin token)':
        ops('Ledger.WalletList', 'admin token') / ops('Ledger.Version', 'admin token'),
      'ChainHead: WebSocket vs HTTP POST': ops('Ledger.ChainHead', 'WebSocket') / ops('Ledger.ChainHead', 'HTTP POST'),
    },
    {
      chainNotifyFanout: fanout,
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
