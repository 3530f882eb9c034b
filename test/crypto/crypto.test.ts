import { blake2b, blake2b32, blake2b160, blake2b256, bls, CryptoError, secp256k1 } from '../../src/crypto/index.js';
import { toHex } from '../../src/utils/bytes.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('blake2b', () => {
  it('matches RFC 7693 for blake2b-512("abc")', () => {
    expect(toHex(blake2b(text('abc'), 64))).toBe(
      'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
    );
  });

  it('has the widths Filecoin uses', () => {
    expect(blake2b256(text('x'))).toHaveLength(32);
    expect(blake2b160(text('x'))).toHaveLength(20);
    expect(blake2b32(text('x'))).toHaveLength(4);
  });

  it('rejects an impossible width with a coded error', () => {
    expect(() => blake2b(text('x'), 65)).toThrow(CryptoError);
    try {
      blake2b(text('x'), 0);
    } catch (error) {
      expect((error as CryptoError).code).toBe('ERR_INVALID_ARGUMENT');
    }
  });
});

describe('secp256k1', () => {
  const sk = secp256k1.generatePrivateKey();
  const pk = secp256k1.publicKey(sk);

  it('signs and recovers', () => {
    const sig = secp256k1.sign(sk, text('data'));
    expect(sig).toHaveLength(65);
    expect(toHex(secp256k1.recover(sig, text('data')))).toBe(toHex(pk));
    expect(secp256k1.verify(sig, text('data'), blake2b160(pk))).toBe(true);
    expect(secp256k1.verify(sig, text('datA'), blake2b160(pk))).toBe(false);
  });

  it('reports bad keys and signatures with stable codes', () => {
    expect(() => secp256k1.publicKey(new Uint8Array(31))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_LENGTH', name: 'CryptoError' }),
    );
    expect(() => secp256k1.publicKey(new Uint8Array(32))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_PRIVATE_KEY' }),
    );
    const sig = secp256k1.sign(sk, text('data'));
    sig[64] = 9;
    expect(() => secp256k1.recover(sig, text('data'))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_SIGNATURE' }),
    );
  });

  it('rejects a wrong argument type instead of crashing', () => {
    expect(() => secp256k1.publicKey('not bytes' as unknown as Uint8Array)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
  });

  it('recovers batches off the main thread', async () => {
    const sig = secp256k1.sign(sk, text('a'));
    const bad = new Uint8Array(65);
    const keys = await secp256k1.recoverBatch([
      { signature: sig, data: text('a') },
      { signature: bad, data: text('a') },
    ]);
    expect(toHex(keys[0]!)).toBe(toHex(pk));
    expect(keys[1]).toBeNull();
  });
});

describe('bls', () => {
  const keys = [1, 2, 3].map((i) => bls.privateKeyFromSeed(new Uint8Array(32).fill(i)));
  const pks = keys.map((k) => bls.publicKey(k));

  it('signs and verifies', () => {
    const sig = bls.sign(keys[0]!, text('m'));
    expect(sig).toHaveLength(96);
    expect(bls.verify(pks[0]!, text('m'), sig)).toBe(true);
    expect(bls.verify(pks[1]!, text('m'), sig)).toBe(false);
    expect(bls.verify(pks[0]!.subarray(1), text('m'), sig)).toBe(false);
  });

  it('aggregates, and verifies aggregates sync and async', async () => {
    const msgs = ['a', 'b', 'c'].map(text);
    const agg = bls.aggregate(keys.map((k, i) => bls.sign(k, msgs[i]!)));
    const items = pks.map((publicKey, i) => ({ publicKey, message: msgs[i]! }));
    expect(bls.aggregateVerify(items, agg)).toBe(true);
    expect(await bls.aggregateVerifyAsync(items, agg)).toBe(true);
    const swappedMessages = [{ ...items[0]!, message: msgs[1]! }, { ...items[1]!, message: msgs[0]! }, items[2]!];
    expect(bls.aggregateVerify(swappedMessages, agg)).toBe(false);
  });

  it('rejects duplicate messages in an aggregate', () => {
    const sig = bls.sign(keys[0]!, text('dup'));
    const agg = bls.aggregate([sig, sig]);
    const item = { publicKey: pks[0]!, message: text('dup') };
    expect(bls.aggregateVerify([item, item], agg)).toBe(false);
  });

  it('aggregates nothing to the identity', () => {
    expect(toHex(bls.aggregate([]))).toBe(toHex(bls.IDENTITY_SIGNATURE));
  });

  it('batch-verifies and points at the bad signature', async () => {
    const items = keys.map((k, i) => ({
      publicKey: pks[i]!,
      message: text(`m${i}`),
      signature: bls.sign(k, text(`m${i}`)),
    }));
    expect(await bls.verifyBatch(items)).toEqual([true, true, true]);
    items[1]!.signature = items[2]!.signature;
    expect(await bls.verifyBatch(items)).toEqual([true, false, true]);
  });

  it('refuses mismatched batch lengths with a coded error', () => {
    expect(() => bls.aggregateVerify([{ publicKey: pks[0]!, message: text('x') }], new Uint8Array(3))).not.toThrow();
    expect(() => bls.privateKeyFromSeed(new Uint8Array(8))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_LENGTH' }),
    );
  });
});
