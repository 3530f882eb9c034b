/** What one scenario of the chaos run did and found, and the summary table of the run. */
import { join } from 'node:path';
import type { Verification } from './messages.js';
import { checkStore } from './store-check.js';

export interface ChaosContext {
  /** Uniform in [0, 1), from the run's seed. */
  readonly random: () => number;
  /** The run's temporary directory (repos, logs, snapshots). */
  readonly dir: string;
  log(line: string): void;
}

export function logFile(context: ChaosContext, name: string): string {
  return join(context.dir, `${name}.log`);
}

/** Uniform in [min, max). */
export function between(context: ChaosContext, min: number, max: number): number {
  return min + (max - min) * context.random();
}

export class ScenarioRecord {
  readonly name: string;
  readonly #context: ChaosContext;
  readonly started = Date.now();
  durationMs = 0;
  kills = 0;
  acknowledged = 0;
  lost = 0;
  /** Distinct nonce gaps seen (a gap that persists over several checks counts once). */
  readonly #gaps = new Set<string>();
  integrityRun = 0;
  integrityPassed = 0;
  /** Peak resident memory of the node under abuse (bytes), for the abuse scenario. */
  maxRss: number | undefined;
  skipped: string | undefined;
  readonly failures: string[] = [];
  readonly notes: string[] = [];

  constructor(name: string, context: ChaosContext) {
    this.name = name;
    this.#context = context;
  }

  fail(what: string): void {
    this.failures.push(what);
    this.#context.log(`  FAIL ${what}`);
  }

  note(what: string): void {
    this.notes.push(what);
    this.#context.log(`  ${what}`);
  }

  /** PRAGMA integrity_check and the chain index's links on a repo no process has open. */
  checkIntegrity(repo: string, when: string): ReturnType<typeof checkStore> {
    const result = checkStore(repo);
    this.integrityRun++;
    if (result.ok) this.integrityPassed++;
    else this.fail(`integrity ${when}: ${result.detail}`);
    return result;
  }

  /** Counts a verification's losses and gaps as failures. */
  count(verification: Verification, when: string): void {
    this.lost += verification.lost.length;
    const newGaps = verification.gaps.filter((gap) => !this.#gaps.has(gap));
    for (const gap of newGaps) this.#gaps.add(gap);
    if (verification.lost.length > 0) {
      const sample = verification.lost
        .slice(0, 3)
        .map((m) => `${m.via} ${m.from}#${m.nonce} ${m.cid}`)
        .join(', ');
      this.fail(
        `${when}: ${verification.lost.length} acknowledged message(s) neither on chain nor pending (${sample})`,
      );
    }
    if (newGaps.length > 0) this.fail(`${when}: nonce gap(s) ${newGaps.slice(0, 4).join(', ')}`);
    if (verification.unacknowledged.length > 0) {
      this.fail(
        `${when}: ${verification.unacknowledged.length} message(s) kept although their push was refused (${verification.unacknowledged.slice(0, 3).join(', ')})`,
      );
    }
  }

  get gaps(): number {
    return this.#gaps.size;
  }

  finish(): this {
    this.durationMs = Date.now() - this.started;
    return this;
  }
}

function mib(bytes: number | undefined): string {
  return bytes === undefined ? '' : `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

/** The summary table (a Markdown table, so it pastes into notes as is) and the totals. */
export function summaryTable(records: readonly ScenarioRecord[], totalMs: number): string {
  const header = [
    'scenario',
    'kills',
    'acked msgs',
    'lost',
    'nonce gaps',
    'integrity ok/run',
    'max RSS',
    'result',
    's',
  ];
  const rows = records.map((r) => [
    r.name,
    String(r.kills),
    String(r.acknowledged),
    String(r.lost),
    String(r.gaps),
    `${r.integrityPassed}/${r.integrityRun}`,
    mib(r.maxRss),
    r.skipped !== undefined ? 'SKIPPED' : r.failures.length === 0 ? 'ok' : `FAIL (${r.failures.length})`,
    (r.durationMs / 1000).toFixed(0),
  ]);
  const sum = (pick: (r: ScenarioRecord) => number) => String(records.reduce((total, r) => total + pick(r), 0));
  const failed = records.filter((r) => r.failures.length > 0).length;
  rows.push([
    'total',
    sum((r) => r.kills),
    sum((r) => r.acknowledged),
    sum((r) => r.lost),
    sum((r) => r.gaps),
    `${sum((r) => r.integrityPassed)}/${sum((r) => r.integrityRun)}`,
    mib(Math.max(0, ...records.map((r) => r.maxRss ?? 0)) || undefined),
    failed === 0 ? 'ok' : `FAIL (${failed} scenarios)`,
    (totalMs / 1000).toFixed(0),
  ]);
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
