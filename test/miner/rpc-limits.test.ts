/**
 * Input-proportional work on a real devnet node (docs/rpc-limits.md): MinerGetBaseInfo refuses
 * rounds whose beacon entries are not due (Lotus would wait on drand, which refuses them), the
 * beacon loop stops when its call is aborted, GasEstimateFeeCap refuses queue lengths past what
 * Lotus's arithmetic can answer, and stopping the node ends a long call instead of waiting for it.
 */
import { beaconForEpoch } from '../../src/beacon/index.js';
import { beaconEntriesForBlock, chainClockOf } from '../../src/consensus/index.js';
import { checkBaseInfoRound, MAX_BASE_INFO_EPOCHS_AFTER_BASE, type MinerContext } from '../../src/miner/index.js';
import { maxFeeCapQueueBlocks } from '../../src/mpool/gas-estimate.js';
import { JsonRpcError, RpcClient } from '../../src/rpc/index.js';
import { messageToLotusJson, type TipSetJson } from '../../src/types/index.js';
import { AbortedError } from '../../src/utils/abort.js';
import { answerStartMs } from '../helpers/answer-time.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';
import { message } from '../helpers/messages.js';

const SETUP_TIMEOUT_MS = 10 * 60_000;
let devnet: Devnet;
let genesis: TipSetJson;

beforeAll(async () => {
  devnet = await startDevnet({ mine: false, blockTimeMs: 4000, accounts: 2 });
  genesis = await devnet.rpc<TipSetJson>('ChainHead');
}, SETUP_TIMEOUT_MS);
afterAll(() => devnet?.stop());

function minerContext(): MinerContext {
  const services = devnet.node.chain!;
  return {
    chain: services.chain,
    states: services.states,
    beacon: services.beacon,
    params: services.params,
    sectorDirectory: services.devnet.sectorDirectory,
  };
}

