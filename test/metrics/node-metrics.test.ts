/**
 * The node's metrics and health below the network: a real chain store (SQLite on disk), a real RPC
 * server carrying the operations routes and the call observer, the real block validator and a
 * real proof call reporting to the metrics, and a clock the test moves. What a scrape says is read
 * back through a Prometheus text parser.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { LocalBeacon } from '../../src/beacon/index.js';
import { BlockErrorCode, BlockValidator } from '../../src/consensus/index.js';
import { LIVENESS_WINDOW_MS, NodeHealth, NodeMetrics, operationsRoutes } from '../../src/metrics/index.js';
import { ensureParameters, verifyWinningPost } from '../../src/proofs/index.js';
import { generateJwtSecret, type RpcContext, RpcServer, TokenAuthority } from '../../src/rpc/index.js';
import { type FullBlock, setDefaultNetwork } from '../../src/types/index.js';
import { Keystore, Wallet } from '../../src/wallet/index.js';
import { GENESIS_TIMESTAMP, PARAMS } from '../helpers/genesis.js';
import { Scrape, scrape } from '../helpers/prometheus.js';
import { TestChain } from '../helpers/test-chain.js';

const BLOCK_DELAY_SECS = Number(PARAMS.blockDelaySecs);
/** Unix milliseconds at the start of `epoch`, on the test chain's clock. */
const epochTime = (epoch: number) => (Number(GENESIS_TIMESTAMP) + epoch * BLOCK_DELAY_SECS) * 1000;

let chain: TestChain;
let directory: string;
let metrics: NodeMetrics;
let health: NodeHealth;
let server: RpcServer;
let base: string;
let now = epochTime(10);
const clock = () => now;

beforeAll(async () => {
  setDefaultNetwork('t');
  chain = TestChain.create({ onDisk: true });
  directory = mkdtempSync(join(tmpdir(), 'ledger-metrics-'));
  metrics = new NodeMetrics({ version: '0.1.0+devnet', network: 'devnet', clock });
  metrics.watch({ chain: chain.chain, blockDelaySecs: BLOCK_DELAY_SECS, databasePath: chain.databasePath });
  health = new NodeHealth({ chain: chain.chain, blockDelaySecs: BLOCK_DELAY_SECS, clock });
  const context: RpcContext = {
    node: { version: '0.1.0+devnet', blockDelaySecs: BLOCK_DELAY_SECS } as RpcContext['node'],
    wallet: new Wallet(new Keystore(join(directory, 'keystore'))),
    tokens: new TokenAuthority(generateJwtSecret()),
  };
  server = await RpcServer.start({
    context,
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    callObserver: metrics.rpcCall,
    plainRoutes: operationsRoutes(metrics, health),
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
  health?.close();
  metrics?.close();
  chain?.close();
  chain?.remove();
  rmSync(directory, { recursive: true, force: true });
  setDefaultNetwork('f');
});

async function call(method: string, token?: string): Promise<unknown> {
  const response = await fetch(`${base}/rpc/v1`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: method.endsWith('WalletNew') ? ['secp256k1'] : [] }),
  });
  return response.json();
}

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const response = await fetch(`${base}${path}`, { headers });
  return { status: response.status, body: await response.text() };
}

