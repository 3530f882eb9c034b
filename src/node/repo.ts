/**
 * The repo directory, `$LEDGER_PATH` (default `~/.ledger`), laid out as Lotus's: `config.toml`,
 * `keystore/` (one 0600 file per key), `token` (the admin API token, 0600), `api` (the API's
 * multiaddr while the daemon runs) and `repo.lock`. The CLI reads `api` and `token` to find the node.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_CONFIG_TOML } from './config.js';
import { RepoLock } from './repo-lock.js';

export const REPO_ENV = 'LEDGER_PATH';

/** `$LEDGER_PATH` with a leading `~` expanded, else `~/.ledger`. */
export function defaultRepoPath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[REPO_ENV];
  if (configured === undefined || configured === '') return join(homedir(), '.ledger');
  return resolve(configured.replace(/^~(?=$|\/)/, homedir()));
}

function readTrimmed(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return text === '' ? undefined : text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export class Repo {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  get configFile(): string {
    return join(this.path, 'config.toml');
  }

  get keystoreDirectory(): string {
    return join(this.path, 'keystore');
  }

  get tokenFile(): string {
    return join(this.path, 'token');
  }

  get apiFile(): string {
    return join(this.path, 'api');
  }

  /** Creates what is missing: the directory, a commented default config.toml, the keystore. */
  init(): void {
    mkdirSync(this.path, { recursive: true, mode: 0o700 });
    if (!existsSync(this.configFile)) writeFileSync(this.configFile, DEFAULT_CONFIG_TOML, { mode: 0o644 });
    mkdirSync(this.keystoreDirectory, { recursive: true, mode: 0o700 });
  }

  lock(): RepoLock {
    return RepoLock.acquire(join(this.path, 'repo.lock'), this.path);
  }

  readToken(): string | undefined {
    return readTrimmed(this.tokenFile);
  }

  writeToken(token: string): void {
    writeFileSync(this.tokenFile, token, { mode: 0o600 });
  }

  /** The API multiaddr a running daemon wrote, if any. */
  readApi(): string | undefined {
    return readTrimmed(this.apiFile);
  }

  writeApi(multiaddr: string): void {
    writeFileSync(this.apiFile, multiaddr, { mode: 0o644 });
  }

  removeApi(): void {
    rmSync(this.apiFile, { force: true });
  }
}
