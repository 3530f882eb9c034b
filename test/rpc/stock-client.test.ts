/**
 * A stock Filecoin client, iso-filecoin as published on npm, used unchanged through the
 * `Filecoin.` alias: it creates keys, signs and lists them. The signatures are then checked with
 * independent code — @noble/curves and @noble/hashes — not with this node's native crypto.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { fromString } from 'iso-filecoin/address';
import { RPC } from 'iso-filecoin/rpc';
import { startTestServer, type TestServer } from './harness.js';

const FILECOIN_BLS_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_';

let server: TestServer;
let rpc: RPC;

beforeAll(async () => {
  server = await startTestServer();
  rpc = new RPC({ api: server.url(1), token: server.tokens.admin, network: 'testnet' });
});
afterAll(() => server.close());

async function invoke<T>(method: string, params: unknown[] = []): Promise<T> {
  const { result, error } = await rpc.call({ method: `Filecoin.${method}`, params } as never);
  if (error !== undefined) throw error;
  return result as T;
}

interface SignatureJson {
  Type: number;
  Data: string;
}

const data = new TextEncoder().encode('signed by the node, checked by noble');
const dataBase64 = Buffer.from(data).toString('base64');

test('version() of the stock client works against the node', async () => {
  const { result, error } = await rpc.version();
  expect(error).toBeUndefined();
  expect(result).toMatchObject({ APIVersion: 131840, BlockDelay: 4 });
});

test('WalletNew, WalletSign and WalletList through the stock client; secp256k1 checks out with noble', async () => {
  const address = await invoke<string>('WalletNew', ['secp256k1']);
  expect(address).toMatch(/^t1/);
  const signature = await invoke<SignatureJson>('WalletSign', [address, dataBase64]);
  expect(signature.Type).toBe(1);

  const bytes = Buffer.from(signature.Data, 'base64');
  expect(bytes).toHaveLength(65);
  // Filecoin: r || s || v over blake2b-256(data); noble's recovered format puts v first.
  const recovered = secp256k1.recoverPublicKey(
    new Uint8Array([bytes[64] as number, ...bytes.subarray(0, 64)]),
    blake2b(data, { dkLen: 32 }),
    { prehash: false },
  );
  const uncompressed = secp256k1.Point.fromBytes(recovered).toBytes(false);
  expect(Buffer.from(blake2b(uncompressed, { dkLen: 20 }))).toEqual(Buffer.from(fromString(address).payload));
  expect(secp256k1.verify(bytes.subarray(0, 64), blake2b(data, { dkLen: 32 }), uncompressed, { prehash: false })).toBe(
    true,
  );

  expect(await invoke<string[]>('WalletList')).toContain(address);
});

test('a BLS signature from WalletSign verifies with noble under the _NUL_ DST', async () => {
  const address = await invoke<string>('WalletNew', ['bls']);
  expect(address).toMatch(/^t3/);
  const signature = await invoke<SignatureJson>('WalletSign', [address, dataBase64]);
  expect(signature.Type).toBe(2);

  const publicKey = fromString(address).payload;
  const bls = bls12_381.longSignatures;
  const sig = Buffer.from(signature.Data, 'base64');
  expect(bls.verify(sig, bls.hash(data, FILECOIN_BLS_DST), publicKey)).toBe(true);
  expect(bls.verify(sig, bls.hash(new TextEncoder().encode('something else'), FILECOIN_BLS_DST), publicKey)).toBe(
    false,
  );

  const listed = await invoke<string[]>('WalletList');
  expect(listed).toContain(address);
  expect([...listed].sort()).toEqual(listed);
});

test('the stock client sees Lotus-shaped errors', async () => {
  const anonymous = new RPC({ api: server.url(1), network: 'testnet' });
  const { error } = await anonymous.call({ method: 'Filecoin.WalletList', params: [] } as never);
  expect(error?.message).toBe("missing permission to invoke 'WalletList' (need 'write')");
});
