/**
 * Signatures that depend on our codecs: each message is built from its JSON (or CBOR), its CID
 * computed by our encoder, and the signature checked with src/crypto. A wrong byte anywhere in the
 * message encoding would change the CID and fail these checks.
 */
import { blake2b256, bls, secp256k1 } from '../../src/crypto/index.js';
import {
  Address,
  AddressProtocol,
  cidOfCbor,
  decodeMessage,
  encodeMessage,
  type Message,
  messageFromLotusJson,
  messageSigningBytes,
  SignatureType,
  signedMessageCid,
  signedMessageFromLotusJson,
} from '../../src/types/index.js';
import { fromBase64, fromHex, toHex } from '../../src/utils/bytes.js';
import { readVectorJsonLossless } from './lossless-vectors.js';

const flipBit = (bytes: Uint8Array, index = 0): Uint8Array => {
  const copy = Uint8Array.from(bytes);
  copy[index % copy.length] = (copy[index % copy.length] as number) ^ 1;
  return copy;
};
const withNonce = (message: Message, nonce: bigint): Message => ({ ...message, nonce });

/** secp256k1: deterministic signature reproduces, recovers the f1 From address, and nothing else verifies. */
function checkSecp256k1(message: Message, privateKey: Uint8Array, signature: Uint8Array): void {
  expect(message.from.protocol).toBe(AddressProtocol.Secp256k1);
  const data = messageSigningBytes(message);
  expect(toHex(secp256k1.sign(privateKey, data))).toBe(toHex(signature));
  expect(Address.newSecp256k1(secp256k1.recover(signature, data)).equals(message.from)).toBe(true);
  expect(secp256k1.verify(signature, data, message.from.payload)).toBe(true);
  expect(secp256k1.verify(flipBit(signature, 5), data, message.from.payload)).toBe(false);
  expect(
    secp256k1.verify(signature, messageSigningBytes(withNonce(message, message.nonce + 1n)), message.from.payload),
  ).toBe(false);
  expect(Address.newSecp256k1(secp256k1.publicKey(flipBit(privateKey, 31))).equals(message.from)).toBe(false);
}

/** BLS: the little-endian secret key gives the f3 From key, signs the CID bytes, and nothing else verifies. */
function checkBls(message: Message, privateKey: Uint8Array, signature: Uint8Array): void {
  expect(message.from.protocol).toBe(AddressProtocol.BLS);
  const publicKey = bls.publicKey(privateKey);
  expect(toHex(publicKey)).toBe(toHex(message.from.payload));
  const data = messageSigningBytes(message);
  expect(toHex(bls.sign(privateKey, data))).toBe(toHex(signature));
  expect(bls.verify(publicKey, data, signature)).toBe(true);
  expect(bls.verify(publicKey, data, flipBit(signature, 40))).toBe(false);
  expect(bls.verify(publicKey, messageSigningBytes(withNonce(message, message.nonce + 1n)), signature)).toBe(false);
  expect(bls.verify(bls.publicKey(flipBit(privateKey, 0)), data, signature)).toBe(false);
}

describe('serialization/message_signing.json (Lotus, BLS)', () => {
  const vectors = readVectorJsonLossless<
    Array<{ Unsigned: unknown; Cid: string; PrivateKey: string; Signature: { Type: number; Data: string } }>
  >('serialization', 'message_signing.json');

  it.each(vectors)('$Cid', ({ Unsigned, PrivateKey, Signature }) => {
    expect(Signature.Type).toBe(SignatureType.BLS);
    checkBls(messageFromLotusJson(Unsigned), fromBase64(PrivateKey), fromBase64(Signature.Data));
  });
});

