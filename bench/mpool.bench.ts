/**
 * Message pool throughput over HTTP, ours against Ganache's Filecoin flavor, same load tool
 * (autocannon) and connections:
 *
 * - `MpoolPush` of pre-signed secp256k1 transfers from 100 senders funded in genesis (a `ledger
 *   devnet` daemon in its own process, mining off so nothing leaves the pool; signature checks on):
 *   messages accepted per second. Every answer is checked: an error answer is not "accepted".
 * - `MpoolPushMessage` (the node estimates gas, assigns the nonce and signs) from the same 100
 *   senders, on ours and on Ganache (`ganache@7.9.2` + `@ganache/filecoin@0.9.2`, installed with
 *   `npm install --ignore-scripts` into ~/.cache/ledger-node/ganache and started with
 *   `NODE_BACKEND=js npx ganache filecoin`), with 100 of Ganache's own accounts.
 * - `ChainHead` on both.
 * - `MpoolPending` of the full pool (62,000 messages) on ours: messages listed per second.
 * - Three ceilings for ChainHead, each a bare server in its own process answering every POST with
 *   the bytes our ChainHead answered: a fastify route set up as our server sets it up (the
 *   framework the spec names), Node's `node:http` (what fastify runs on) and uWebSockets (Ganache's
 *   HTTP stack, from its install). They say how much of the ChainHead ratio the HTTP stack alone
 *   decides.
 *
 * Ratios: ours / Ganache per call. Writes bench/results/mpool.json.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { secp256k1 } from '../src/crypto/index.js';
import {
  Address,
  type Message,
  messageSigningBytes,
  SignatureType,
  type SignedMessage,
  setDefaultNetwork,
  signedMessageToLotusJson,
  stringifyJsonLossless,
} from '../src/types/index.js';
import { fromBase64 } from '../src/utils/bytes.js';
import { type Measurement, report } from './harness.js';

const CONNECTIONS = 10;
const DURATION_SECONDS = 10;
const SENDERS = 100;
/**
 * Per sender, nonces 0 … WARMUP_PER_SENDER − 1 are pushed first and not timed: the daemon's code
 * is still being compiled for its first few thousand calls, and a 6-second run measured from a
 * cold start varied by ±10% between runs.
 */
const WARMUP_PER_SENDER = 20;
/** Pre-signed MpoolPush messages timed: per sender, the next MESSAGES_PER_SENDER nonces. */
const MESSAGES_PER_SENDER = 300;
/**
 * A second, labelled MpoolPush figure: the next MESSAGES_PER_SENDER nonces sent as JSON-RPC 2.0
 * batches of this many calls per HTTP request (our server answers batches; the one-call figure
 * above stays the headline).
 */
const PUSH_BATCH = 50;
const GAS_LIMIT = 2_000_000n;
const GANACHE_VERSION = '7.9.2';
const GANACHE_FILECOIN_VERSION = '0.9.2';
const GANACHE_DIR = join(process.env.LEDGER_CACHE_DIR ?? join(homedir(), '.cache', 'ledger-node'), 'ganache');

interface PoolMeasurement extends Measurement {
  requests: number;
  accepted: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  seconds: number;
  note?: string;
}

type Json = Record<string, unknown>;

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The daemon runs from the build (`bin/ledger.js`, as `npm start` and users run it): under tsx's
 * loader the same HTTP server answers about half as many requests.
 */
function assertBuilt(): void {
  const built = join(root, 'dist', 'bundle', 'main.js');
  if (!existsSync(built)) throw new Error('dist/ is missing: run `npm run build:ts` first');
  if (statSync(built).mtimeMs < statSync(join(root, 'src', 'rpc', 'server.ts')).mtimeMs) {
    throw new Error('dist/ is older than src/: run `npm run build:ts` first');
  }
}

