/**
 * Scenario f: RPC abuse against the mining node — oversized batches (three clients each sending
 * 300 StateCompute of the busiest recent tipset plus 100 messages in one request), expensive calls
 * in parallel, MinerGetBaseInfo for a round far in the future, a batch of thousands of cheap
 * calls, and clients that hang up mid-call. Each
 * abusive request must be answered (a result or an error) in bounded time, the node must stay up
 * with its peak RSS under the limit, and ChainHead must answer afterwards.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Miner } from './mining.js';
import { sleep } from './node-process.js';
import { between, type ChaosContext, type ScenarioRecord } from './record.js';
import { errorText, isRefusal, type NodeRpc, type TipSetJson } from './rpc.js';

const RSS_LIMIT = 1.5 * 1024 * 1024 * 1024;
const BATCH_CALLS = 300;
/** Clients sending that batch at once. */
const BATCH_CLIENTS = 3;
const CHEAP_BATCH_CALLS = 5_000;
/** Every abusive call must be answered within this; a node that runs one for ever fails. */
const ANSWER_WITHIN_MS = 60_000;
const FAR_FUTURE_ROUNDS = 10_000_000;
/** Messages each StateCompute call runs on top of the tipset's own. */
const COMPUTE_MESSAGES = 100;

/** The tipset with the most messages among the latest 60 epochs (StateCompute of it runs them all). */
async function busiestTipSet(rpc: NodeRpc): Promise<TipSetJson> {
  const head = await rpc.head();
  let busiest = { tipSet: head, messages: -1 };
  for (let height = head.Height; height > Math.max(0, head.Height - 60); height--) {
    const tipSet = await rpc.call<TipSetJson>('ChainGetTipSetByHeight', [height, head.Cids]);
    const messages = (await rpc.call<unknown[] | null>('ChainGetMessagesInTipset', [tipSet.Cids]))?.length ?? 0;
    if (messages > busiest.messages) busiest = { tipSet, messages };
    height = tipSet.Height;
  }
  return busiest.tipSet;
}

/**
 * StateCompute parameters that cost the same on any chain: the tipset (with its messages, if it
 * has any) and then COMPUTE_MESSAGES transfers from the miner's worker, which sends nothing else,
 * so nonces from 0 are right.
 */
function computeArguments(target: TipSetJson, miner: Miner): unknown[] {
  const worker = (JSON.parse(readFileSync(join(miner.repo, 'devnet.json'), 'utf8')) as { Worker: string }).Worker;
  const messages = Array.from({ length: COMPUTE_MESSAGES }, (_, nonce) => ({
    Version: 0,
    To: miner.recipient,
    From: worker,
    Nonce: nonce,
    Value: '1',
    GasLimit: 10_000_000,
    GasFeeCap: '1000000000',
    GasPremium: '100000',
    Method: 0,
    Params: '',
  }));
  return [target.Height, messages, target.Cids];
}

function batchBody(calls: number, method: string, params: readonly unknown[]): string {
  return JSON.stringify(
    Array.from({ length: calls }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: `Ledger.${method}`, params })),
  );
}

/** "300 results, 0 errors (12.3 MiB)" / "refused: <message>" for a batch answer. */
function describeBatchAnswer(text: string): string {
  return `${describeBatchJson(text)} (${(text.length / 2 ** 20).toFixed(1)} MiB)`;
}

function describeBatchJson(text: string): string {
  try {
    const json = JSON.parse(text) as unknown;
    if (Array.isArray(json)) {
      const errors = json.filter((r: { error?: unknown }) => r.error !== undefined) as { error: { message: string } }[];
      return `${json.length - errors.length} results, ${errors.length} errors${errors[0] ? ` (${errors[0].error.message.slice(0, 120)})` : ''}`;
    }
    const error = (json as { error?: { message?: string } }).error;
    return `refused: ${error?.message?.slice(0, 160) ?? text.slice(0, 160)}`;
  } catch {
    return `not JSON: ${text.slice(0, 160)}`;
  }
}