describe('/debug/metrics', () => {
  test('is Prometheus text a parser reads, with the content type Prometheus expects', async () => {
    const response = await fetch(`${base}/debug/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const parsed = new Scrape(await response.text());
    expect(parsed.family('lotus_chain_node_height').type).toBe('GAUGE');
    expect(parsed.family('ledger_api_requests_total').type).toBe('COUNTER');
    expect(parsed.family('lotus_api_request_duration_ms').type).toBe('HISTOGRAM');
    expect(parsed.value('lotus_info', { version: '0.1.0+devnet', node_type: 'full', network: 'devnet' })).toBe(1);
    // The Node.js process metrics, on this node's own registry.
    expect(parsed.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(parsed.value('ledger_database_size_bytes')).toBeGreaterThan(0);
  });

  test('reports the head, the epoch the clock expects and the lag, read at each scrape', async () => {
    const before = await scrape(`${base}/debug/metrics`);
    expect(before.value('lotus_chain_node_height')).toBe(0);
    expect(before.value('lotus_chain_node_height_expected')).toBe(10);
    expect(before.value('ledger_chain_epoch_lag')).toBe(10);

    await chain.mine();
    await chain.mine();
    now = epochTime(11) + 500;
    const after = await scrape(`${base}/debug/metrics`);
    expect(after.value('lotus_chain_node_height')).toBe(2);
    expect(after.value('lotus_chain_node_height_expected')).toBe(11);
    expect(after.value('ledger_chain_epoch_lag')).toBe(9);
  });

  test('counts calls by method and outcome and times them, under the declared name whatever the namespace', async () => {
    const before = await scrape(`${base}/debug/metrics`);
    expect(before.sample('ledger_api_requests_total', { endpoint: 'Version' })).toBeUndefined();

    await call('Ledger.Version');
    await call('Filecoin.Version');
    await call('Ledger.NoSuchMethod');
    await call('Filecoin.AnotherMadeUpName');
    await call('Ledger.WalletNew'); // no token: refused (needs write)

    const after = await scrape(`${base}/debug/metrics`);
    expect(after.value('ledger_api_requests_total', { endpoint: 'Version', outcome: 'ok' })).toBe(2);
    expect(after.sample('ledger_api_requests_total', { endpoint: 'Version', outcome: 'error' })).toBeUndefined();
    expect(after.value('ledger_api_requests_total', { endpoint: 'WalletNew', outcome: 'error' })).toBe(1);
    // Made-up names share one series: clients cannot grow the scrape by inventing methods.
    expect(after.value('ledger_api_requests_total', { endpoint: 'unknown', outcome: 'error' })).toBe(2);
    expect(after.value('lotus_api_request_duration_ms_count', { endpoint: 'Version' })).toBe(2);
    expect(after.value('lotus_api_request_duration_ms_sum', { endpoint: 'Version' })).toBeGreaterThan(0);
    expect(after.value('lotus_api_request_duration_ms_bucket', { endpoint: 'Version', le: '+Inf' })).toBe(2);
  });

  test('needs no token, and a token the API refuses does not stop it (as Lotus)', async () => {
    const stale = { authorization: 'Bearer not.a.token' };
    expect((await get('/debug/metrics', stale)).status).toBe(200);
    expect((await get('/health/livez', stale)).status).toBe(200);
    const api = await fetch(`${base}/rpc/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...stale },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Ledger.Version', params: [] }),
    });
    expect(api.status).toBe(401);
  });

  test('times block validations and counts the invalid ones by their first failed check', async () => {
    const validator = new BlockValidator({
      chain: chain.chain,
      states: chain.states,
      beacon: LocalBeacon.fromSeed(new TextEncoder().encode('metrics-test'), GENESIS_TIMESTAMP, PARAMS.blockDelaySecs),
      params: PARAMS,
      onValidated: metrics.blockValidated,
    });
    // The test chain's blocks are unsigned: the validator refuses them as malformed.
    const head = chain.chain.head();
    const header = head.blocks[0];
    if (header === undefined) throw new Error('the head has no block');
    const { blsMessages, secpMessages } = chain.chain.blockMessages(header);
    const block: FullBlock = { header, blsMessages: [...blsMessages], secpkMessages: [...secpMessages] };
    await expect(validator.validateBlock(block)).rejects.toThrow('block has no signature');

    const after = await scrape(`${base}/debug/metrics`);
    expect(after.value('lotus_block_failure', { failure_type: BlockErrorCode.Malformed })).toBe(1);
    expect(after.value('lotus_block_success')).toBe(0);
    expect(after.value('lotus_block_validation_ms_count')).toBe(1);
  });

  test('times the proofs the process runs', async () => {
    await ensureParameters();
    const request = {
      minerId: 1000n,
      randomness: new Uint8Array(32),
      sectors: [{ sectorNumber: 0n, commR: new Uint8Array(32) }],
    };
    expect(await verifyWinningPost(request, new Uint8Array(192)).catch(() => false)).toBe(false);
    const after = await scrape(`${base}/debug/metrics`);
    expect(after.total('ledger_proof_duration_seconds_count', { proof: 'winning_post', operation: 'verify' })).toBe(1);
  }, 120_000);
});

describe('/health', () => {
  test('readyz is 503 while the head is 5 epochs or more behind the clock, 200 once it is closer', async () => {
    now = epochTime(7) + 100; // the head is at epoch 2
    const behind = await get('/health/readyz');
    expect(behind).toEqual({ status: 503, body: 'not synced: the head (epoch 2) is 5 epochs old\n' });
    await chain.mine();
    expect(await get('/health/readyz')).toEqual({ status: 200, body: 'ok\n' });
  });

  test('livez is 200 while heads arrive and 503 after five minutes without one', async () => {
    expect(await get('/health/livez')).toEqual({ status: 200, body: 'ok\n' });
    now += LIVENESS_WINDOW_MS - 1;
    expect((await get('/health/livez')).status).toBe(200);
    now += 1;
    expect(await get('/health/livez')).toEqual({ status: 503, body: 'no new head for 300 s\n' });
    await chain.mine();
    expect(await get('/health/livez')).toEqual({ status: 200, body: 'ok\n' });
  });

  test('HEAD answers as GET does, without a body', async () => {
    const response = await fetch(`${base}/health/livez`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });
});

describe('NodeHealth', () => {
  test('is not ready while the sync manager says a sync is under way, even with a recent head', () => {
    let synced = false;
    const syncing = new NodeHealth({
      chain: chain.chain,
      blockDelaySecs: BLOCK_DELAY_SECS,
      sync: { isSynced: () => synced },
      clock: () => epochTime(Number(chain.chain.head().height)),
    });
    try {
      expect(syncing.ready()).toEqual({ ok: false, reason: 'syncing' });
      synced = true;
      expect(syncing.ready()).toEqual({ ok: true, reason: 'ok' });
    } finally {
      syncing.close();
    }
  });

  test('a node without a chain is live (it serves) but never ready', () => {
    const chainless = new NodeHealth({ blockDelaySecs: BLOCK_DELAY_SECS });
    expect(chainless.live()).toEqual({ ok: true, reason: 'ok' });
    expect(chainless.ready()).toEqual({ ok: false, reason: 'this node has no chain' });
  });
});
