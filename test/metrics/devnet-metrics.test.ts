/**
 * The operations routes of a running devnet (in process, real proofs, 4 s epochs): the metrics
 * follow the chain as it grows, count the calls made to the node and the block validations and
 * winning PoSts of its mining; livez and readyz answer 200 on a node that mines and serves.
 */
import { type Devnet, startDevnet } from '../helpers/devnet.js';
import { scrape } from '../helpers/prometheus.js';

let devnet: Devnet;
let base: string;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 4000, accounts: 1 });
  base = new URL(devnet.url).origin;
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
});

test('the head height in /debug/metrics moves with the chain', async () => {
  await devnet.waitForHeight(1);
  const first = await scrape(`${base}/debug/metrics`);
  const firstHeight = first.value('lotus_chain_node_height');
  expect(firstHeight).toBeGreaterThanOrEqual(1);
  // The head may move between the scrape and this read, never backwards.
  expect(Number(devnet.node.chain?.chain.head().height)).toBeGreaterThanOrEqual(firstHeight);

  await devnet.waitForHeight(firstHeight + 2);
  const second = await scrape(`${base}/debug/metrics`);
  expect(second.value('lotus_chain_node_height')).toBeGreaterThanOrEqual(firstHeight + 2);
  // The expected epoch is the clock's (4 s epochs since genesis), the lag the distance to the head.
  const genesis = Number(devnet.node.chain?.chain.genesis.timestamp);
  const clockEpoch = Math.floor((Date.now() / 1000 - genesis) / 4);
  expect(Math.abs(second.value('lotus_chain_node_height_expected') - clockEpoch)).toBeLessThanOrEqual(1);
  expect(second.value('ledger_chain_epoch_lag')).toBe(
    second.value('lotus_chain_node_height_expected') - second.value('lotus_chain_node_height'),
  );
  expect(second.value('lotus_mpool_message_count')).toBe(0);
  // The devnet runs libp2p, alone: no peers, nothing to sync toward.
  expect(second.value('lotus_peer_count')).toBe(0);
  expect(second.value('ledger_sync_synced')).toBe(1);
  expect(second.value('ledger_database_size_bytes')).toBeGreaterThan(0);
  // New heads mean new blocks (under load some rounds go null, so fewer than the epochs): each went through
  // the validator and carries a winning PoSt this node generated.
  const grew = (name: string, labels: Record<string, string> = {}) =>
    second.total(name, labels) - first.total(name, labels);
  expect(grew('lotus_block_success')).toBeGreaterThanOrEqual(1);
  expect(grew('lotus_block_validation_ms_count')).toBe(grew('lotus_block_success'));
  expect(
    grew('ledger_proof_duration_seconds_count', { proof: 'winning_post', operation: 'generate' }),
  ).toBeGreaterThanOrEqual(1);
}, 120_000);

test('the request counters move after calls', async () => {
  const before = await scrape(`${base}/debug/metrics`);
  const series = { endpoint: 'ChainHead', outcome: 'ok' };
  const calls = (at: typeof before) => at.sample('ledger_api_requests_total', series) ?? 0;
  await devnet.rpc('ChainHead');
  await devnet.rpc('ChainHead', [], 'none');
  await devnet.rpc('ChainHead', [], 'read');
  const after = await scrape(`${base}/debug/metrics`);
  expect(calls(after) - calls(before)).toBe(3);
});

test('livez and readyz answer 200 on a devnet that mines and serves', async () => {
  for (const path of ['/health/livez', '/health/readyz']) {
    const response = await fetch(`${base}${path}`);
    expect({ path, status: response.status, body: await response.text() }).toEqual({ path, status: 200, body: 'ok\n' });
  }
});
