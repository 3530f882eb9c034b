/** WalletValidateAddress over HTTP (filecoin-project/lotus `api/api_full.go`): read permission, any network prefix in, the node's out. */
import { generateKey, KeyType } from '../../src/wallet/index.js';
import { call, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test('every protocol, with either network prefix, comes back in canonical form with the node’s prefix', async () => {
  const secp = generateKey(KeyType.Secp256k1).address.toString('f');
  const bls = generateKey(KeyType.BLS).address.toString('f');
  for (const address of ['f01000', secp, bls, 't01000']) {
    const reply = await call(server.url(), 'Filecoin.WalletValidateAddress', [address]);
    expect(reply.result).toBe(`t${address.slice(1)}`);
  }
  expect((await call(server.url(0), 'Filecoin.WalletValidateAddress', [secp])).result).toBe(`t${secp.slice(1)}`);
});

test('a bad checksum or a non-string is refused with the reason; the node keeps serving', async () => {
  const secp = generateKey(KeyType.Secp256k1).address.toString('t');
  // One base32 character of the payload changed: the checksum no longer matches.
  const corrupted = `${secp.slice(0, 5)}${secp[5] === 'a' ? 'b' : 'a'}${secp.slice(6)}`;
  const bad = await call(server.url(), 'Filecoin.WalletValidateAddress', [corrupted]);
  expect(bad.error?.code).toBe(1);
  expect(bad.error?.message).toMatch(/checksum/i);
  expect((await call(server.url(), 'Filecoin.WalletValidateAddress', [42])).error).toMatchObject({
    code: -32602,
    message: expect.stringContaining('address'),
  });
  expect((await call(server.url(), 'Filecoin.WalletValidateAddress', ['t01'])).result).toBe('t01');
});