function startLedger(repo: string): ChildProcess {
  // LEDGER_BENCH_CPU_PROF=<dir>: write the daemon's CPU profile there (to find where the time goes).
  const profile = process.env.LEDGER_BENCH_CPU_PROF;
  return spawn(
    process.execPath,
    [
      ...(profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`]),
      join(root, 'bin', 'ledger.js'),
      'devnet',
      '--api',
      '0',
      '--accounts',
      String(SENDERS),
      '--no-mine',
    ],
    { env: { ...process.env, LEDGER_PATH: repo }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

function ensureGanache(): string {
  const bin = join(GANACHE_DIR, 'node_modules', '.bin', 'ganache');
  if (!existsSync(bin)) {
    mkdirSync(GANACHE_DIR, { recursive: true });
    if (!existsSync(join(GANACHE_DIR, 'package.json'))) {
      execFileSync('npm', ['init', '-y'], { cwd: GANACHE_DIR, stdio: 'ignore' });
    }
    console.error(
      `installing ganache@${GANACHE_VERSION} and @ganache/filecoin@${GANACHE_FILECOIN_VERSION} into ${GANACHE_DIR}`,
    );
    execFileSync(
      'npm',
      [
        'install',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        `ganache@${GANACHE_VERSION}`,
        `@ganache/filecoin@${GANACHE_FILECOIN_VERSION}`,
      ],
      { cwd: GANACHE_DIR, stdio: 'inherit' },
    );
  }
  return bin;
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startGanache(bin: string, port: number, ipfsPort: number): ChildProcess {
  return spawn(
    bin,
    [
      'filecoin',
      '--server.port',
      String(port),
      '--chain.ipfsPort',
      String(ipfsPort),
      '--wallet.totalAccounts',
      String(SENDERS),
      '--wallet.defaultBalance',
      '1000',
      // Blocks on a timer, as our devnet makes them, rather than one per pushed message.
      '--miner.blockTime',
      '4',
    ],
    { env: { ...process.env, NODE_BACKEND: 'js' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

async function rpc(url: string, method: string, params: unknown[] = [], token?: string): Promise<Json> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }),
  });
  return (await response.json()) as Json;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Runs autocannon: one request body per call from `body` when it is a function, else the same
 * body every time. Accepted calls are counted by `accepted` after the run when given (cheap for the
 * load generator: it then never buffers a response body), else per response (an answer with a
 * `result`; an error answer is not accepted). `amount` bounds the run instead of the duration.
 */
async function load(
  url: string,
  impl: string,
  caseName: string,
  options: {
    token?: string;
    body: string | (() => string);
    amount?: number;
    note?: string;
    accepted?: (result: autocannon.Result) => Promise<number>;
  },
): Promise<PoolMeasurement> {
  let counted = 0;
  let errors = 0;
  let firstError: string | undefined;
  const { body, accepted: countAccepted } = options;
  const onResponse =
    countAccepted === undefined
      ? (_status: number, responseBody: string) => {
          if (responseBody.includes('"result"')) counted++;
          else {
            errors++;
            firstError ??= responseBody.slice(0, 300);
          }
        }
      : undefined;
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    ...(options.amount === undefined ? { duration: DURATION_SECONDS } : { amount: options.amount }),
    // autocannon notices the end of a run only at its sampling tick: with the default 1 s tick, a
    // run of `amount` calls lasted until the next whole second, understating calls per second by
    // up to a seventh (30,000 pushes always measured "7.01 s").
    sampleInt: 10,
    headers: {
      'content-type': 'application/json',
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    ...(typeof body === 'string' && onResponse === undefined
      ? { body }
      : {
          requests: [
            {
              ...(typeof body === 'string' ? { body } : { setupRequest: (request) => ({ ...request, body: body() }) }),
              ...(onResponse === undefined ? {} : { onResponse }),
            },
          ],
        }),
  });
  const accepted = countAccepted === undefined ? counted : await countAccepted(result);
  const seconds = result.duration;
  if (firstError !== undefined) console.error(`  ${caseName} [${impl}] first error: ${firstError}`);
  const measurement: PoolMeasurement = {
    case: caseName,
    impl,
    opsPerSec: accepted / seconds,
    requests: result.requests.total,
    accepted,
    errors: errors + result.errors + result.timeouts + result.non2xx,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    seconds: Number(seconds.toFixed(2)),
    ...(options.note === undefined ? {} : { note: options.note }),
  };
  console.error(
    `  ${caseName} [${impl}]: ${Math.round(measurement.opsPerSec)} accepted/s (${accepted}/${measurement.requests}, ${measurement.errors} errors), p50 ${measurement.p50Ms} ms, p99 ${measurement.p99Ms} ms`,
  );
  return measurement;
}

const CHAIN_HEAD_BODY = JSON.stringify({ jsonrpc: '2.0', method: 'Filecoin.ChainHead', params: [], id: 1 });

/** ChainHead under load: checked to answer a tipset first, then every 2xx answer counts. */
async function chainHead(url: string, impl: string): Promise<PoolMeasurement> {
  const head = (await rpc(url, 'Filecoin.ChainHead')).result as { Cids?: unknown[] } | undefined;
  if (!Array.isArray(head?.Cids)) throw new Error(`ChainHead [${impl}] did not answer a tipset`);
  return load(url, impl, 'ChainHead', { body: CHAIN_HEAD_BODY, accepted: async (result) => result['2xx'] });
}

/** MpoolPushMessage bodies cycling over the senders: a 1 attoFIL transfer, gas left to the node. */
function pushMessageBodies(senders: readonly string[], to: string): () => string {
  let i = 0;
  return () => {
    const from = senders[i++ % senders.length] as string;
    const message = {
      Version: 0,
      To: to,
      From: from,
      Nonce: 0,
      Value: '1',
      GasLimit: 0,
      GasFeeCap: '0',
      GasPremium: '0',
      Method: 0,
      Params: '',
    };
    return JSON.stringify({ jsonrpc: '2.0', method: 'Filecoin.MpoolPushMessage', params: [message, null], id: i });
  };
}

/** Pre-signs `count` transfers per sender from `firstNonce`; ordered so a sender's next nonce is 100 requests later. */
function preSign(
  keys: readonly { address: Address; privateKey: Uint8Array }[],
  to: Address,
  baseFee: bigint,
  firstNonce: number,
  count: number,
): string[] {
  const bodies: string[] = [];
  for (let nonce = BigInt(firstNonce); nonce < BigInt(firstNonce + count); nonce++) {
    for (const key of keys) {
      const message: Message = {
        to,
        from: key.address,
        nonce,
        value: 1n,
        gasLimit: GAS_LIMIT,
        gasFeeCap: baseFee * 4n,
        gasPremium: 100_000n,
        method: 0n,
        params: new Uint8Array(0),
      };
      const signed: SignedMessage = {
        message,
        signature: {
          type: SignatureType.Secp256k1,
          data: secp256k1.sign(key.privateKey, messageSigningBytes(message)),
        },
      };
      bodies.push(
        stringifyJsonLossless({
          jsonrpc: '2.0',
          method: 'Filecoin.MpoolPush',
          params: [signedMessageToLotusJson(signed)],
          id: bodies.length + 1,
        }),
      );
    }
  }
  return bodies;
}

/**
 * A bare server in its own process (`script`, given BODY and printing its port) answering every
 * POST with the same bytes: what an HTTP stack costs with no JSON-RPC behind it.
 */
async function bareServer(script: string, impl: string, responseBody: string): Promise<PoolMeasurement> {
  const server = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, BODY: responseBody },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      server.stdout?.once('data', (data) => resolve(String(data).trim()));
      server.once('exit', (code) => reject(new Error(`${impl} exited with code ${code}`)));
    });
    return await load(`http://127.0.0.1:${port}/rpc/v1`, impl, 'ChainHead', {
      body: CHAIN_HEAD_BODY,
      accepted: async (result) => result['2xx'],
    });
  } finally {
    server.kill('SIGTERM');
    if (server.exitCode === null) await new Promise((r) => server.once('close', r));
  }
}

