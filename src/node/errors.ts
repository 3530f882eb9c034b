import { LedgerError } from '../utils/errors.js';

/** config.toml (or another file of the repo) is unreadable or has a value of the wrong type; the message names the file and key. */
export class ConfigError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CONFIG', message, options);
  }
}

/** Another process holds the repo (a second `ledger daemon` on the same directory). */
export class RepoLockedError extends LedgerError {
  constructor(path: string, pid: number) {
    super('ERR_REPO_LOCKED', `repo ${path} is in use by process ${pid} (is another \`ledger daemon\` running?)`);
  }
}

/** A storage-miner request names a miner this node does not run, or cannot run (no worker key here). */
export class NoSuchMinerError extends LedgerError {
  constructor(message: string) {
    super('ERR_NO_SUCH_MINER', message);
  }
}
