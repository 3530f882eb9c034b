/** shared/vectors/serialization: Lotus-generated messages and headers, Zondax manual vectors, TipSetKey CIDs. */
import {
  AddressErrorCode,
  type BlockHeaderJson,
  blockCid,
  blockHeaderFromLotusJson,
  blockHeaderToLotusJson,
  CborDecodeError,
  cidOfCbor,
  decodeBlockHeader,
  decodeMessage,
  decodeTipSetKey,
  encodeBlockHeader,
  encodeMessage,
  encodeTipSetKey,
  getDefaultNetwork,
  type Message,
  messageCid,
  messageFromLotusJson,
  messageSigningBytes,
  setDefaultNetwork,
  TipSetKey,
  tipSetKeyFromLotusJson,
  tipSetKeyToLotusJson,
  validateMessageFields,
} from '../../src/types/index.js';
import { fromBase64, fromHex, toHex } from '../../src/utils/bytes.js';
import { readVectorJsonLossless } from './lossless-vectors.js';

type MessageVectorJson = Record<string, unknown> & { To: string; From: string };

/** Checks every decoded field against the vector's Lotus JSON (u64 values arrive as bigints). */
function expectMessageMatches(message: Message, json: MessageVectorJson, network: 'f' | 't'): void {
  expect(message.to.toString(network)).toBe(json.To);
  expect(message.from.toString(network)).toBe(json.From);
  expect(message.nonce).toBe(BigInt(json.Nonce as number | bigint));
  expect(message.value).toBe(BigInt(json.Value as string));
  expect(message.gasLimit).toBe(BigInt(json.GasLimit as number | bigint));
  expect(message.gasFeeCap).toBe(BigInt(json.GasFeeCap as string));
  expect(message.gasPremium).toBe(BigInt(json.GasPremium as string));
  expect(message.method).toBe(BigInt(json.Method as number | bigint));
  expect(toHex(message.params)).toBe(toHex(fromBase64((json.Params as string | null) ?? '')));
}

describe('unsigned_messages.json (Lotus chain/vectors/gen)', () => {
  const vectors = readVectorJsonLossless<Array<{ message: MessageVectorJson; hex_cbor: string }>>(
    'serialization',
    'unsigned_messages.json',
  );

  it('has 21 vectors whose u64 fields exceed 2^53, and IDs all within go-address’s 2^63-1', () => {
    expect(vectors).toHaveLength(21);
    expect(vectors.some((v) => typeof v.message.Nonce === 'bigint')).toBe(true);
    // PROVENANCE.md says some IDs exceed 2^63; none does, so no vector needs the u64 ID exception.
    for (const v of vectors) expect(BigInt(v.message.To.slice(2))).toBeLessThan(2n ** 63n);
  });

  it.each(vectors.map((v, i) => ({ i, ...v })))('vector $i: JSON → CBOR and CBOR → fields', ({ message, hex_cbor }) => {
    expect(toHex(encodeMessage(messageFromLotusJson(message)))).toBe(hex_cbor);
    const decoded = decodeMessage(fromHex(hex_cbor));
    expectMessageMatches(decoded, message, 't');
    expect(toHex(encodeMessage(decoded))).toBe(hex_cbor);
  });
});

describe('message_signing.json (CIDs; signatures are checked in signing.test.ts)', () => {
  const vectors = readVectorJsonLossless<Array<{ Unsigned: MessageVectorJson; Cid: string; CidHexBytes: string }>>(
    'serialization',
    'message_signing.json',
  );

  it.each(vectors)('$Cid', ({ Unsigned, Cid, CidHexBytes }) => {
    const message = messageFromLotusJson(Unsigned);
    expect(messageCid(message).toString()).toBe(Cid);
    expect(toHex(messageSigningBytes(message))).toBe(CidHexBytes);
  });
});

describe('block_headers.json (Lotus devnet headers)', () => {
  const vectors = readVectorJsonLossless<Array<{ block: BlockHeaderJson; cbor_hex: string; cid: string }>>(
    'serialization',
    'block_headers.json',
  );
  const previousNetwork = getDefaultNetwork();
  beforeAll(() => setDefaultNetwork('t'));
  afterAll(() => setDefaultNetwork(previousNetwork));

  it.each(vectors)('$cid', ({ block, cbor_hex, cid }) => {
    const fromJson = blockHeaderFromLotusJson(block);
    expect(toHex(encodeBlockHeader(fromJson))).toBe(cbor_hex);
    expect(blockCid(fromJson).toString()).toBe(cid);
    const decoded = decodeBlockHeader(fromHex(cbor_hex));
    // The whole Lotus JSON, rendered with the default network set to testnet as a devnet node would.
    expect(blockHeaderToLotusJson(decoded)).toEqual(block);
  });
});