const FASTIFY_CEILING = 'fastify, fixed body (ceiling)';
const NODE_HTTP_CEILING = 'node:http, fixed body (ceiling)';
const UWS_CEILING = 'uWebSockets, fixed body (ceiling)';

/** The ceiling of fastify: one route, the body read as a string as our server reads it, no JSON-RPC. */
function bareFastify(responseBody: string): Promise<PoolMeasurement> {
  const script = `
    const app = require(${JSON.stringify(join(root, 'node_modules', 'fastify'))})({ logger: false });
    const body = process.env.BODY;
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, (_r, b, done) => done(null, b));
    app.post('/rpc/v1', (_request, reply) => reply.code(200).type('application/json').send(body));
    app.listen({ host: '127.0.0.1', port: 0 }).then(() => process.stdout.write(app.server.address().port + '\\n'));`;
  return bareServer(script, FASTIFY_CEILING, responseBody);
}

/** The ceiling of Node's own HTTP stack, on which fastify and our server run. */
function bareNodeHttp(responseBody: string): Promise<PoolMeasurement> {
  const script = `
    const body = Buffer.from(process.env.BODY);
    require('node:http').createServer((req, res) => {
      req.resume();
      req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); });
    }).listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });`;
  return bareServer(script, NODE_HTTP_CEILING, responseBody);
}

