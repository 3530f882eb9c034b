/**
 * Sealing in a separate process at the lowest CPU priority, one sector step at a time. A C2 keeps
 * both cores of a small machine busy for over a minute; run in the node's own process beside a
 * window PoSt, the two shared the cores and the PoSt missed its window (a deadline on the devnet
 * is 4 epochs). In a process at nice 19 the sealing threads get only what the node's proving and
 * block production leave, as Lotus keeps sealing in lotus-worker processes apart from the window
 * PoSt scheduler (filecoin-project/lotus `storage/sealer/manager.go`). One job at a time: two C2s
 * at once finish no sooner than one after the other and hold twice the memory.
 *
 * The process starts on the first job and stays for the next ones; it dies with its parent.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { proofsDirs } from './environment.js';
import { ProofsError } from './errors.js';
import type { CommitInputs, SectorCommitments, SectorRef } from './seal.js';

/** The two sealing calls a pipeline makes; `precommitSector` and `commitSector` (seal.ts) run them in process. */
export interface Sealer {
  precommitSector(sector: SectorRef, inputs: { ticket: Uint8Array; piece: Uint8Array }): Promise<SectorCommitments>;
  commitSector(sector: SectorRef, inputs: CommitInputs): Promise<Uint8Array>;
}

/** What the parent sends (`parameterCache` keeps both processes on the same parameters). */
export type SealRequest = { readonly id: number; readonly parameterCache: string; readonly sector: SectorRef } & (
  | { readonly op: 'precommit'; readonly inputs: { ticket: Uint8Array; piece: Uint8Array } }
  | { readonly op: 'commit'; readonly inputs: CommitInputs }
);

export interface SealResponse {
  readonly id: number;
  readonly value?: SectorCommitments | Uint8Array;
  readonly error?: { readonly message: string; readonly code: string | undefined };
}

/**
 * The worker script: compiled (dist/, and dist/bundle where scripts/bundle.mjs builds it as an entry
 * of its own) it sits beside this module as `.js`; run from the sources (tests, benchmarks) it is
 * the `.ts`, loaded through tsx.
 */
function workerEntry(): { path: string; execArgv: string[] } {
  const compiled = fileURLToPath(new URL('./seal-worker.js', import.meta.url));
  if (existsSync(compiled)) return { path: compiled, execArgv: [] };
  return { path: fileURLToPath(new URL('./seal-worker.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

export class SealProcess implements Sealer {
  #child: ChildProcess | undefined;
  #nextId = 1;
  /** The job in flight or last finished: each job waits for the one before. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  precommitSector(sector: SectorRef, inputs: { ticket: Uint8Array; piece: Uint8Array }): Promise<SectorCommitments> {
    return this.#enqueue({ op: 'precommit', sector, inputs }) as Promise<SectorCommitments>;
  }

  commitSector(sector: SectorRef, inputs: CommitInputs): Promise<Uint8Array> {
    return this.#enqueue({ op: 'commit', sector, inputs }) as Promise<Uint8Array>;
  }

  /** The sealing process's pid while it runs (tests check its priority and that it ends). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Ends the process; a job in flight fails, queued ones too. */
  close(): void {
    this.#closed = true;
    this.#child?.kill('SIGKILL');
    this.#child = undefined;
  }

  #enqueue(
    job:
      | { op: 'precommit'; sector: SectorRef; inputs: { ticket: Uint8Array; piece: Uint8Array } }
      | { op: 'commit'; sector: SectorRef; inputs: CommitInputs },
  ): Promise<unknown> {
    const result = this.#queue.then(() => {
      const request = { ...job, id: this.#nextId++, parameterCache: proofsDirs().parameterCache } as SealRequest;
      return this.#send(request);
    });
    this.#queue = result.catch(() => undefined);
    return result;
  }

  #send(request: SealRequest): Promise<unknown> {
    const what = `${request.op} of sector ${request.sector.sectorNumber}`;
    if (this.#closed) return Promise.reject(new ProofsError('ERR_PROOF_FAILED', `${what}: the sealer is closed`));
    const child = this.#spawn();
    child.ref();
    child.channel?.ref();
    return new Promise<unknown>((resolve, reject) => {
      const onMessage = (response: SealResponse) => {
        if (response.id !== request.id) return;
        settle();
        if (response.error === undefined) resolve(response.value);
        else reject(new ProofsError(response.error.code ?? 'ERR_PROOF_FAILED', response.error.message));
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        settle();
        if (this.#child === child) this.#child = undefined;
        reject(
          new ProofsError('ERR_PROOF_FAILED', `${what}: the sealing process exited (${signal ?? `code ${code}`})`),
        );
      };
      const settle = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        // Idle, the process must not keep the node's event loop alive.
        child.unref();
        child.channel?.unref();
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send(request);
    });
  }

  #spawn(): ChildProcess {
    if (this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null) {
      return this.#child;
    }
    const entry = workerEntry();
    const child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#child = child;
    return child;
  }
}
