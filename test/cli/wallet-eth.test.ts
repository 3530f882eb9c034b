/**
 * `ledger wallet` with Ethereum keys, through the CLI's `main()` in this process against a real RPC
 * server with a file keystore: `wallet new delegated`, and import/export of a raw `0x…` private key
 * (`--format hex-eth`, as MetaMask shows keys; `--type delegated` by default, as in Lotus) beside
 * Lotus's KeyInfo formats.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeAddress } from 'ethers';
import { Address, ethAddressFromAddress } from '../../src/types/index.js';
import { runCli } from '../helpers/cli-in-process.js';
import { startTestServer, type TestServer } from '../rpc/harness.js';

let server: TestServer;
let apiInfo: string;

beforeAll(async () => {
  server = await startTestServer();
  apiInfo = `${server.tokens.admin}:${server.url().replace(/\/rpc\/v1$/, '')}`;
});
afterAll(() => server.close());

/** Runs `ledger <args>` and returns what it printed on stdout and stderr. */
async function ledger(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return runCli(apiInfo, args);
}

test('wallet new delegated, export --format hex-eth, delete, import of the 0x key: the same f410 address', async () => {
  const created = (await ledger('wallet', 'new', 'delegated')).stdout.trim();
  expect(created).toMatch(/^t410f[a-z2-7]{39}$/);

  const key = (await ledger('wallet', 'export', '--format', 'hex-eth', created)).stdout.trim();
  expect(key).toMatch(/^0x[0-9a-f]{64}$/);
  expect(computeAddress(key).toLowerCase()).toBe(ethAddressFromAddress(Address.fromString(created)));
  const lotusHex = (await ledger('wallet', 'export', created)).stdout.trim();
  expect(JSON.parse(Buffer.from(lotusHex, 'hex').toString())).toEqual({
    Type: 'delegated',
    PrivateKey: Buffer.from(key.slice(2), 'hex').toString('base64'),
  });

  await ledger('wallet', 'delete', created);
  expect((await ledger('wallet', 'list', '-a')).stdout).not.toContain(created);
  const file = join(server.directory, 'metamask-key.txt');
  writeFileSync(file, `${key}\n`);
  expect((await ledger('wallet', 'import', '--format', 'hex-eth', file)).stdout).toBe(
    `imported key ${created} successfully!\n`,
  );
  // The same raw key as an f1 key, and the Lotus KeyInfo (hex) of the delegated key, still import.
  const asSecp = (await ledger('wallet', 'import', '--format', 'hex-eth', '--type', 'secp256k1', file)).stdout;
  expect(asSecp).toMatch(/^imported key t1[a-z2-7]+ successfully!\n$/);
  await ledger('wallet', 'delete', created);
  writeFileSync(file, lotusHex);
  expect((await ledger('wallet', 'import', file)).stdout).toBe(`imported key ${created} successfully!\n`);
});

test('hex-eth export of a BLS key is refused naming the key types it takes', async () => {
  const bls = (await ledger('wallet', 'new', 'bls')).stdout.trim();
  const { stdout, stderr } = await ledger('wallet', 'export', '--format', 'hex-eth', bls);
  expect(stdout).toBe('');
  expect(stderr).toContain('hex-eth format requires a secp256k1 or delegated key, got: bls');
});