describe('lotus_tipsetkey_vectors.json (Lotus TestTipSetKey)', () => {
  const vectors = readVectorJsonLossless<{
    cids: Record<string, { preimage_utf8: string; cid: string; cid_hex_derived?: string }>;
    tipset_keys: Array<{ members: string[]; cid: string; cbor_hex_derived?: string }>;
  }>('serialization', 'lotus_tipsetkey_vectors.json');
  const cids = Object.fromEntries(
    Object.entries(vectors.cids).map(([name, c]) => [name, cidOfCbor(new TextEncoder().encode(c.preimage_utf8))]),
  );

  it('derives the member CIDs as the Go test does', () => {
    for (const [name, c] of Object.entries(vectors.cids)) {
      expect(cids[name]?.toString()).toBe(c.cid);
      if (c.cid_hex_derived !== undefined) expect(toHex(cids[name]?.bytes as Uint8Array)).toBe(c.cid_hex_derived);
    }
  });

  it.each(vectors.tipset_keys)('[$members] → $cid', ({ members, cid, cbor_hex_derived }) => {
    const memberCids = members.map((m) => cids[m] as NonNullable<(typeof cids)[string]>);
    const key = TipSetKey.fromCids(memberCids);
    expect(toHex(key.bytes)).toBe(memberCids.map((c) => toHex(c.bytes)).join(''));
    expect(key.cid().toString()).toBe(cid);
    const cbor = encodeTipSetKey(key);
    if (cbor_hex_derived !== undefined) expect(toHex(cbor)).toBe(cbor_hex_derived);
    expect(decodeTipSetKey(cbor).equals(key)).toBe(true);
    expect(tipSetKeyFromLotusJson(tipSetKeyToLotusJson(key)).equals(key)).toBe(true);
  });
});

describe('zondax_manual_testvectors.json', () => {
  interface ZondaxVector {
    description: string;
    valid: boolean;
    testnet: boolean;
    message: MessageVectorJson;
    encoded_tx_hex: string;
  }
  const vectors = readVectorJsonLossless<ZondaxVector[]>('serialization', 'zondax_manual_testvectors.json');
  const valid = vectors.filter((v) => v.valid);
  const invalid = vectors.filter((v) => !v.valid);

  it('has 15 valid and 11 invalid vectors', () => {
    expect(valid).toHaveLength(15);
    expect(invalid).toHaveLength(11);
  });

  it.each(valid)('$description', ({ message, encoded_tx_hex, testnet }) => {
    expect(toHex(encodeMessage(messageFromLotusJson(message)))).toBe(encoded_tx_hex);
    const decoded = decodeMessage(fromHex(encoded_tx_hex));
    expectMessageMatches(decoded, message, testnet ? 't' : 'f');
    expect(() => validateMessageFields(decoded)).not.toThrow();
  });

  // Why each invalid encoding fails; the 88/89 entries fail on the tuple length before any field.
  const reasons: Record<string, string> = {
    'TODO invalid test case ': 'ERR_CBOR_DECODE',
    'Address protocol 1 Invalid payload length of 21 bytes': 'ERR_CBOR_DECODE',
    'Empty value': 'ERR_CBOR_DECODE',
    'Address protocol 1 Invalid payload length of 19 bytes': AddressErrorCode.InvalidLength,
    'Address protocol 0 Invalid payload length of 21 bytes': AddressErrorCode.InvalidLength,
    'Address protocol 2 Invalid payload length of 21 bytes': AddressErrorCode.InvalidLength,
    'Address protocol 2 Invalid payload length of 19 bytes': AddressErrorCode.InvalidLength,
    'Address protocol 3 Invalid payload length of 47 bytes': AddressErrorCode.InvalidLength,
    'Address protocol 3 Invalid payload length of 49 bytes': AddressErrorCode.InvalidLength,
    'Address with unknown protocol': AddressErrorCode.UnknownProtocol,
  };

  it.each(invalid.filter((v) => v.description !== 'Negative sign byte'))('$description', (v) => {
    expect(() => decodeMessage(fromHex(v.encoded_tx_hex))).toThrow(
      expect.objectContaining({ code: reasons[v.description] }),
    );
  });

  it('names the field of a bad address: Message.To', () => {
    const v = invalid.find((x) => x.description === 'Address with unknown protocol') as ZondaxVector;
    expect(() => decodeMessage(fromHex(v.encoded_tx_hex))).toThrow(/^Message\.To: unknown address protocol/);
  });

  it('Negative sign byte: decodes (the BigInt is well formed) but fails message validation', () => {
    const v = invalid.find((x) => x.description === 'Negative sign byte') as ZondaxVector;
    const decoded = decodeMessage(fromHex(v.encoded_tx_hex));
    expect(decoded.value).toBe(-100000n);
    expect(toHex(encodeMessage(decoded))).toBe(v.encoded_tx_hex);
    expect(() => validateMessageFields(decoded)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_MESSAGE', message: "'Value' field cannot be negative" }),
    );
  });

  it('the legacy 8-field format is a CborDecodeError naming the message', () => {
    expect(() => decodeMessage(fromHex(invalid[0]?.encoded_tx_hex as string))).toThrow(CborDecodeError);
    expect(() => decodeMessage(fromHex(invalid[0]?.encoded_tx_hex as string))).toThrow(
      'Message: expected an array of 10 fields, got an array of 8',
    );
  });
});