/** The ceiling of uWebSockets (C++), the HTTP stack Ganache serves with, from Ganache's install. */
function bareUws(responseBody: string): Promise<PoolMeasurement> {
  const uws = join(GANACHE_DIR, 'node_modules', '@trufflesuite', 'uws-js-unofficial');
  const script = `
    const uws = require(${JSON.stringify(uws)});
    const body = Buffer.from(process.env.BODY);
    uws.App().post('/*', (res) => {
      res.onAborted(() => {});
      res.onData((_chunk, last) => {
        if (last) res.cork(() => { res.writeHeader('content-type', 'application/json'); res.end(body); });
      });
    }).listen('127.0.0.1', 0, (socket) => process.stdout.write(uws.us_socket_local_port(socket) + '\\n'));`;
  return bareServer(script, UWS_CEILING, responseBody);
}

async function listPending(url: string): Promise<PoolMeasurement> {
  const calls = 5;
  let listed = 0;
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    listed += ((await rpc(url, 'Filecoin.MpoolPending', [null])).result as unknown[]).length;
  }
  const seconds = (performance.now() - started) / 1000;
  const measurement: PoolMeasurement = {
    case: `MpoolPending (${listed / calls} pooled messages)`,
    impl: 'ledger',
    opsPerSec: listed / seconds,
    requests: calls,
    accepted: listed,
    errors: 0,
    p50Ms: Math.round((seconds * 1000) / calls),
    p99Ms: Math.round((seconds * 1000) / calls),
    seconds: Number(seconds.toFixed(2)),
    note: 'messages listed per second; p50Ms is the mean time of one call, its answer parsed by the client',
  };
  console.error(`  ${measurement.case} [ledger]: ${measurement.p50Ms} ms per call`);
  return measurement;
}

/** Our ChainHead answer, which the bare servers send back. */
let ourChainHeadAnswer = '';

