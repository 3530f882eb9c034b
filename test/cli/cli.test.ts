/**
 * The `ledger` binary end to end: a real `ledger daemon` (dist/, from `npm run build:ts`) on a
 * temporary LEDGER_PATH and a free port, and the wallet, auth and version commands against it —
 * their output formats and exit codes, and the errors a user sees when the node is not there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEDGER_BIN, type LedgerRun, runLedger } from '../helpers/ledger-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<LedgerRun> {
  return runLedger(args, { ...options, env: { LEDGER_PATH: repo, ...options.env } });
}

/** Fails early, and says why, when dist/ is older than the sources it is built from. */
function assertBuildIsFresh(): void {
  const newest = (dir: string): number =>
    Math.max(
      ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
        entry.isDirectory() ? newest(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs,
      ),
    );
  const built = join(root, 'dist', 'bundle', 'main.js');
  const sources = ['cli', 'rpc', 'wallet', 'node'].map((d) => newest(join(root, 'src', d)));
  if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources)) {
    throw new Error('dist/ is missing or older than src/: run `npm run build:ts` before the CLI tests');
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let repo: string;
let daemon: ChildProcess;
let daemonLog = '';
let port: number;

beforeAll(async () => {
  assertBuildIsFresh();
  repo = mkdtempSync(join(tmpdir(), 'ledger-cli-'));
  daemon = spawn(process.execPath, [LEDGER_BIN, 'daemon', '--api', '0', '--network', 'devnet'], {
    env: { ...process.env, LEDGER_PATH: repo },
  });
  daemon.stderr?.on('data', (chunk) => {
    daemonLog += chunk;
  });
  // The api file is written just before the 'node started' line reaches stderr: wait for both.
  await waitFor(
    () => existsSync(join(repo, 'api')) && daemonLog.includes('node started'),
    `the daemon's api file and start line (log: ${daemonLog})`,
  );
  port = Number(readFileSync(join(repo, 'api'), 'utf8').split('/')[4]);
});

afterAll(async () => {
  if (daemon.exitCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon.once('close', r));
  }
  rmSync(repo, { recursive: true, force: true });
});

const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString());

test('the daemon initialised the repo and wrote the api file with the port it got', () => {
  expect(port).toBeGreaterThan(0);
  expect(readFileSync(join(repo, 'api'), 'utf8')).toBe(`/ip4/127.0.0.1/tcp/${port}/http`);
  expect(statSync(join(repo, 'token')).mode & 0o777).toBe(0o600);
  expect(daemonLog).toContain('node started');
});

test('version prints the daemon and the local version', async () => {
  const { code, stdout } = await run(['version']);
  expect(code).toBe(0);
  expect(stdout).toBe('Daemon:  0.1.0+devnet+api2.3.0\nLocal: ledger version 0.1.0 (API 2.3.0)\n');
  const json = JSON.parse((await run(['version', '--json'])).stdout);
  expect(json).toEqual({
    daemon: { Version: '0.1.0+devnet', APIVersion: 131840, BlockDelay: 4, Agent: 'ledger' },
    local: '0.1.0',
  });
});

