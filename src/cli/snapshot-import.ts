/**
 * `ledger daemon --import-snapshot|--import-chain <file>`: imports a snapshot into the repo's chain
 * database before the node starts, holding the repo lock meanwhile. The snapshot must be of the
 * chain the repo's network names — its `network.json` (written from `--network <definition>` on the
 * first import) or, for a devnet, the genesis in its `devnet.json` (copy that file from a node of the
 * devnet to join it, as Lotus nodes share a genesis). A failed import leaves the repo as it was:
 * nothing is committed, and a database file or network definition the import wrote is removed.
 */
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type ImportMode, type ImportSummary, importSnapshot } from '../chain/snapshot/index.js';
import { LedgerDatabase } from '../db/index.js';
import { DATABASE_FILE } from '../node/chain-services.js';
import type { NetworkDefinition } from '../node/network-definition.js';
import { networkDefinitionFile, settleRepoNetwork } from '../node/network-repo.js';
import { Repo } from '../node/repo.js';
import { LedgerError } from '../utils/errors.js';
import { type ByteProgress, createByteProgress, formatBytes } from './byte-progress.js';

export interface RepoImportOptions {
  readonly repoPath: string;
  readonly file: string;
  readonly mode: ImportMode;
  /** Draw a progress bar on stderr (the daemon does; tests do not). */
  readonly showProgress?: boolean;
  /** The network of the snapshot (`--network`), for a repo that names none yet; kept in the repo. */
  readonly network?: NetworkDefinition | undefined;
}

export async function importSnapshotIntoRepo(options: RepoImportOptions): Promise<ImportSummary> {
  const repo = new Repo(options.repoPath);
  repo.init();
  const lock = repo.lock();
  const networkFile = networkDefinitionFile(repo.path);
  const createdNetworkFile = !existsSync(networkFile);
  let network: NetworkDefinition | undefined;
  try {
    network = settleRepoNetwork(repo.path, options.network);
  } catch (error) {
    lock.release();
    throw error;
  }
  const genesis = network?.genesis;
  if (network === undefined || genesis === undefined) {
    lock.release();
    throw new LedgerError(
      'ERR_SNAPSHOT_NO_NETWORK',
      `cannot import ${options.file}: the repo ${repo.path} names no chain to import into (give --network <definition file>, or copy the devnet's devnet.json into it)`,
    );
  }
  const dbPath = join(repo.path, DATABASE_FILE);
  const created = !existsSync(dbPath);
  const createdDirectory = !existsSync(dirname(dbPath));
  let progress: ByteProgress | undefined;
  let db: LedgerDatabase | undefined;
  try {
    db = LedgerDatabase.open(dbPath);
    const summary = await importSnapshot(db, options.file, {
      mode: options.mode,
      params: network.params,
      expectedGenesis: genesis.cid,
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
    // So does the network definition this import wrote: the repo names no network again.
    if (createdNetworkFile) rmSync(networkFile, { force: true });
    throw error;
  } finally {
    db?.close();
    lock.release();
  }
}
