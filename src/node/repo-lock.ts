/**
 * One daemon per repo: `repo.lock` holds the owner's pid. A lock left by a process that no longer
 * exists (a crash, a kill -9) is taken over — also when the dead owner had this process's pid, as
 * happens to pid 1 when a container restarts.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { RepoLockedError } from './errors.js';

/** Lock files held by this process. */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryCreate(file: string): boolean {
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o644 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export class RepoLock {
  readonly #file: string;

  private constructor(file: string) {
    this.#file = file;
    held.add(file);
  }

  static acquire(file: string, repoPath: string): RepoLock {
    if (tryCreate(file)) return new RepoLock(file);
    const owner = Number.parseInt(readFileSync(file, 'utf8'), 10);
    const stale = !Number.isSafeInteger(owner) || (owner === process.pid ? !held.has(file) : !isAlive(owner));
    if (!stale) throw new RepoLockedError(repoPath, owner);
    rmSync(file, { force: true });
    if (tryCreate(file)) return new RepoLock(file);
    throw new RepoLockedError(repoPath, Number.parseInt(readFileSync(file, 'utf8'), 10));
  }

  release(): void {
    held.delete(this.#file);
    rmSync(this.#file, { force: true });
  }
}