describe('wallet', () => {
  let secp: string;
  let bls: string;

  test('new prints a t1 address by default and a t3 address for bls', async () => {
    const first = await run(['wallet', 'new']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^t1[a-z2-7]{39}\n$/);
    secp = first.stdout.trim();
    const second = await run(['wallet', 'new', 'bls']);
    expect(second.stdout).toMatch(/^t3[a-z2-7]{84}\n$/);
    bls = second.stdout.trim();
  });

  test('new with an unknown type is a usage error, exit 1', async () => {
    const { code, stderr } = await run(['wallet', 'new', 'ed25519']);
    expect(code).toBe(1);
    expect(stderr).toContain('expected one of bls, secp256k1');
  });

  test('list prints Lotus’s table with X on the default; -a and --json', async () => {
    const table = await run(['wallet', 'list']);
    expect(table.code).toBe(0);
    const width = bls.length + 2;
    expect(table.stdout).toBe(
      `${'Address'.padEnd(width)}Default  \n${secp.padEnd(width)}X        \n${bls.padEnd(width)}         \n`,
    );
    expect((await run(['wallet', 'list', '-a'])).stdout).toBe(`${secp}\n${bls}\n`);
    expect(JSON.parse((await run(['wallet', 'list', '--json'])).stdout)).toEqual([
      { address: secp, default: true },
      { address: bls, default: false },
    ]);
  });

  test('default and set-default', async () => {
    expect((await run(['wallet', 'default'])).stdout).toBe(`${secp}\n`);
    const set = await run(['wallet', 'set-default', bls]);
    expect(set).toMatchObject({ code: 0, stdout: `Default address set to: ${bls}\n` });
    expect((await run(['wallet', 'default'])).stdout).toBe(`${bls}\n`);
  });

  test('sign prints type byte + signature in hex; verify says valid (0) or invalid (1)', async () => {
    const signed = await run(['wallet', 'sign', secp, 'cafe01']);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(/^01[0-9a-f]{130}\n$/);
    const signature = signed.stdout.trim();
    expect(await run(['wallet', 'verify', secp, 'cafe01', signature])).toMatchObject({ code: 0, stdout: 'valid\n' });
    const wrong = await run(['wallet', 'verify', secp, 'cafe02', signature]);
    expect(wrong).toMatchObject({ code: 1, stdout: 'invalid\n' });
    expect(wrong.stderr).toContain('CLI Verify called with invalid signature');
    // Signed inside the FRC-0102 envelope, so the raw bytes do not verify.
    expect((await run(['wallet', 'verify', '--raw', secp, 'cafe01', signature])).stdout).toBe('invalid\n');

    const blsSigned = (await run(['wallet', 'sign', '--raw', bls, 'cafe01'])).stdout.trim();
    expect(blsSigned).toMatch(/^02[0-9a-f]{192}$/);
    expect((await run(['wallet', 'verify', '--raw', bls, 'cafe01', blsSigned])).stdout).toBe('valid\n');
  });

  test('bad arguments are usage errors naming the problem', async () => {
    const badAddress = await run(['wallet', 'sign', 't1nope', 'cafe']);
    expect(badAddress.code).toBe(1);
    expect(badAddress.stderr).toMatch(/value 't1nope' is invalid for argument 'address'/);
    expect((await run(['wallet', 'sign', secp, 'xyz'])).stderr).toContain('not a hex string');
  });

  test('export prints the hex of the KeyInfo JSON; delete soft-deletes; import brings it back', async () => {
    const exported = await run(['wallet', 'export', secp]);
    expect(exported.code).toBe(0);
    const keyInfo = JSON.parse(Buffer.from(exported.stdout.trim(), 'hex').toString());
    expect(keyInfo).toEqual({ Type: 'secp256k1', PrivateKey: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/) });
    const json = (await run(['wallet', 'export', '--format', 'json-lotus', secp])).stdout.trim();
    expect(JSON.parse(json)).toEqual(keyInfo);
    const eth = (await run(['wallet', 'export', '--format', 'hex-eth', secp])).stdout.trim();
    expect(Buffer.from(eth.slice(2), 'hex').toString('base64')).toBe(keyInfo.PrivateKey);

    const deleted = await run(['wallet', 'delete', secp]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(
      `Soft deleting address: ${secp}\nHard deletion of the address in \`${join(repo, 'keystore')}\` is needed for permanent removal\n`,
    );
    expect((await run(['wallet', 'list', '-a'])).stdout).toBe(`${bls}\n`);

    const imported = await run(['wallet', 'import'], { input: `${exported.stdout}` });
    expect(imported).toMatchObject({ code: 0, stdout: `imported key ${secp} successfully!\n` });

    await run(['wallet', 'delete', secp]);
    const file = join(repo, 'key.json');
    writeFileSync(file, json);
    const fromFile = await run(['wallet', 'import', '--format', 'json-lotus', '--as-default', file]);
    expect(fromFile.stdout).toBe(`imported key ${secp} successfully!\n`);
    expect((await run(['wallet', 'default'])).stdout).toBe(`${secp}\n`);
  });

  test('import of garbage is a clear error, exit 1', async () => {
    const { code, stderr } = await run(['wallet', 'import'], { input: 'zz\n' });
    expect(code).toBe(1);
    expect(stderr).toContain('the key is not hex');
  });
});

