/**
 * kill -9 of a sealing pipeline in the middle of PC (AddPiece + PC1 + PC2) and in the middle of C2:
 * after a restart on the same database and sector files the sector finishes. The pipeline runs in a
 * child process (`pipeline-child.ts`) with real sealing; the chain is the scripted test double,
 * served from this process so that it survives the kills. The pipeline seals in its own sealing
 * process, as in the node: that process runs at the lowest CPU priority and dies with the pipeline.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LedgerDatabase } from '../../../src/db/index.js';
import { type SealingSector, SectorState } from '../../../src/miner/sealing/index.js';
import { ensureParameters } from '../../../src/proofs/index.js';
import { PARAMETERS_TIMEOUT_MS } from '../../proofs/fixtures.js';
import { serveChain } from './ipc-chain.js';
import { MINER, ScriptedChain } from './scripted-chain.js';

const TIMEOUT_MS = 20 * 60_000;
const CHILD = resolve('test/miner/sealing/pipeline-child.ts');
/** C2 of a 2 KiB sector takes minutes here (it loads 1 GiB of parameters): well inside it. */
const KILL_IN_C2_AFTER_MS = 10_000;
/** PC takes well under a second: the kill comes as soon as PC has created the sector's cache directory. */
const POLL_MS = 1;

let dir: string;
let chain: ScriptedChain;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await ensureParameters({ porep: true });
}, PARAMETERS_TIMEOUT_MS);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-sealing-kill-'));
  chain = new ScriptedChain();
});

afterEach(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  chain.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  readonly child: ChildProcess;
  readonly states: SectorState[];
  readonly settled: Promise<SealingSector>;
  readonly exited: Promise<NodeJS.Signals | null>;
}

function runPipeline(
  observe: { call?: (method: string) => void; transition?: (sector: SealingSector) => void } = {},
): Run {
  const child = fork(CHILD, [join(dir, 'node.db'), join(dir, 'sectors')], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  const states: SectorState[] = [];
  const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
  const settled = new Promise<SealingSector>((done, fail) => {
    serveChain(child, chain, {
      ...observe,
      transition: (sector) => {
        states.push(sector.state);
        observe.transition?.(sector);
      },
      settled: done,
    });
    void exited.then((signal) =>
      fail(new Error(`the pipeline process exited (${signal ?? 'no signal'}) before the sector settled`)),
    );
  });
  return { child, states, settled, exited };
}

/** A process's (or one of its threads') /proc stat fields after the parenthesised command name (state, ppid, …). */
function statOf(pid: number, tid = pid): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function threadsOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map(Number);
}

/** The pipeline's sealing process (its child), if it has started. */
function sealerOf(pipeline: ChildProcess): number | undefined {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  return pids.find((pid) => statOf(pid)?.[1] === String(pipeline.pid));
}

function alive(pid: number): boolean {
  const state = statOf(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

async function waitForExit(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

/** The sector as the database holds it after a crash. */
function persistedState(): string | undefined {
  const db = LedgerDatabase.open(join(dir, 'node.db'));
  try {
    return db.sealing.list(MINER.id())[0]?.state;
  } finally {
    db.close();
  }
}

it(
  'finishes a sector after kill -9 during PC and during C2',
  async () => {
    // 1. Killed while sealing: once the ticket is drawn, as soon as the native PC call has begun.
    const cache = join(dir, 'sectors', 'cache', 's-t01000-2');
    const first = runPipeline({
      call: (method) => {
        if (method !== 'stateGetRandomnessFromTickets') return;
        // The sealing process starts now: found while it loads, it is killed with the pipeline,
        // as a kill -9 of the node's process group kills both, as soon as PC has begun.
        let sealer: number | undefined;
        const poll = setInterval(() => {
          sealer ??= sealerOf(first.child);
          if (sealer === undefined || !existsSync(cache)) return;
          clearInterval(poll);
          process.kill(sealer, 'SIGKILL');
          first.child.kill('SIGKILL');
        }, POLL_MS);
      },
    });
    expect(await first.exited).toBe('SIGKILL');
    first.settled.catch(() => {});
    expect(first.states).toEqual([SectorState.Packing, SectorState.PreCommit1]);
    expect(persistedState()).toBe(SectorState.PreCommit1);
    // PC had begun and not finished: PC2 writes p_aux last.
    expect(existsSync(join(cache, 'p_aux'))).toBe(false);

    // 2. Restarted, it seals again and is killed while computing the proof.
    let sealer: number | undefined;
    let sealerNice: Set<number> | undefined;
    const second = runPipeline({
      transition: (sector) => {
        if (sector.state === SectorState.Committing)
          setTimeout(() => {
            sealer = sealerOf(second.child) as number;
            const pid = sealer;
            sealerNice = new Set(threadsOf(pid).map((tid) => Number(statOf(pid, tid)?.[16])));
            second.child.kill('SIGKILL');
          }, KILL_IN_C2_AFTER_MS);
      },
    });
    expect(await second.exited).toBe('SIGKILL');
    // The C2 ran at the lowest priority, every thread of it, and its process did not outlive the pipeline.
    expect(sealerNice).toEqual(new Set([19]));
    expect(await waitForExit(sealer as number)).toBe(true);
    second.settled.catch(() => {});
    expect(second.states).toEqual([
      SectorState.PreCommitting,
      SectorState.PreCommitWait,
      SectorState.WaitSeed,
      SectorState.Committing,
    ]);
    expect(persistedState()).toBe(SectorState.Committing);

    // 3. Restarted again, it proves and commits.
    const third = runPipeline();
    const sector = await third.settled;
    expect(third.states).toEqual([
      SectorState.SubmitCommit,
      SectorState.CommitWait,
      SectorState.FinalizeSector,
      SectorState.Proving,
    ]);
    expect(sector).toMatchObject({ sectorNumber: 2n, state: SectorState.Proving });
    // One pre-commit and one prove-commit in all, and the chain verified the proof.
    expect(chain.executed.map((m) => m.exitCode)).toEqual([0n, 0n]);
    expect(chain.proven).toEqual(new Set([2n]));
    expect(await third.exited).toBeNull();
  },
  TIMEOUT_MS,
);