describe('Zondax filecoin-signing-tools', () => {
  it('zondax_signed_message.json: the secp256k1 signature reproduces and recovers the sender', () => {
    const { pk, tx } = readVectorJsonLossless<{ pk: string; tx: unknown }>('signing', 'zondax_signed_message.json');
    const signed = signedMessageFromLotusJson(tx);
    expect(signed.signature.type).toBe(SignatureType.Secp256k1);
    checkSecp256k1(signed.message, fromBase64(pk), signed.signature.data);
  });

  it('zondax_get_cid.json: a secp256k1 SignedMessage CID covers message and signature', () => {
    const { signed_message, cid } = readVectorJsonLossless<{ signed_message: unknown; cid: string }>(
      'signing',
      'zondax_get_cid.json',
    );
    const signed = signedMessageFromLotusJson(signed_message);
    expect(signedMessageCid(signed).toString()).toBe(cid);
    expect(
      signedMessageCid({ ...signed, signature: { ...signed.signature, data: flipBit(signed.signature.data) } }),
    ).not.toEqual(signedMessageCid(signed));
  });

  it('zondax_verify_signature.json: a tampered signature does not verify', () => {
    const { verify_invalid_signature: v } = readVectorJsonLossless<{
      verify_invalid_signature: { private_key: string; message: unknown };
    }>('signing', 'zondax_verify_signature.json');
    const message = messageFromLotusJson(v.message);
    const signature = secp256k1.sign(fromBase64(v.private_key), messageSigningBytes(message));
    expect(secp256k1.verify(signature, messageSigningBytes(message), message.from.payload)).toBe(true);
    expect(secp256k1.verify(flipBit(signature, 10), messageSigningBytes(message), message.from.payload)).toBe(false);
  });

  describe('zondax_txs.json', () => {
    const txs = readVectorJsonLossless<Array<Record<string, unknown>>>('signing', 'zondax_txs.json');

    it.each(txs.filter((t) => 'cbor' in t) as Array<{ transaction: unknown; cbor: string }>)(
      'message JSON → CBOR %#',
      ({ transaction, cbor }) => {
        expect(toHex(encodeMessage(messageFromLotusJson(transaction)))).toBe(cbor);
        expect(toHex(encodeMessage(decodeMessage(fromHex(cbor))))).toBe(cbor);
      },
    );

    it('entry 4: its signature is known not to verify (PROVENANCE.md), and indeed does not', () => {
      const t = txs[3] as { transaction: unknown; sig: string };
      const message = messageFromLotusJson(t.transaction);
      expect(bls.verify(message.from.payload, messageSigningBytes(message), fromHex(t.sig))).toBe(false);
    });

    it('entry 5: BLS key pair and signature over the message CID', () => {
      const t = txs[4] as { pk: string; sk: string; sig: string; message: unknown };
      const message = messageFromLotusJson(t.message);
      expect(toHex(message.from.payload)).toBe(t.pk);
      checkBls(message, fromHex(t.sk), fromHex(t.sig));
    });
  });

  it('zondax_generated_test_cases.json: 10 BLS keys, senders and signatures', () => {
    const cases = readVectorJsonLossless<Array<{ pk: string; sk: string; sig: string; message: unknown }>>(
      'signing',
      'zondax_generated_test_cases.json',
    );
    expect(cases).toHaveLength(10);
    for (const c of cases) {
      const message = messageFromLotusJson(c.message);
      expect(toHex(message.from.payload)).toBe(c.pk);
      checkBls(message, fromHex(c.sk), fromHex(c.sig));
    }
  });

  it('zondax_bls_wallet.json + zondax_bls_signature.json: decoded CBOR message, signature over its CID', () => {
    const wallet = readVectorJsonLossless<{ bls_public_key: string; bls_private_key: string }>(
      'signing',
      'zondax_bls_wallet.json',
    );
    const { cbor, sig } = readVectorJsonLossless<{ cbor: string; sig: string }>('signing', 'zondax_bls_signature.json');
    const message = decodeMessage(fromHex(cbor));
    expect(toHex(message.from.payload)).toBe(wallet.bls_public_key);
    checkBls(message, fromBase64(wallet.bls_private_key), fromHex(sig));
  });

  it('zondax_wallet.json: secp256k1 and BLS keys give the listed addresses', () => {
    const wallet = readVectorJsonLossless<{
      private_key: string;
      bls_private_key: string;
      bls_address: string;
      childs: Array<{ path: string; address?: string }>;
    }>('signing', 'zondax_wallet.json');
    const secpAddress = Address.newSecp256k1(secp256k1.publicKey(fromBase64(wallet.private_key)));
    expect(secpAddress.toString('f')).toBe(wallet.childs.find((c) => c.path === "m/44'/461'/0/0/0")?.address);
    expect(Address.newBls(bls.publicKey(fromBase64(wallet.bls_private_key))).toString('t')).toBe(wallet.bls_address);
  });

  it('zondax_utils.json: legacy 8-field messages are refused by our decoder; their CID and signing digest still hold', () => {
    const utils = readVectorJsonLossless<{
      cid_bytes: { cbor_message: string; cid: string };
      msg_digest: Array<{ cbor_message: string; digest: string }>;
      public_from_private: { private: string; public: string };
      signature_test: { private: string; message: string; signature: string };
    }>('signing', 'zondax_utils.json');
    expect(() => decodeMessage(fromHex(utils.cid_bytes.cbor_message))).toThrow(
      expect.objectContaining({ code: 'ERR_CBOR_DECODE' }),
    );
    expect(toHex(cidOfCbor(fromHex(utils.cid_bytes.cbor_message)).bytes)).toBe(utils.cid_bytes.cid);
    expect(toHex(secp256k1.publicKey(fromHex(utils.public_from_private.private)))).toBe(
      utils.public_from_private.public,
    );
    for (const { cbor_message, digest } of utils.msg_digest) {
      expect(toHex(blake2b256(cidOfCbor(fromHex(cbor_message)).bytes))).toBe(digest);
    }
    const signingBytes = cidOfCbor(fromHex(utils.signature_test.message)).bytes;
    expect(toHex(secp256k1.sign(fromHex(utils.signature_test.private), signingBytes))).toBe(
      utils.signature_test.signature,
    );
  });
});
