/**
 * `ledger wait-api` (the built CLI, `npm run build:ts` first) as a script uses it: started before
 * the daemon, it waits and exits 0 once the daemon's API answers; with no daemon it gives up after
 * its timeout with a message and exit code 1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEDGER_BIN, runLedger } from '../helpers/ledger-cli.js';

const built = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'bundle', 'main.js');
const source = fileURLToPath(new URL('../../src/cli/commands/wait-api.ts', import.meta.url));

let repo: string;
let daemon: ChildProcess | undefined;

beforeAll(() => {
  if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) {
    throw new Error('dist/ is missing or older than wait-api.ts: run `npm run build:ts` before the CLI tests');
  }
  repo = mkdtempSync(join(tmpdir(), 'ledger-wait-api-'));
});

afterAll(async () => {
  if (daemon !== undefined && daemon.exitCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((resolve) => daemon?.once('close', resolve));
  }
  rmSync(repo, { recursive: true, force: true });
});

test('with no node: "Not online yet..." each second, then a timeout message and exit code 1', async () => {
  const started = Date.now();
  const { code, stdout, stderr } = await runLedger(['wait-api', '--timeout', '2s'], { env: { LEDGER_PATH: repo } });
  const elapsed = Date.now() - started;
  expect(code).toBe(1);
  expect(stdout).toContain(`Not online yet... (cannot reach the node: ${join(repo, 'api')} does not exist`);
  expect(stdout.split('\n').filter((line) => line.startsWith('Not online yet...')).length).toBeGreaterThanOrEqual(2);
  expect(stderr).toContain('ledger: timed out after 2s waiting for the API to come online: cannot reach the node:');
  expect(stderr).toContain('(ERR_TIMEOUT)');
  expect(elapsed).toBeGreaterThanOrEqual(2000);
  expect(elapsed).toBeLessThan(15_000);
}, 30_000);

test('a bad --timeout is a usage error', async () => {
  const { code, stderr } = await runLedger(['wait-api', '--timeout', 'soon'], { env: { LEDGER_PATH: repo } });
  expect(code).toBe(1);
  expect(stderr).toContain('"soon" is not a duration like 90s, 10m or 1h');
});

test('started before the daemon, it waits and exits 0 once the API answers', async () => {
  const waiting = runLedger(['wait-api', '--timeout', '60s'], { env: { LEDGER_PATH: repo } });
  // Let it try (and fail) at least once before there is a daemon.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  daemon = spawn(process.execPath, [LEDGER_BIN, 'daemon', '--api', '0', '--network', 'devnet'], {
    env: { ...process.env, LEDGER_PATH: repo, LEDGER_API_INFO: '' },
    stdio: 'ignore',
  });
  const { code, stdout, stderr } = await waiting;
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toContain('Not online yet...');
  // It returned because the API answers: a call made now succeeds.
  const version = await runLedger(['version'], { env: { LEDGER_PATH: repo } });
  expect(version.code).toBe(0);
  expect(version.stdout).toMatch(/^Daemon: {2}0\.1\.0\+devnet/);
}, 90_000);