async function benchLedger(): Promise<PoolMeasurement[]> {
  const repo = mkdtempSync(join(tmpdir(), 'ledger-bench-mpool-'));
  const daemon = startLedger(repo);
  try {
    const address = await waitFor('the ledger devnet api file', async () =>
      existsSync(join(repo, 'api')) ? readFileSync(join(repo, 'api'), 'utf8').trim() : undefined,
    );
    const url = `http://127.0.0.1:${address.split('/')[4]}/rpc/v1`;
    const token = readFileSync(join(repo, 'token'), 'utf8').trim();
    await waitFor(
      'ChainHead',
      async () => ((await rpc(url, 'Filecoin.ChainHead')).result as Json | undefined) ?? undefined,
    );
    setDefaultNetwork('t');
    const devnet = JSON.parse(readFileSync(join(repo, 'devnet.json'), 'utf8')) as { Accounts: string[] };
    const senders = devnet.Accounts;
    if (senders.length !== SENDERS) throw new Error(`the devnet has ${senders.length} accounts, not ${SENDERS}`);
    const keys = await Promise.all(
      senders.map(async (sender) => {
        const exported = (await rpc(url, 'Filecoin.WalletExport', [sender], token)).result as { PrivateKey: string };
        const privateKey = fromBase64(exported.PrivateKey);
        const address = Address.newSecp256k1(secp256k1.publicKey(privateKey));
        if (address.toString('t') !== sender) throw new Error(`exported key of ${sender} gives ${address}`);
        return { address, privateKey };
      }),
    );
    const head = (await rpc(url, 'Filecoin.ChainHead')).result as { Blocks: { ParentBaseFee: string }[] };
    const baseFee = BigInt(head.Blocks[0]?.ParentBaseFee ?? '100');
    const recipient = keys[0]?.address as Address;
    console.error(`pre-signing ${SENDERS * (WARMUP_PER_SENDER + 2 * MESSAGES_PER_SENDER)} secp256k1 transfers…`);
    const warmup = preSign(keys, recipient, baseFee, 0, WARMUP_PER_SENDER);
    const bodies = preSign(keys, recipient, baseFee, WARMUP_PER_SENDER, MESSAGES_PER_SENDER);
    // Accepted = what the pool holds afterwards (mining is off, so nothing leaves it).
    const pooled = async () => ((await rpc(url, 'Filecoin.MpoolPending', [null])).result as unknown[]).length;
    let nextWarmup = 0;
    await load(url, 'ledger', 'MpoolPush warm-up (not reported)', {
      token,
      amount: warmup.length,
      body: () => warmup[nextWarmup++] as string,
      accepted: pooled,
    });
    const warmedUp = await pooled();
    let next = 0;
    const results: PoolMeasurement[] = [];
    results.push(
      await load(url, 'ledger', 'MpoolPush (pre-signed secp256k1, 100 senders)', {
        token,
        amount: bodies.length,
        body: () => bodies[next++ % bodies.length] as string,
        accepted: async () => (await pooled()) - warmedUp,
      }),
    );
    const batchedCalls = preSign(
      keys,
      recipient,
      baseFee,
      WARMUP_PER_SENDER + MESSAGES_PER_SENDER,
      MESSAGES_PER_SENDER,
    );
    const batches: string[] = [];
    for (let i = 0; i < batchedCalls.length; i += PUSH_BATCH) {
      batches.push(`[${batchedCalls.slice(i, i + PUSH_BATCH).join(',')}]`);
    }
    const pooledBefore = await pooled();
    let nextBatch = 0;
    results.push(
      await load(
        url,
        'ledger',
        `MpoolPush batched (${PUSH_BATCH} calls per HTTP request; pre-signed secp256k1, 100 senders)`,
        {
          token,
          amount: batches.length,
          body: () => batches[nextBatch++ % batches.length] as string,
          accepted: async () => (await pooled()) - pooledBefore,
          note: `messages accepted per second, sent as JSON-RPC 2.0 batches of ${PUSH_BATCH}; not the one-call-per-request figure`,
        },
      ),
    );
    results.push(await listPending(url));
    results.push(await chainHead(url, 'ledger'));
    const headAnswer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: CHAIN_HEAD_BODY,
    });
    ourChainHeadAnswer = await headAnswer.text();
    results.push(await bareFastify(ourChainHeadAnswer));
    results.push(await bareNodeHttp(ourChainHeadAnswer));
    results.push(
      await load(url, 'ledger', 'MpoolPushMessage (gas estimated, 100 senders)', {
        token,
        body: pushMessageBodies(senders, recipient.toString('t')),
      }),
    );
    return results;
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('close', r));
    rmSync(repo, { recursive: true, force: true });
  }
}

