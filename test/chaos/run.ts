/**
 * `npm run test:chaos`: a bounded reliability run of real `ledger` processes (the built CLI), each
 * in its own temporary repo. Scenarios (see each file):
 *
 *   a. mining with pushes in flight, kill -9          (mining.ts)
 *   b. a follower syncing from the miner, kill -9     (follower.ts)
 *   c. snapshot import, kill -9                        (follower.ts)
 *   d. mpool persistence: kill -9 right after acks     (mpool.ts)
 *   e. full disk on a small tmpfs                      (full-disk.ts; skipped without mount)
 *   f. RPC abuse with the node's RSS sampled           (abuse.ts)
 *
 * Kill moments come from a seeded PRNG: the seed is printed, and `LEDGER_CHAOS_SEED=<seed>`
 * replays the same choices (timings on a busy machine still differ). `LEDGER_CHAOS_KILLS` sets the
 * number of kills (default 32), spread over a–e. Prints a summary table and exits 1 on any loss,
 * nonce gap, integrity failure, node death or stuck miner. `LEDGER_CHAOS_KEEP=1` keeps the run's
 * directory (repos and node logs); it is kept anyway when something failed.
 */
import { randomInt } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setDefaultNetwork } from '../../src/types/index.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { abuseScenario } from './abuse.js';
import { snapshotScenario, syncScenario } from './follower.js';
import { fullDiskScenario } from './full-disk.js';
import { miningScenario } from './mining.js';
import { mpoolScenario } from './mpool.js';
import { describeExit, killAll, LEDGER_BIN, ROOT, runLedger } from './node-process.js';
import { type ChaosContext, ScenarioRecord, summaryTable } from './record.js';

function nonNegativeInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, not ${text}`);
  return value;
}

/** Kills per scenario: the full-disk run has one of its own; the rest is spread over a–d. */
function planKills(total: number): { mining: number; sync: number; snapshot: number; mpool: number } {
  const rest = Math.max(4, total - 1);
  const mining = Math.max(1, Math.round(rest * 0.3));
  const sync = Math.max(1, Math.round(rest * 0.16));
  const snapshot = Math.max(1, Math.round(rest * 0.16));
  return { mining, sync, snapshot, mpool: Math.max(1, rest - mining - sync - snapshot) };
}

function assertBuilt(): void {
  if (process.env.LEDGER_CHAOS_BIN) return;
  const bundle = join(ROOT, 'dist', 'bundle', 'main.js');
  if (!existsSync(bundle)) throw new Error('dist/ is missing: run `npm run build:ts` first');
  const sources = join(ROOT, 'src', 'node', 'node.ts');
  if (statSync(bundle).mtimeMs < statSync(sources).mtimeMs) {
    console.error('warning: dist/ is older than src/node/node.ts; `npm run test:chaos` rebuilds it first');
  }
}

async function main(): Promise<number> {
  const seed = nonNegativeInteger('LEDGER_CHAOS_SEED', randomInt(2 ** 31));
  const kills = planKills(nonNegativeInteger('LEDGER_CHAOS_KILLS', 32));
  setDefaultNetwork('t');
  assertBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'ledger-chaos-'));
  const started = Date.now();
  const context: ChaosContext = {
    random: seededRandom(seed),
    dir,
    log: (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`),
  };
  console.log(`ledger chaos run: seed ${seed} (LEDGER_CHAOS_SEED=${seed} replays it), kills ${JSON.stringify(kills)}`);
  console.log(`binary ${LEDGER_BIN}, work directory ${dir}`);
  await runLedger(['proofs', 'params']);

  const records: ScenarioRecord[] = [];
  /** Runs one scenario into its own record; an exception ends it as a failure, never the run. */
  const scenario = async <T>(name: string, run: (record: ScenarioRecord) => Promise<T>): Promise<T | undefined> => {
    context.log(`${name}…`);
    const record = new ScenarioRecord(name, context);
    records.push(record);
    try {
      return await run(record);
    } catch (error) {
      record.fail(`aborted: ${(error as Error).stack ?? error}`);
      return undefined;
    } finally {
      record.finish();
    }
  };

  const miner = await scenario('a. mining + pushes, kill -9', (record) =>
    miningScenario(context, record, kills.mining),
  );
  if (miner !== undefined) {
    await scenario('b. sync, kill -9 follower', (record) => syncScenario(context, record, miner, kills.sync));
    await scenario('c. snapshot import, kill -9', (record) => snapshotScenario(context, record, miner, kills.snapshot));
    await scenario('f. RPC abuse', (record) => abuseScenario(context, record, miner));
    await scenario('a. miner: clean stop', async (record) => {
      const status = await miner.node.stop();
      if (status.signal !== null || status.code !== 0) {
        record.fail(`the miner did not stop cleanly on SIGTERM (${describeExit(status)})`);
      }
      record.checkIntegrity(miner.repo, 'after a clean stop');
    });
  }
  await scenario('d. mpool persistence, kill -9 after acks', (record) => mpoolScenario(context, record, kills.mpool));
  await scenario('e. full disk (tmpfs)', (record) => fullDiskScenario(context, record));
  await killAll();

  const totalMs = Date.now() - started;
  console.log(`\n${summaryTable(records, totalMs)}\n`);
  const failures = records.flatMap((r) => r.failures.map((f) => `${r.name}: ${f}`));
  for (const r of records) if (r.skipped !== undefined) console.log(`skipped ${r.name}: ${r.skipped}`);
  if (failures.length > 0) {
    console.log(`FAILED (${failures.length}); seed ${seed}; logs and repos kept in ${dir}`);
    for (const failure of failures) console.log(`  - ${failure}`);
    return 1;
  }
  if (process.env.LEDGER_CHAOS_KEEP === '1') console.log(`repos and logs kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  console.log(`passed; seed ${seed}`);
  return 0;
}

// Interrupted (Ctrl-C, a CI timeout): take the nodes down too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void killAll().finally(() => process.exit(130));
  });
}
try {
  process.exitCode = await main();
} finally {
  await killAll();
}
