/**
 * `ledger daemon --import-snapshot|--import-chain <file>`: imports a snapshot into the repo's chain
 * database before the node starts, holding the repo lock meanwhile. The snapshot must be of the
 * chain the repo's network names — for a devnet, the genesis in its `devnet.json` (copy that file
 * from a node of the devnet to join it, as Lotus nodes share a genesis). A failed import leaves
 * the repo as it was: nothing is committed, and a database file the import created is removed.
 */
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type ImportMode, type ImportSummary, importSnapshot } from '../chain/snapshot/index.js';
import { LedgerDatabase } from '../db/index.js';
import { DATABASE_FILE, devnetParams } from '../node/chain-services.js';
import { hasDevnet, readDevnet } from '../node/devnet.js';
import { Repo } from '../node/repo.js';
import { LedgerError } from '../utils/errors.js';
import { type ByteProgress, createByteProgress, formatBytes } from './byte-progress.js';

export interface RepoImportOptions {
  readonly repoPath: string;
  readonly file: string;
  readonly mode: ImportMode;
  /** Draw a progress bar on stderr (the daemon does; tests do not). */
  readonly showProgress?: boolean;
}

export async function importSnapshotIntoRepo(options: RepoImportOptions): Promise<ImportSummary> {
  const repo = new Repo(options.repoPath);
  if (!hasDevnet(repo.path)) {
    throw new LedgerError(
      'ERR_SNAPSHOT_NO_NETWORK',
      `cannot import ${options.file}: the repo ${repo.path} names no chain to import into (no devnet.json; copy it from a node of the devnet)`,
    );
  }
  const devnet = readDevnet(repo.path);
  repo.init();
  const lock = repo.lock();
  const dbPath = join(repo.path, DATABASE_FILE);
  const created = !existsSync(dbPath);
  const createdDirectory = !existsSync(dirname(dbPath));
  let progress: ByteProgress | undefined;
  let db: LedgerDatabase | undefined;
  try {
    db = LedgerDatabase.open(dbPath);
    const summary = await importSnapshot(db, options.file, {
      mode: options.mode,
      params: devnetParams(devnet),
      expectedGenesis: devnet.genesisCid,
      onProgress: (event) => {
        if (options.showProgress !== true) return;
        progress ??= createByteProgress('Importing snapshot', event.totalBytes);
        const step =
          event.phase === 'reading'
            ? `${event.blocks} blocks`
            : `validating: epoch ${event.epoch ?? '?'} of ${event.headEpoch ?? '?'}`;
        progress.update(event.bytesRead, step);
      },
    });
    progress?.stop();
    if (options.showProgress === true) {
      process.stderr.write(
        `Imported ${summary.full ? 'full' : 'minimal'} snapshot: head at epoch ${summary.head.height}, ` +
          `${summary.blocks} blocks (${formatBytes(summary.fileBytes)}), state from epoch ${summary.full ? 0 : summary.oldestStateEpoch}\n`,
      );
    }
    return summary;
  } catch (error) {
    progress?.stop();
    db?.close();
    db = undefined;
    if (created) for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
    // Opening the database made its directory (under the repo lock, so all in it is ours): it goes too.
    if (createdDirectory) rmSync(dirname(dbPath), { recursive: true, force: true });
    throw error;
  } finally {
    db?.close();
    lock.release();
  }
}