async function benchGanache(): Promise<PoolMeasurement[]> {
  const bin = ensureGanache();
  const port = await freePort();
  const ipfsPort = await freePort();
  const ganache = startGanache(bin, port, ipfsPort);
  const results: PoolMeasurement[] = [];
  try {
    const url = `http://127.0.0.1:${port}/rpc/v0`;
    await waitFor(
      'Ganache ChainHead',
      async () => ((await rpc(url, 'Filecoin.ChainHead')).result as Json | undefined) ?? undefined,
    );
    const accounts = (await rpc(url, 'Filecoin.WalletList')).result as string[];
    if (accounts.length < SENDERS) throw new Error(`Ganache has ${accounts.length} accounts, not ${SENDERS}`);
    const senders = accounts.slice(0, SENDERS);
    results.push(await chainHead(url, 'ganache'));
    results.push(
      await load(url, 'ganache', 'MpoolPushMessage (gas estimated, 100 senders)', {
        body: pushMessageBodies(senders, senders[0] as string),
        note: 'Ganache signs with BLS keys of its own wallet; ours with secp256k1 wallet keys',
      }),
    );
  } finally {
    ganache.kill('SIGTERM');
    await new Promise((r) => ganache.once('close', r));
  }
  results.push(await bareUws(ourChainHeadAnswer));
  return results;
}

assertBuilt();
const ours = await benchLedger();
let theirs: PoolMeasurement[] = [];
let ganacheError: string | undefined;
try {
  if (process.env.LEDGER_BENCH_SKIP_GANACHE === '1') throw new Error('skipped (LEDGER_BENCH_SKIP_GANACHE=1)');
  theirs = await benchGanache();
} catch (error) {
  ganacheError = (error as Error).message;
  console.error(`Ganache could not be measured: ${ganacheError}`);
}
const all = [...ours, ...theirs];
const ops = (caseName: string, impl: string) =>
  all.find((r) => r.case === caseName && r.impl === impl)?.opsPerSec ?? Number.NaN;
const ratios: Record<string, number> = {
  'ChainHead: ledger / ganache': ops('ChainHead', 'ledger') / ops('ChainHead', 'ganache'),
  'ChainHead: bare fastify ceiling / ganache': ops('ChainHead', FASTIFY_CEILING) / ops('ChainHead', 'ganache'),
  'ChainHead: bare node:http ceiling / ganache': ops('ChainHead', NODE_HTTP_CEILING) / ops('ChainHead', 'ganache'),
  'ChainHead: bare uWebSockets ceiling / ganache': ops('ChainHead', UWS_CEILING) / ops('ChainHead', 'ganache'),
  'ChainHead: ledger / bare fastify ceiling': ops('ChainHead', 'ledger') / ops('ChainHead', FASTIFY_CEILING),
  'ChainHead: ledger / bare node:http ceiling': ops('ChainHead', 'ledger') / ops('ChainHead', NODE_HTTP_CEILING),
  'MpoolPushMessage: ledger / ganache':
    ops('MpoolPushMessage (gas estimated, 100 senders)', 'ledger') /
    ops('MpoolPushMessage (gas estimated, 100 senders)', 'ganache'),
};
report('mpool', all, ratios, {
  setup: {
    connections: CONNECTIONS,
    durationSeconds: DURATION_SECONDS,
    senders: SENDERS,
    preSignedMessages: SENDERS * MESSAGES_PER_SENDER,
    warmupMessages: SENDERS * WARMUP_PER_SENDER,
    ganache: `ganache@${GANACHE_VERSION} + @ganache/filecoin@${GANACHE_FILECOIN_VERSION} (NODE_BACKEND=js, --miner.blockTime 4)`,
    host: '127.0.0.1',
    // The machine is shared: its 1-minute load average at the end of the run says how much.
    loadAverage1m: Number(loadavg()[0]?.toFixed(2)),
  },
  targets: { mpoolPushPerSec: 5000, chainHeadVsGanache: 1.5 },
  ...(ganacheError === undefined ? {} : { ganacheError }),
});