export async function abuseScenario(context: ChaosContext, record: ScenarioRecord, miner: Miner): Promise<void> {
  const { node, rpc } = miner;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, node.memory()?.rss ?? 0);
  }, 100);
  let probes = 0;
  let probeFailures = 0;
  let slowestProbe = 0;
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const started = Date.now();
      try {
        await rpc.head(5_000);
      } catch {
        probeFailures++;
      }
      probes++;
      slowestProbe = Math.max(slowestProbe, Date.now() - started);
      await sleep(500);
    }
  })();

  const target = await busiestTipSet(rpc);
  const head = await rpc.head();
  const heavy = computeArguments(target, miner);
  const oversized = batchBody(BATCH_CALLS, 'StateCompute', heavy);
  const timed = async (what: string, run: () => Promise<string>): Promise<void> => {
    const started = Date.now();
    try {
      const outcome = await run();
      record.note(`${what}: ${outcome} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError' || /timed? ?out|aborted/i.test(errorText(error));
      if (isRefusal(error)) {
        record.note(
          `${what}: refused in ${((Date.now() - started) / 1000).toFixed(1)} s: ${errorText(error).slice(0, 160)}`,
        );
      } else if (timedOut) {
        record.fail(`${what}: no answer within ${ANSWER_WITHIN_MS / 1000} s`);
      } else {
        record.fail(`${what}: ${errorText(error).slice(0, 200)}`);
      }
    }
  };

  const abuse: Promise<void>[] = [
    ...Array.from({ length: BATCH_CLIENTS }, (_, client) =>
      timed(
        `client ${client + 1}: batch of ${BATCH_CALLS} StateCompute (height ${target.Height}, ${COMPUTE_MESSAGES} messages each, ${(oversized.length / 2 ** 20).toFixed(1)} MiB)`,
        async () => describeBatchAnswer((await rpc.post(oversized, { timeoutMs: ANSWER_WITHIN_MS })).text),
      ),
    ),
    timed(`batch of ${CHEAP_BATCH_CALLS} ChainHead`, async () => {
      const body = batchBody(CHEAP_BATCH_CALLS, 'ChainHead', []);
      return describeBatchAnswer((await rpc.post(body, { timeoutMs: ANSWER_WITHIN_MS })).text);
    }),
    timed(`MinerGetBaseInfo for round ${head.Height + FAR_FUTURE_ROUNDS}`, async () => {
      const info = await rpc.call(
        'MinerGetBaseInfo',
        [head.Blocks[0]!.Miner, head.Height + FAR_FUTURE_ROUNDS, head.Cids],
        ANSWER_WITHIN_MS,
      );
      return `answered ${JSON.stringify(info).slice(0, 60)}`;
    }),
    timed('16 StateCompute and 8 MpoolPending in parallel', async () => {
      const calls = [
        ...Array.from({ length: 16 }, () => rpc.call('StateCompute', heavy, ANSWER_WITHIN_MS)),
        ...Array.from({ length: 8 }, () => rpc.call('MpoolPending', [null], ANSWER_WITHIN_MS)),
      ];
      const settled = await Promise.allSettled(calls);
      const unanswered = settled.filter((s) => s.status === 'rejected' && !isRefusal(s.reason));
      if (unanswered.length > 0) throw (unanswered[0] as PromiseRejectedResult).reason;
      return `${settled.filter((s) => s.status === 'fulfilled').length} answered, ${settled.length - settled.filter((s) => s.status === 'fulfilled').length} refused`;
    }),
    timed('20 clients hanging up mid-call', async () => {
      let hungUp = 0;
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const controller = new AbortController();
          setTimeout(() => controller.abort(), between(context, 10, 300));
          const body =
            i % 2 === 0
              ? batchBody(20, 'StateCompute', heavy)
              : JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Ledger.MpoolPending', params: [null] });
          await rpc.post(body, { timeoutMs: ANSWER_WITHIN_MS, signal: controller.signal }).catch(() => {
            hungUp++;
          });
        }),
      );
      return `${hungUp} hung up before the answer`;
    }),
  ];
  await Promise.all(abuse);
  probing = false;
  await prober;
  await sleep(1_000);
  clearInterval(sampler);
  const memory = node.memory();
  record.maxRss = Math.max(peak, memory?.hwm ?? 0);
  if (!node.alive) {
    record.fail(`the node died under abuse (${node.exitStatus?.signal ?? node.exitStatus?.code}): ${node.tail(5)}`);
    return;
  }
  try {
    const started = Date.now();
    const after = await rpc.head(10_000);
    record.note(`ChainHead answers afterwards (height ${after.Height}) in ${Date.now() - started} ms`);
  } catch (error) {
    record.fail(`ChainHead does not answer after the abuse: ${errorText(error)}`);
  }
  if (record.maxRss >= RSS_LIMIT) {
    record.fail(`peak RSS ${(record.maxRss / 2 ** 20).toFixed(0)} MiB is over ${(RSS_LIMIT / 2 ** 20).toFixed(0)} MiB`);
  }
  record.note(
    `peak RSS ${(record.maxRss / 2 ** 20).toFixed(0)} MiB (VmHWM ${((memory?.hwm ?? 0) / 2 ** 20).toFixed(0)} MiB); ChainHead during the abuse: ${probes} probes, ${probeFailures} unanswered within 5 s, slowest ${slowestProbe} ms`,
  );
}
