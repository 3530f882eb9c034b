/**
 * The typed client (LedgerApi, derived from the method declarations) against a real server: Lotus
 * JSON both ways, decoded here with the types' codecs, and every failure as a LedgerError.
 */
import { createServer } from 'node:net';
import {
  JsonRpcError,
  type LedgerApi,
  ledgerApi,
  NodeUnreachableError,
  RpcClient,
  RpcHttpError,
} from '../../src/rpc/index.js';
import {
  addressFromLotusJson,
  messageCid,
  messageToLotusJson,
  readJsonBytes,
  signatureFromLotusJson,
  signatureToLotusJson,
  signedMessageFromLotusJson,
} from '../../src/types/index.js';
import { toBase64 } from '../../src/utils/bytes.js';
import { KeyType, keyInfoFromLotusJson, keyInfoToLotusJson, verifySignature } from '../../src/wallet/index.js';
import { sampleMessage } from '../types/fixtures.js';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let rpc: RpcClient;
let api: LedgerApi;

beforeAll(async () => {
  server = await startTestServer();
  rpc = new RpcClient({ url: server.url(1), token: server.tokens.admin });
  api = ledgerApi(rpc);
});
afterAll(() => server.close());

test('typed wallet calls round-trip through JSON', async () => {
  const bls = addressFromLotusJson(await api.WalletNew(KeyType.BLS));
  const secp = addressFromLotusJson(await api.WalletNew(KeyType.Secp256k1));
  expect((await api.WalletList()).map(String).sort()).toEqual([bls, secp].map(String).sort());
  expect(addressFromLotusJson(await api.WalletDefaultAddress()).equals(bls)).toBe(true);
  await api.WalletSetDefault(secp.toString());
  expect(addressFromLotusJson(await api.WalletDefaultAddress()).equals(secp)).toBe(true);
  expect(await api.WalletHas(bls.toString())).toBe(true);

  const data = new TextEncoder().encode('payload');
  const signature = signatureFromLotusJson(await api.WalletSign(bls.toString(), toBase64(data)));
  expect(verifySignature(bls, data, signature)).toBe(true);
  expect(await api.WalletVerify(bls.toString(), toBase64(data), signatureToLotusJson(signature))).toBe(true);
  expect(await api.WalletVerify(secp.toString(), toBase64(data), signatureToLotusJson(signature))).toBe(false);

  const message = sampleMessage({ from: secp });
  const signed = signedMessageFromLotusJson(await api.WalletSignMessage(secp.toString(), messageToLotusJson(message)));
  expect(verifySignature(secp, messageCid(message).bytes, signed.signature)).toBe(true);

  const keyInfo = keyInfoFromLotusJson(await api.WalletExport(secp.toString()));
  await api.WalletDelete(secp.toString());
  expect(await api.WalletHas(secp.toString())).toBe(false);
  expect(addressFromLotusJson(await api.WalletImport(keyInfoToLotusJson(keyInfo))).equals(secp)).toBe(true);
});

test('AuthNew answers the base64 token, and the token verifies', async () => {
  const token = new TextDecoder().decode(readJsonBytes(await api.AuthNew(['read', 'write']), 'AuthNew'));
  expect(token.split('.')).toHaveLength(3);
  expect(await api.AuthVerify(token)).toEqual(['read', 'write']);
});

test('version and discover', async () => {
  expect(await api.Version()).toEqual({ Version: '0.1.0+devnet', APIVersion: 131840, BlockDelay: 4, Agent: 'ledger' });
  expect((await api.Discover()).methods.length).toBeGreaterThan(10);
});

test('a JSON-RPC error is a JsonRpcError with the code and message', async () => {
  const anonymous = ledgerApi(new RpcClient({ url: server.url(1) }));
  const error = await anonymous.WalletList().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(JsonRpcError);
  expect(error).toMatchObject({
    rpcCode: 1,
    code: 'ERR_RPC_CALL',
    message: "missing permission to invoke 'WalletList' (need 'write')",
  });
  const notFound = await rpc.request('Ledger.Nope').catch((e: unknown) => e);
  expect(notFound).toMatchObject({ rpcCode: -32601, code: 'ERR_RPC_METHOD_NOT_FOUND' });
  const badParams = await rpc.request('Ledger.WalletHas', [1]).catch((e: unknown) => e);
  expect(badParams).toMatchObject({ rpcCode: -32602, code: 'ERR_RPC_INVALID_PARAMS' });
});

test('a refused token is RpcHttpError 401 (ERR_RPC_UNAUTHORIZED)', async () => {
  const forged = ledgerApi(new RpcClient({ url: server.url(1), token: server.forgedToken }));
  const error = await forged.Version().catch((e: unknown) => e);
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
  const error = await ledgerApi(new RpcClient({ url }))
    .Version()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NodeUnreachableError);
  expect((error as Error).message).toBe(
    `cannot reach the node at ${url} (ECONNREFUSED): is \`ledger daemon\` running?`,
  );
});

test('the client is typed by the declarations: results as Lotus JSON, unknown methods refused at compile time', async () => {
  const version = await api.Version();
  const agent: string = version.Agent;
  expect(agent).toBe('ledger');
  // A method served on /rpc/v0 only, and one nobody declares, are no members of the v1 client.
  // @ts-expect-error StateWaitMsgLimited is v0 only
  expect(typeof api.StateWaitMsgLimited).toBe('function');
  // @ts-expect-error no such method
  await expect(api.ChainHeadd()).rejects.toMatchObject({ rpcCode: -32601 });
  // Not a thenable: an awaited client stays the client.
  expect(await Promise.resolve(api)).toBe(api);
});
