/**
 * A snapshot whose CAR header varint is over-long (issue 18): `ledger daemon --import-snapshot`
 * and `--import-chain` answer a clear error and exit 1 with no stack trace, and the repo is
 * exactly as it was — every file's name, mode and bytes. Once in process (`importSnapshotIntoRepo`,
 * what the daemon command calls) and once through the built CLI (`bin/ledger.js`, dist/ from
 * `npm run build:ts`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SnapshotError } from '../../src/chain/snapshot/index.js';
import { importSnapshotIntoRepo } from '../../src/cli/snapshot-import.js';
import { DATABASE_FILE } from '../../src/node/chain-services.js';
import { DEVNET_FILE } from '../../src/node/devnet.js';
import { Repo } from '../../src/node/repo.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'ledger.js');
/** Eleven varint bytes (go-varint reads at most 9), then the start of a CAR header. */
const OVER_LONG_CAR = Buffer.from('ffffffffffffffffffff01a265726f6f747380', 'hex');
const REASON = 'at byte 0: the length varint is over-long (more than 9 bytes)';

/** Every file and directory under `dir`: path, mode, and a hash of the bytes. */
function tree(dir: string): string[] {
  const walk = (at: string): string[] =>
    readdirSync(at, { withFileTypes: true }).flatMap((entry) => {
      const path = join(at, entry.name);
      const mode = statSync(path).mode.toString(8);
      if (entry.isDirectory()) return [`${relative(dir, path)}/ ${mode}`, ...walk(path)];
      return [`${relative(dir, path)} ${mode} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`];
    });
  return walk(dir).sort();
}

/** A repo that knows a devnet (as after copying its devnet.json) and a corrupt snapshot beside it. */
function repoWithDevnet(): { dir: string; repo: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-snapshot-cli-'));
  const repo = join(dir, 'repo');
  new Repo(repo).init();
  writeFileSync(
    join(repo, DEVNET_FILE),
    JSON.stringify({
      NetworkName: 'localnet-fuzz',
      Genesis: 'bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2',
      GenesisTimestamp: '1700000000',
      BlockDelaySecs: '4',
      Miner: 't01000',
      Worker: 't01000',
      SectorDirectory: 'sectors',
      BeaconSeed: '00',
      Accounts: [],
    }),
  );
  const file = join(dir, 'over-long.car');
  writeFileSync(file, OVER_LONG_CAR);
  return { dir, repo, file };
}

test('importSnapshotIntoRepo refuses the file with ERR_SNAPSHOT_CORRUPT and leaves the repo as it was', async () => {
  const { dir, repo, file } = repoWithDevnet();
  try {
    const before = tree(repo);
    const error = await importSnapshotIntoRepo({ repoPath: repo, file, mode: 'snapshot' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_CORRUPT');
    expect((error as Error).message).toBe(`snapshot ${file} is corrupt or truncated after 0 blocks: ${REASON}`);
    expect(existsSync(join(repo, DATABASE_FILE))).toBe(false);
    expect(tree(repo)).toEqual(before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the built CLI', () => {
  beforeAll(() => {
    const built = join(root, 'dist', 'bundle', 'main.js');
    const source = join(root, 'src', 'chain', 'snapshot', 'car-reader.ts');
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) {
      throw new Error('dist/ is missing or older than src/: run `npm run build:ts` before the CLI tests');
    }
  });

  test.each(['--import-snapshot', '--import-chain'])(
    'ledger daemon %s <over-long varint> exits 1 with a one-line error, repo unchanged',
    (flag) => {
      const { dir, repo, file } = repoWithDevnet();
      try {
        const before = tree(repo);
        const run = spawnSync(process.execPath, [bin, '--repo', repo, 'daemon', flag, file], {
          encoding: 'utf8',
          env: { ...process.env, LEDGER_PATH: repo },
          timeout: 60_000,
        });
        expect(run.stderr).toBe(
          `ledger: snapshot ${file} is corrupt or truncated after 0 blocks: ${REASON} (ERR_SNAPSHOT_CORRUPT)\n`,
        );
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(run.status).toBe(1);
        expect(tree(repo)).toEqual(before);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
