/**
 * `ledger devnet` as a user runs it (the built binary, dist/ from `npm run build:ts`), on a
 * temporary LEDGER_PATH: the Anvil-style banner (RPC URL, token, funded accounts with balances and
 * importable private keys, Ethereum accounts with their 0x and f410 addresses and raw keys), then `ledger chain head`, `chain get-tipset` and `wallet balance`
 * against it, and a restart that resumes the same devnet. Mining is off (`--no-mine`) so the chain
 * stays at genesis and every answer is known; mining is covered by devnet.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeAddress } from 'ethers';
import { Address, ethAddressFromAddress } from '../../src/types/index.js';
import { keyInfoFromLotusJson } from '../../src/wallet/index.js';
import { keyFromKeyInfo } from '../../src/wallet/keys.js';
import { LEDGER_BIN, type LedgerRun, runLedger } from '../helpers/ledger-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let repo: string;

function run(args: string[]): Promise<LedgerRun> {
  return runLedger(args, { env: { LEDGER_PATH: repo } });
}

/** Starts `ledger devnet` and resolves with its banner once it printed "Ready". */
function startDevnet(): Promise<{ child: ChildProcess; banner: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [LEDGER_BIN, 'devnet', '--api', '0', '--no-mine', '--accounts', '3', '--eth-accounts', '2'],
      {
        env: { ...process.env, LEDGER_PATH: repo },
      },
    );
    let banner = '';
    let log = '';
    child.stdout?.on('data', (chunk) => {
      banner += chunk;
      if (banner.includes('Ready in')) resolve({ child, banner });
    });
    child.stderr?.on('data', (chunk) => {
      log += chunk;
    });
    child.on('exit', (code) => reject(new Error(`ledger devnet exited with ${code}: ${log}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

beforeAll(() => {
  const built = join(root, 'dist', 'bundle', 'main.js');
  if (
    !existsSync(built) ||
    statSync(built).mtimeMs < statSync(join(root, 'src', 'cli', 'commands', 'devnet.ts')).mtimeMs
  ) {
    throw new Error('dist/ is missing or older than src/: run `npm run build:ts` before the CLI tests');
  }
  repo = mkdtempSync(join(tmpdir(), 'ledger-devnet-cli-'));
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

test('ledger devnet prints the RPC URL, token and funded accounts; chain and wallet commands read it; a restart resumes', async () => {
  const { child, banner } = await startDevnet();
  let accounts: string[];
  try {
    const url = /RPC URL: +(http:\/\/127\.0\.0\.1:\d+\/rpc\/v1)/.exec(banner)?.[1];
    expect(url).toBeDefined();
    expect(banner).toMatch(/Admin token: +eyJ/);
    accounts = [...banner.matchAll(/^\((\d)\) (t1[a-z0-9]+) \(10000 FIL\)/gm)].map((m) => m[2] as string);
    expect(accounts).toHaveLength(3);
    expect(banner).toContain(`(0) ${accounts[0]} (10000 FIL)  [default]`);
    // Each printed private key is the Lotus KeyInfo (hex) of the account on the same line number.
    const keys = [...banner.matchAll(/^\((\d)\) ([0-9a-f]{40,})$/gm)].map((m) => m[2] as string);
    expect(keys).toHaveLength(3);
    keys.forEach((hex, i) => {
      const keyInfo = keyInfoFromLotusJson(JSON.parse(Buffer.from(hex, 'hex').toString()));
      expect(keyFromKeyInfo(keyInfo).address.toString('t')).toBe(accounts[i]);
    });
    expect(banner).toMatch(/t01000 \(worker t3/);
    // Ethereum accounts as Anvil prints them: 0x address, f410 address, balance; then raw 0x keys.
    expect(banner).toContain('Ethereum Accounts (chain id 31415926)');
    const ethAccounts = [...banner.matchAll(/^\((\d)\) (0x[0-9a-f]{40}) (t410f[a-z2-7]{39}) \(10000 FIL\)$/gm)];
    expect(ethAccounts).toHaveLength(2);
    const ethKeys = [...banner.matchAll(/^\((\d)\) (0x[0-9a-f]{64})$/gm)].map((m) => m[2] as string);
    expect(ethKeys).toHaveLength(2);
    ethAccounts.forEach(([, , ethAddress, filecoinAddress], i) => {
      expect(ethAddressFromAddress(Address.fromString(filecoinAddress as string))).toBe(ethAddress);
      expect(computeAddress(ethKeys[i] as string).toLowerCase()).toBe(ethAddress);
    });
    const ethAccount = ethAccounts[0]?.[3] as string;
    expect((await run(['wallet', 'balance', ethAccount])).stdout).toBe('10000 FIL\n');

    const head = await run(['chain', 'head']);
    expect(head.code).toBe(0);
    expect(head.stdout).toMatch(/^bafy2bzace[a-z0-9]+\n$/);
    expect((await run(['chain', 'head', '--height'])).stdout).toBe('0\n');
    expect((await run(['chain', 'get-tipset', '--height', '0', '--cids'])).stdout).toBe(head.stdout);
    const tipSet = JSON.parse((await run(['chain', 'get-tipset', '--height', '0'])).stdout);
    expect(tipSet.Height).toBe(0);
    expect(tipSet.Blocks[0].Miner).toBe('t00');
    const tooHigh = await run(['chain', 'get-tipset', '--height', '7']);
    expect(tooHigh.code).toBe(1);
    expect(tooHigh.stderr).toContain('looking for tipset with height greater than start point, req: 7, head: 0');
    expect((await run(['chain', 'get-tipset', '--height', 'x'])).code).not.toBe(0);

    expect(await run(['wallet', 'balance'])).toMatchObject({ code: 0, stdout: '10000 FIL\n' });
    expect((await run(['wallet', 'balance', accounts[2] as string])).stdout).toBe('10000 FIL\n');
    expect((await run(['wallet', 'balance', 't1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba'])).stdout).toBe('0 FIL\n');
  } finally {
    expect(await stop(child)).toBe(0);
  }

  const again = await startDevnet();
  try {
    expect(again.banner).toContain(`(0) ${accounts[0]} (10000 FIL)  [default]`);
    expect([...again.banner.matchAll(/^\(\d\) (t1[a-z0-9]+) /gm)].map((m) => m[1])).toEqual(accounts);
  } finally {
    await stop(again.child);
  }
}, 120_000);