describe('auth', () => {
  test('create-token --perm mints a token with that permission and the ones below', async () => {
    const { code, stdout } = await run(['auth', 'create-token', '--perm', 'sign']);
    expect(code).toBe(0);
    expect(payloadOf(stdout.trim())).toEqual({ Allow: ['read', 'write', 'sign'] });
  });

  test('create-token without or with a wrong --perm fails with Lotus’s messages', async () => {
    const missing = await run(['auth', 'create-token']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--perm flag not set');
    const wrong = await run(['auth', 'create-token', '--perm', 'root']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('--perm flag has to be one of: [read write sign admin]');
    expect((await run(['auth', 'api-info'])).stderr).toContain(
      '--perm flag not set, use with one of: read, write, sign, admin',
    );
  });

  test('api-info prints LEDGER_API_INFO=<token>:<multiaddr>, which the CLI then uses', async () => {
    const { code, stdout } = await run(['auth', 'api-info', '--perm', 'read']);
    expect(code).toBe(0);
    const match = /^LEDGER_API_INFO=([\w-]+\.[\w-]+\.[\w-]+):(\/ip4\/127\.0\.0\.1\/tcp\/(\d+)\/http)\n$/.exec(stdout);
    expect(match?.[3]).toBe(String(port));
    expect(payloadOf(match?.[1] as string)).toEqual({ Allow: ['read'] });

    // With only the env var (and a repo without api file), a read token reads but cannot list keys.
    const elsewhere = mkdtempSync(join(tmpdir(), 'ledger-cli-empty-'));
    try {
      const env = { LEDGER_PATH: elsewhere, LEDGER_API_INFO: stdout.trim().slice('LEDGER_API_INFO='.length) };
      expect((await run(['version'], { env })).code).toBe(0);
      const denied = await run(['wallet', 'list'], { env });
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain("missing permission to invoke 'WalletList' (need 'write')");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('no node', () => {
  test('a repo without an api file: the error says to run the daemon, exit 1', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ledger-cli-empty-'));
    try {
      const { code, stdout, stderr } = await run(['wallet', 'list'], { env: { LEDGER_PATH: empty } });
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain(`cannot reach the node: ${join(empty, 'api')} does not exist`);
      expect(stderr).toContain('`ledger daemon`');
      // The same through the global --repo option.
      expect((await run(['--repo', empty, 'version'])).stderr).toContain(join(empty, 'api'));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('an address where nothing listens: "cannot reach the node at …: is `ledger daemon` running?", exit 1', async () => {
    const closed = await freePort();
    const { code, stderr } = await run(['version'], {
      env: { LEDGER_API_INFO: `/ip4/127.0.0.1/tcp/${closed}/http` },
    });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `cannot reach the node at http://127.0.0.1:${closed}/rpc/v1 (ECONNREFUSED): is \`ledger daemon\` running?`,
    );
  });
});

test('SIGTERM stops the daemon cleanly: exit 0, api file and lock removed', async () => {
  const closed = new Promise<number | null>((resolve) => daemon.once('close', resolve));
  daemon.kill('SIGTERM');
  expect(await closed).toBe(0);
  expect(existsSync(join(repo, 'api'))).toBe(false);
  expect(existsSync(join(repo, 'repo.lock'))).toBe(false);
  expect(daemonLog).toContain('node stopped');
});
