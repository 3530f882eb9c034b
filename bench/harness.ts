/**
 * Shared benchmark plumbing: every benchmark in bench/ measures each implementation on the same
 * inputs in one run, prints a table and writes `bench/results/<name>.json` in one shape:
 * `{ benchmark, results: [{ case, impl, opsPerSec }], ratios: { … } }`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';

export interface Measurement {
  case: string;
  impl: string;
  opsPerSec: number;
}

export interface MeasureOptions {
  /** Minimum time to spend, in ms (default 1500). */
  time?: number;
  /** Minimum number of runs (default 10). */
  iterations?: number;
  /** Warm up first (default true); turn off for cases that take seconds per run. */
  warmup?: boolean;
}

/** Runs `fn` repeatedly under tinybench and returns its throughput. */
export async function measure(
  caseName: string,
  impl: string,
  fn: () => unknown,
  options: MeasureOptions = {},
): Promise<Measurement> {
  const bench = new Bench({
    time: options.time ?? 1500,
    iterations: options.iterations ?? 10,
    warmup: options.warmup ?? true,
  });
  bench.add(`${caseName} [${impl}]`, fn);
  await bench.run();
  const task = bench.tasks[0];
  const result = task?.result;
  if (result?.state !== 'completed') {
    throw new Error(`benchmark ${caseName} [${impl}] failed: ${JSON.stringify(result)}`);
  }
  const opsPerSec = 1000 / result.latency.mean;
  console.error(`  ${caseName} [${impl}]: ${formatOps(opsPerSec)} ops/s`);
  return { case: caseName, impl, opsPerSec };
}

export function opsOf(results: readonly Measurement[], caseName: string, impl: string): number {
  const found = results.find((r) => r.case === caseName && r.impl === impl);
  if (!found) throw new Error(`no measurement for ${caseName} [${impl}]`);
  return found.opsPerSec;
}

/** How many times faster `impl` is than `baseline` on `caseName`. */
export function speedup(results: readonly Measurement[], caseName: string, impl: string, baseline: string): number {
  return opsOf(results, caseName, impl) / opsOf(results, caseName, baseline);
}

function formatOps(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toPrecision(3);
}

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

/** Prints the table and ratios, and writes bench/results/<benchmark>.json. */
export function report(
  benchmark: string,
  results: readonly Measurement[],
  ratios: Record<string, number>,
  extra: Record<string, unknown> = {},
): void {
  console.table(results.map((r) => ({ case: r.case, impl: r.impl, 'ops/s': formatOps(r.opsPerSec) })));
  console.table(Object.entries(ratios).map(([name, value]) => ({ ratio: name, value: Number(value.toFixed(2)) })));
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${benchmark}.json`);
  const machine = { node: process.version, platform: `${process.platform}-${process.arch}` };
  writeFileSync(
    file,
    `${JSON.stringify({ benchmark, results, ratios, ...extra, machine, date: new Date().toISOString() }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
}

/** Throws unless every implementation produced the same answer. */
export function assertAgree(caseName: string, answers: Record<string, unknown>): void {
  const entries = Object.entries(answers).map(([impl, value]) => [impl, canonical(value)] as const);
  const first = entries[0];
  for (const [impl, value] of entries) {
    if (value !== first?.[1])
      throw new Error(`${caseName}: ${impl} answered ${value}, ${first?.[0]} answered ${first?.[1]}`);
  }
}

function canonical(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return JSON.stringify(value);
}

/**
 * Runs a Rust benchmark of crates/ledger-proofs in a process of its own (`cargo bench`, the
 * release profile) with `args`, and parses the one JSON line it prints.
 */
export function cargoBench<T>(bench: string, args: readonly string[]): T {
  const run = spawnSync(
    process.execPath,
    ['scripts/cargo.mjs', 'bench', '--quiet', '-p', 'ledger-proofs', '--bench', bench, '--', ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`cargo bench ${bench} failed with status ${run.status}`);
  return JSON.parse(run.stdout) as T;
}
