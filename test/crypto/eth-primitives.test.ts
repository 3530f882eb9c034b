/**
 * Keccak-256 and secp256k1 signatures over a digest, the primitives of Ethereum (delegated)
 * signatures. Sources of truth: published vectors (Ethereum's empty hashes, EIP-155's example) and
 * filecoin-project/lotus `chain/types/ethtypes/eth_1559_transactions_test.go` (commit b835fab7).
 */
import {
  CryptoError,
  ethAddressFromPublicKey,
  keccak256,
  secp256k1,
  secp256k1RecoverDigest,
  secp256k1SignDigest,
} from '../../src/crypto/index.js';
import { concatBytes, fromHex, toHex } from '../../src/utils/bytes.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('keccak256', () => {
  it('matches published digests', () => {
    expect(toHex(keccak256(new Uint8Array(0)))).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    expect(toHex(keccak256(text('abc')))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    // keccak(rlp([])): Ethereum's empty-uncles hash.
    expect(toHex(keccak256(Uint8Array.of(0xc0)))).toBe(
      '1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    );
  });

  it('refuses a non-byte argument with a CryptoError', () => {
    expect(() => keccak256('abc' as unknown as Uint8Array)).toThrow(
      expect.objectContaining({ name: 'CryptoError', code: 'ERR_INVALID_ARGUMENT' }),
    );
  });
});

describe('secp256k1 over a digest: EIP-155 example (ethereum/EIPs EIPS/eip-155.md)', () => {
  const privateKey = fromHex('46'.repeat(32));
  const digest = fromHex('daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53');
  const rs =
    '28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276' +
    '67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83';

  it('signs as go-ethereum does (RFC 6979) and recovers the key', () => {
    const signature = secp256k1SignDigest(privateKey, digest);
    expect(toHex(signature)).toBe(`${rs}00`);
    const publicKey = secp256k1RecoverDigest(signature, digest);
    expect(toHex(publicKey)).toBe(toHex(secp256k1.publicKey(privateKey)));
    expect(toHex(ethAddressFromPublicKey(publicKey))).toBe('9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f');
  });

  it('refuses bad digests, signatures and keys with coded CryptoErrors', () => {
    const signature = secp256k1SignDigest(privateKey, digest);
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(CryptoError);
        return (error as CryptoError).code;
      }
      throw new Error('expected a CryptoError');
    };
    expect(code(() => secp256k1SignDigest(privateKey, digest.subarray(1)))).toBe('ERR_INVALID_LENGTH');
    expect(code(() => secp256k1RecoverDigest(signature, new Uint8Array(33)))).toBe('ERR_INVALID_LENGTH');
    expect(code(() => secp256k1RecoverDigest(concatBytes(signature.subarray(0, 64), Uint8Array.of(4)), digest))).toBe(
      'ERR_INVALID_SIGNATURE',
    );
    expect(code(() => ethAddressFromPublicKey(new Uint8Array(64)))).toBe('ERR_INVALID_LENGTH');
    expect(code(() => ethAddressFromPublicKey(new Uint8Array(65)))).toBe('ERR_INVALID_PUBLIC_KEY');
  });

  it('recovers many digests off the main thread, null where nothing recovers', async () => {
    const good = secp256k1SignDigest(privateKey, digest);
    const keys = await secp256k1.recoverDigestBatch([
      { signature: good, digest },
      { signature: new Uint8Array(65), digest },
      { signature: good, digest: new Uint8Array(31) },
    ]);
    expect(keys.map((k) => (k === null ? null : toHex(ethAddressFromPublicKey(k))))).toEqual([
      '9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f',
      null,
      null,
    ]);
  });
});

describe('Ethereum addresses of keys', () => {
  it('TestEcRecover (lotus eth_1559_transactions_test.go): payload, signature, key and address', () => {
    const payload = fromHex(
      '02f1030185012a05f2008504a817c800825208942b87d1cb599bc2a606db9a0169fcec96af04ad3a880de0b6b3a764000080c0',
    );
    const signature = fromHex(
      '479ff7fa64cf8bf641eb81635d1e8a698530d2f219951d234539e6d074819529' +
        '4b6146d27be50cdbb2853ba9a42f207af8d730272f1ebe9c9a78aeef1d6aa924' +
        '00',
    );
    const publicKey = secp256k1RecoverDigest(signature, keccak256(payload));
    expect(toHex(publicKey)).toBe(
      '048362749392a0e192eff600d21155236c5a0648d300a8e0e44d8617712c7c96384c75825dc5c7595df2a5005fd8a0f7c809119fb9ab36403ed712244fc329348e',
    );
    expect(toHex(ethAddressFromPublicKey(publicKey))).toBe('3947d223fc5415f43ea099866ab62b1d4d33814d');
  });
});
