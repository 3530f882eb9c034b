/**
 * The wallet and its keystore: Lotus's file layout and KeyInfo format, Lotus's semantics (first key
 * is the default, soft delete, f/t spellings), and signatures that match published Filecoin vectors.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, messageFromLotusJson, setDefaultNetwork, signatureToLotusJson } from '../../src/types/index.js';
import { fromHex } from '../../src/utils/bytes.js';
import {
  Keystore,
  KeyType,
  keyInfoFromLotusJson,
  keyInfoToLotusJson,
  keyTypeFromLotusJson,
  verifySignature,
  Wallet,
  WalletError,
} from '../../src/wallet/index.js';
import { readVectorJson } from '../vectors/vectors-dir.js';

let directory: string;
let keystore: Keystore;
let wallet: Wallet;

beforeEach(() => {
  setDefaultNetwork('t');
  directory = mkdtempSync(join(tmpdir(), 'ledger-wallet-'));
  keystore = new Keystore(join(directory, 'keystore'));
  wallet = new Wallet(keystore);
});
afterEach(() => {
  setDefaultNetwork('f');
  rmSync(directory, { recursive: true, force: true });
});

const base64 = (text: string) => Buffer.from(text, 'base64');

describe('keystore files', () => {
  test('one file per key named by upper-case unpadded base32, mode 0600, in a 0700 directory', () => {
    const address = wallet.newKey(KeyType.Secp256k1);
    expect(statSync(keystore.directory).mode & 0o777).toBe(0o700);
    const files = readdirSync(keystore.directory).sort();
    const expected = [`wallet-${address}`, 'default']
      .map((name) => Buffer.from(name).toString())
      .map(base32Upper)
      .sort();
    expect(files).toEqual(expected);
    for (const file of files) expect(statSync(join(keystore.directory, file)).mode & 0o777).toBe(0o600);
  });

  test('a file holds a Lotus KeyInfo: {"Type": ..., "PrivateKey": base64}', () => {
    keystore.put('auth-jwt-private', { type: 'jwt-hmac-secret', privateKey: new Uint8Array(32).fill(7) });
    // The file name Lotus gives this very key.
    const text = readFileSync(join(keystore.directory, 'MF2XI2BNNJ3XILLQOJUXMYLUMU'), 'utf8');
    expect(text).toBe(`{"Type":"jwt-hmac-secret","PrivateKey":"${Buffer.alloc(32, 7).toString('base64')}"}`);
    expect(keystore.list()).toEqual(['auth-jwt-private']);
  });

  test('a key file others may read is refused, as Lotus refuses it', () => {
    const address = wallet.newKey(KeyType.BLS);
    const file = join(keystore.directory, base32Upper(`wallet-${address}`));
    chmodSync(file, 0o644);
    expect(() => wallet.sign(address, new Uint8Array(1))).toThrow(
      `permissions of key: 'wallet-${address}' are too relaxed, required: 0600, got: 0644`,
    );
  });

  test('put never overwrites, delete of a missing key is an error, temp files are invisible', () => {
    keystore.put('k', { type: 'bls', privateKey: new Uint8Array(32) });
    expect(() => keystore.put('k', { type: 'bls', privateKey: new Uint8Array(32).fill(1) })).toThrow(
      "checking key before put 'k': key already exists",
    );
    writeFileSync(join(keystore.directory, '.tmp-123-X'), 'partial', { mode: 0o600 });
    expect(keystore.list()).toEqual(['k']);
    keystore.delete('k');
    expect(() => keystore.delete('k')).toThrow("checking key before delete 'k': key info not found");
    expect(keystore.tryGet('k')).toBeUndefined();
  });

  test('a corrupt key file is a clear error naming the key', () => {
    writeFileSync(join(keystore.directory, base32Upper('wallet-x')), '{"Type":"bls"}', { mode: 0o600 });
    expect(() => keystore.get('wallet-x')).toThrow("decoding key 'wallet-x': PrivateKey is not a base64 string");
  });
});

describe('wallet semantics', () => {
  test('the first key becomes the default; later ones do not', () => {
    const first = wallet.newKey(KeyType.BLS);
    const second = wallet.newKey(KeyType.Secp256k1);
    expect(wallet.defaultAddress().equals(first)).toBe(true);
    wallet.setDefault(second);
    expect(wallet.defaultAddress().equals(second)).toBe(true);
  });

  test('list is sorted by string and has each address once', () => {
    const addresses = [wallet.newKey(KeyType.BLS), wallet.newKey(KeyType.Secp256k1), wallet.newKey(KeyType.BLS)];
    const listed = wallet.list().map(String);
    expect(listed).toEqual(addresses.map(String).sort());
  });

  test('no default is Lotus’s error text', () => {
    expect(() => wallet.defaultAddress()).toThrow(
      "failed to get default key: opening key 'default': key info not found",
    );
  });

  test('keys stored under the other network spelling are found and listed once (Lotus tryFind)', () => {
    const key = keyInfoFromLotusJson({ Type: 'secp256k1', PrivateKey: Buffer.alloc(32, 9).toString('base64') });
    setDefaultNetwork('f');
    const address = wallet.import(key);
    setDefaultNetwork('t');
    expect(wallet.has(address)).toBe(true);
    expect(wallet.list().map(String)).toEqual([address.toString('t')]);
  });

  test('delete moves the key to trash-<address>, clears the default, and is idempotent', () => {
    const address = wallet.newKey(KeyType.Secp256k1);
    const exported = wallet.export(address);
    wallet.delete(address);
    expect(wallet.has(address)).toBe(false);
    expect(wallet.list()).toEqual([]);
    expect(() => wallet.defaultAddress()).toThrow(/key info not found/);
    expect(keystore.get(`trash-${address}`).privateKey).toEqual(exported.privateKey);
    expect(() => wallet.delete(address)).not.toThrow();
  });

  test('import of a key already held is Lotus’s "key already exists"', () => {
    const address = wallet.newKey(KeyType.BLS);
    expect(() => wallet.import(wallet.export(address))).toThrow(
      /^saving to keystore: checking key before put .* key already exists$/,
    );
  });

  test('signing with a key the wallet does not hold names the address', () => {
    const address = Address.newId(1234n);
    expect(() => wallet.sign(address, new Uint8Array(0))).toThrow("signing using key 't01234': key info not found");
  });

  test('a key file renamed to another address is refused, not used to sign', () => {
    const a = wallet.newKey(KeyType.Secp256k1);
    const b = wallet.newKey(KeyType.Secp256k1);
    const fileA = join(keystore.directory, base32Upper(`wallet-${a}`));
    const fileB = join(keystore.directory, base32Upper(`wallet-${b}`));
    writeFileSync(fileB, readFileSync(fileA), { mode: 0o600 });
    expect(() => wallet.sign(b, new Uint8Array(1))).toThrow(WalletError);
  });
});

describe('KeyInfo and key types', () => {
  test.each([
    ['secp256k1', KeyType.Secp256k1],
    ['bls', KeyType.BLS],
    ['delegated', KeyType.Delegated],
    [1, KeyType.Secp256k1],
    [2, KeyType.BLS],
    [3, KeyType.Delegated],
  ])('key type %p is %s, as Lotus reads it', (json, type) => {
    expect(keyTypeFromLotusJson(json)).toBe(type);
  });

  test('key type "secp256k1-ledger" exists in Lotus but is refused clearly', () => {
    expect(() => keyTypeFromLotusJson('secp256k1-ledger', 'keyType')).toThrow(/not supported by this node/);
  });

  test.each([['ed25519'], [0], [4], [1.5], [null], ['']])('key type %p is invalid', (json) => {
    expect(() => keyTypeFromLotusJson(json, 'keyType')).toThrow(/^keyType: expected "secp256k1", "bls" or "delegated"/);
  });

  test('a private key that is not 32 bytes is refused naming the field', () => {
    expect(() => keyInfoFromLotusJson({ Type: 'bls', PrivateKey: 'AAAA' }, 'keyInfo')).toThrow(
      'keyInfo.PrivateKey: expected 32 bytes of base64, got 3 bytes',
    );
  });

  test('export and import round-trip through Lotus JSON', () => {
    const address = wallet.newKey(KeyType.BLS);
    const json = keyInfoToLotusJson(wallet.export(address));
    expect(Object.keys(json)).toEqual(['Type', 'PrivateKey']);
    const other = new Wallet(new Keystore(join(directory, 'other')));
    expect(other.import(keyInfoFromLotusJson(json)).equals(address)).toBe(true);
  });
});

describe('signatures match published Filecoin vectors', () => {
  test('secp256k1: the Zondax signed message reproduces byte for byte (RFC 6979)', () => {
    const { pk, tx } = readVectorJson<{ pk: string; tx: { Message: unknown; Signature: { Data: string } } }>(
      'signing/zondax_signed_message.json',
    );
    const address = wallet.import({ type: KeyType.Secp256k1, privateKey: base64(pk) });
    const message = messageFromLotusJson(tx.Message);
    expect(address.equals(message.from)).toBe(true);
    const signed = wallet.signMessage(address, message);
    expect(signatureToLotusJson(signed.signature)).toEqual({ Type: 1, Data: tx.Signature.Data });
  });

  test('BLS: the generated test cases reproduce (little-endian private keys, as Lotus stores them)', () => {
    const cases = readVectorJson<Array<{ sk: string; sig: string; message: unknown }>>(
      'signing/zondax_generated_test_cases.json',
    );
    for (const { sk, sig, message } of cases.slice(0, 3)) {
      const keys = new Wallet(new Keystore(mkdtempSync(join(directory, 'bls-'))));
      const decoded = messageFromLotusJson(message);
      const address = keys.import({ type: KeyType.BLS, privateKey: fromHex(sk) });
      expect(address.equals(decoded.from)).toBe(true);
      const { signature } = keys.signMessage(address, decoded);
      expect(Buffer.from(signature.data).toString('hex')).toBe(sig);
    }
  });

  test('verifySignature: true for the signer, false for others, mismatched types and ID addresses', () => {
    const secp = wallet.newKey(KeyType.Secp256k1);
    const bls = wallet.newKey(KeyType.BLS);
    const data = new TextEncoder().encode('data');
    const secpSignature = wallet.sign(secp, data);
    const blsSignature = wallet.sign(bls, data);
    expect(verifySignature(secp, data, secpSignature)).toBe(true);
    expect(verifySignature(bls, data, blsSignature)).toBe(true);
    expect(verifySignature(secp, new TextEncoder().encode('other'), secpSignature)).toBe(false);
    expect(verifySignature(bls, data, secpSignature)).toBe(false);
    expect(verifySignature(secp, data, blsSignature)).toBe(false);
    expect(verifySignature(Address.newId(1n), data, secpSignature)).toBe(false);
    expect(verifySignature(secp, data, { type: 1, data: new Uint8Array(3) })).toBe(false);
  });
});

function base32Upper(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(text)) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}