/** POSTs one anonymous call, giving up after `timeoutMs` (the old code never answered some). */
async function anonymous(method: string, params: unknown[], timeoutMs = 5000) {
  const response = await fetch(devnet.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: `Ledger.${method}`, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

describe('MinerGetBaseInfo', () => {
  test('a round far ahead of the beacon is refused in milliseconds, and the node keeps answering', async () => {
    const started = performance.now();
    const reply = await anonymous('MinerGetBaseInfo', ['t01000', 1_000_000_000_000, genesis.Cids]);
    expect(performance.now() - started).toBeLessThan(500);
    expect(reply.error?.code).toBe(1);
    expect(reply.error?.message).toMatch(
      /^cannot serve round 1000000000000 on the tipset at 0: it needs beacon round 1000000000000, due in \d+ s, and the beacon has reached round \d+: ask again when the round is due$/,
    );
    const ahead = await anonymous('MinerGetBaseInfo', ['t01000', 100, genesis.Cids]);
    expect(ahead.error?.message).toContain('it needs beacon round 100, due in ');
    // The round due now is served, as before.
    const info = (await anonymous('MinerGetBaseInfo', ['t01000', 1, genesis.Cids])).result as Record<string, unknown>;
    expect(info.BeaconEntries).toHaveLength(1);
  });

  test('the checks follow the clock: one beacon round ahead is served (drand waits for it), two are not', () => {
    const ctx = minerContext();
    const base = ctx.chain.genesis;
    const { network } = beaconForEpoch(ctx.beacon, 0n);
    const clock = chainClockOf(ctx.chain, ctx.params);
    // At the genesis time: beacon round 1 is out; epoch 2 needs round 2 (next), epoch 3 round 3.
    const atGenesisMs = Number(network.genesisTime) * 1000;
    expect(() => checkBaseInfoRound(ctx, 2n, base, atGenesisMs)).not.toThrow();
    expect(() => checkBaseInfoRound(ctx, 3n, base, atGenesisMs)).toThrow('it needs beacon round 3');
    expect(() => checkBaseInfoRound(ctx, 0n, base, atGenesisMs)).toThrow('the round must be above its base tipset');
    // Far in the future the beacon is there, but not more than a day of epochs after the base.
    const laterMs = atGenesisMs + 10_000 * Number(clock.blockDelaySecs) * 1000;
    expect(() => checkBaseInfoRound(ctx, MAX_BASE_INFO_EPOCHS_AFTER_BASE, base, laterMs)).not.toThrow();
    expect(() => checkBaseInfoRound(ctx, MAX_BASE_INFO_EPOCHS_AFTER_BASE + 1n, base, laterMs)).toThrow(
      'more than 2880 epochs after its base',
    );
  });

  test('the beacon loop stops when its signal fires', async () => {
    const ctx = minerContext();
    const beacon = ctx.beacon;
    const previous = ctx.chain.latestBeaconEntry(ctx.chain.genesis);
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error('the client went away')), 100);
    const started = performance.now();
    // A million epochs: about a million signatures, many minutes, without the signal.
    const entries = beaconEntriesForBlock(
      beacon,
      chainClockOf(ctx.chain, ctx.params),
      1_000_000n,
      0n,
      previous,
      abort.signal,
    );
    await expect(entries).rejects.toThrow(AbortedError);
    await expect(entries).rejects.toThrow('aborted: the client went away');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('GasEstimateFeeCap', () => {
  const msg = () => {
    const [from] = devnet.node.chain!.devnet.accounts;
    return messageToLotusJson(message({ from: from!, to: from!, gasPremium: 7n }));
  };

  test('maxQueueBlocks 10,000 is a parameter error naming the most it takes', async () => {
    const reply = await anonymous('GasEstimateFeeCap', [msg(), 10_000, null]);
    expect(reply.error).toEqual({
      code: -32602,
      message:
        "invalid params for 'GasEstimateFeeCap': maxQueueBlocks: 10000 is more than 329, the most blocks of base fee rises (×1.125 each) a fee cap is estimated for",
    });
    expect((await anonymous('GasEstimateFeeCap', [msg(), 330, null])).error?.code).toBe(-32602);
  });

  test('up to 329 the answer is Lotus’s: base fee × ⌊1.125^n × 256⌋ / 256 + premium', async () => {
    expect(maxFeeCapQueueBlocks(8n)).toBe(329);
    const baseFee = BigInt(
      ((await devnet.rpc<TipSetJson>('ChainHead')).Blocks[0] as { ParentBaseFee: string }).ParentBaseFee,
    );
    for (const n of [0, 20, 329, -5]) {
      const expected = (baseFee * BigInt(Math.floor(1.125 ** n * 256))) / 256n + 7n;
      expect((await anonymous('GasEstimateFeeCap', [msg(), n, null])).result).toBe(expected.toString());
    }
  });
});

test('stopping the node ends a long StateCompute instead of waiting for it', async () => {
  const [from, to] = devnet.node.chain!.devnet.accounts;
  const messages = Array.from({ length: 10_000 }, (_, nonce) =>
    messageToLotusJson(message({ from: from!, to: to!, value: 1n, nonce: BigInt(nonce) })),
  );
  const client = new RpcClient({ url: devnet.url });
  const full = (await client.request('Ledger.StateCompute', [0, messages, null])) as { Trace: unknown[] };
  expect(full.Trace).toHaveLength(10_000);
  // The measured run (after the warm-up above): up to the answer's first bytes, the call's own time.
  const compute = { jsonrpc: '2.0', id: 1, method: 'Ledger.StateCompute', params: [0, messages, null] };
  const fullMs = await answerStartMs(devnet.url, compute);
  expect(fullMs).toBeGreaterThan(1000);

  const sent = performance.now();
  const pending = client.request('Ledger.StateCompute', [0, messages, null]).catch((error: Error) => error);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await devnet.stop();
  // Stopped long before the call would have finished, counted from when it was sent.
  expect(performance.now() - sent).toBeLessThan(fullMs * 0.6);
  // The call answers that it was aborted (the old node finished it and cut the connection).
  const outcome = await pending;
  expect(outcome).toBeInstanceOf(JsonRpcError);
  expect((outcome as JsonRpcError).message).toBe('aborted: the node is stopping');
}, 120_000);
