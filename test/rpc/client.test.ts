/** The typed client against a real server: decoded results, and every failure as a LedgerError. */
import { createServer } from 'node:net';
import { JsonRpcError, NodeApi, NodeUnreachableError, RpcClient, RpcHttpError } from '../../src/rpc/index.js';
import { messageCid } from '../../src/types/index.js';
import { KeyType, verifySignature } from '../../src/wallet/index.js';
import { sampleMessage } from '../types/fixtures.js';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let api: NodeApi;

beforeAll(async () => {
  server = await startTestServer();
  api = new NodeApi(new RpcClient({ url: server.url(1), token: server.tokens.admin }));
});
afterAll(() => server.close());

test('typed wallet calls round-trip through JSON', async () => {
  const bls = await api.walletNew(KeyType.BLS);
  const secp = await api.walletNew(KeyType.Secp256k1);
  expect((await api.walletList()).map(String).sort()).toEqual([bls, secp].map(String).sort());
  expect((await api.walletDefaultAddress()).equals(bls)).toBe(true);
  await api.walletSetDefault(secp);
  expect((await api.walletDefaultAddress()).equals(secp)).toBe(true);
  expect(await api.walletHas(bls)).toBe(true);

  const data = new TextEncoder().encode('payload');
  const signature = await api.walletSign(bls, data);
  expect(verifySignature(bls, data, signature)).toBe(true);
  expect(await api.walletVerify(bls, data, signature)).toBe(true);
  expect(await api.walletVerify(secp, data, signature)).toBe(false);

  const message = sampleMessage({ from: secp });
  const signed = await api.walletSignMessage(secp, message);
  expect(verifySignature(secp, messageCid(message).bytes, signed.signature)).toBe(true);

  const keyInfo = await api.walletExport(secp);
  await api.walletDelete(secp);
  expect(await api.walletHas(secp)).toBe(false);
  expect((await api.walletImport(keyInfo)).equals(secp)).toBe(true);
});

test('authNew decodes the base64 token, and the token verifies', async () => {
  const token = await api.authNew(['read', 'write']);
  expect(token.split('.')).toHaveLength(3);
  expect(await api.authVerify(token)).toEqual(['read', 'write']);
});

test('version and discover', async () => {
  expect(await api.version()).toEqual({ Version: '0.1.0+devnet', APIVersion: 131840, BlockDelay: 4, Agent: 'ledger' });
  expect((await api.discover()).methods.length).toBeGreaterThan(10);
});

test('a JSON-RPC error is a JsonRpcError with the code and message', async () => {
  const anonymous = new NodeApi(new RpcClient({ url: server.url(1) }));
  const error = await anonymous.walletList().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(JsonRpcError);
  expect(error).toMatchObject({
    rpcCode: 1,
    code: 'ERR_RPC_CALL',
    message: "missing permission to invoke 'WalletList' (need 'write')",
  });
  const notFound = await api.rpc.request('Ledger.Nope').catch((e: unknown) => e);
  expect(notFound).toMatchObject({ rpcCode: -32601, code: 'ERR_RPC_METHOD_NOT_FOUND' });
  const badParams = await api.rpc.request('Ledger.WalletHas', [1]).catch((e: unknown) => e);
  expect(badParams).toMatchObject({ rpcCode: -32602, code: 'ERR_RPC_INVALID_PARAMS' });
});

test('a refused token is RpcHttpError 401 (ERR_RPC_UNAUTHORIZED)', async () => {
  const forged = new NodeApi(new RpcClient({ url: server.url(1), token: server.forgedToken }));
  const error = await forged.version().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RpcHttpError);
  expect(error).toMatchObject({ status: 401, code: 'ERR_RPC_UNAUTHORIZED' });
});

test('nothing listening is NodeUnreachableError saying to start the daemon', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const url = `http://127.0.0.1:${port}/rpc/v1`;
  const error = await new NodeApi(new RpcClient({ url })).version().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NodeUnreachableError);
  expect((error as Error).message).toBe(
    `cannot reach the node at ${url} (ECONNREFUSED): is \`ledger daemon\` running?`,
  );
});
