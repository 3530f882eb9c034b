/** Decoders reject malformed CBOR with errors that name the type and field; encoders refuse bad values. */
import {
  blockHeaderToCborNode,
  CborDecodeError,
  type CborNode,
  decodeActor,
  decodeBlockHeader,
  decodeMessage,
  decodeMessageReceipt,
  decodeSignedMessage,
  decodeStateRoot,
  encodeBlockHeader,
  encodeCbor,
  encodeMessage,
  MAX_INT64,
  MAX_UINT64,
  MIN_INT64,
  messageToCborNode,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { sampleHeader, sampleMessage } from './fixtures.js';

/** A message tuple with To f01, From f02 and one field replaced by raw CBOR hex. */
function messageHex(field: number, hex: string): string {
  const fields = ['00', '420001', '420002', '01', '40', '00', '40', '40', '00', '40'];
  fields[field] = hex;
  return `8a${fields.join('')}`;
}

const decodeMessageHex = (hex: string) => () => decodeMessage(fromHex(hex));

/** The sample header's CBOR tuple with one field replaced. */
function headerWith(field: number, value: CborNode): Uint8Array {
  const node = blockHeaderToCborNode(sampleHeader());
  node[field] = value;
  return encodeCbor(node);
}

describe('message decoding', () => {
  it('accepts the hand-made base message', () => {
    const message = decodeMessage(fromHex(messageHex(3, '01')));
    expect(message.nonce).toBe(1n);
    expect(toHex(encodeMessage(message))).toBe(messageHex(3, '01'));
  });

  it.each([
    ['a 64-bit float', 3, 'fb3ff0000000000000', 'Message.Nonce: expected an integer, got a float (1)'],
    ['a 16-bit float', 3, 'f93c00', 'Message.Nonce: expected an integer, got a float (1)'],
    ['a negative nonce', 3, '20', 'Message.Nonce: expected an unsigned 64-bit integer, got a negative integer (-1)'],
    [
      'GasLimit 2^63',
      5,
      '1b8000000000000000',
      'Message.GasLimit: expected a signed 64-bit integer, got 9223372036854775808',
    ],
    ['GasLimit -2^63-1', 5, '3b8000000000000000', 'Message.GasLimit: expected a signed 64-bit integer, got a negative'],
    ['an integer Value', 4, '00', 'Message.Value: expected bytes, got 0'],
    ['text Params', 9, '60', 'Message.Params: expected bytes, got a text string'],
    ['a null address', 1, 'f6', 'Message.To: expected bytes, got null'],
    ['version 1', 0, '01', 'Message.Version: must be 0, got 1'],
    ['a bad BigInt sign', 6, '420201', 'Message.GasFeeCap: big integer sign byte must be 0 or 1, got 2'],
    ['a nested array Method', 8, '80', 'Message.Method: expected an integer, got an array of 0'],
  ])('rejects %s', (_what, field, hex, message) => {
    expect(decodeMessageHex(messageHex(field, hex))).toThrow(expect.objectContaining({ code: 'ERR_CBOR_DECODE' }));
    expect(decodeMessageHex(messageHex(field, hex))).toThrow(message);
  });

  it.each([
    ['a non-minimal integer', messageHex(3, '1801'), /more bytes than necessary/],
    ['undefined', messageHex(9, 'f7'), /undefined/],
    ['trailing bytes', `${messageHex(3, '01')}00`, /too many terminals/],
    ['an indefinite-length array', `9f${messageHex(3, '01').slice(2)}ff`, /indefinite/],
    ['a truncated input', messageHex(3, '01').slice(0, -2), /./],
    ['a map instead of a tuple', 'a0', /^Message: expected an array of 10 fields, got a map$/],
  ])('rejects %s as invalid DAG-CBOR', (_what, hex, message) => {
    expect(decodeMessageHex(hex)).toThrow(CborDecodeError);
    expect(decodeMessageHex(hex)).toThrow(message);
  });
});

describe('decoded values', () => {
  it('do not alias the input buffer, even when it is a Buffer', () => {
    const input = Buffer.from(encodeMessage(sampleMessage({ params: Uint8Array.of(1, 2, 3) })));
    const message = decodeMessage(input);
    input.fill(0);
    expect(toHex(message.params)).toBe('010203');
    expect(message.from.toString('f')).toBe(sampleMessage().from.toString('f'));
  });
});

describe('block header decoding', () => {
  it.each([
    [7, new Uint8Array(2), 'BlockHeader.Height: expected an integer, got bytes (2)'],
    [7, 2n ** 63n, 'BlockHeader.Height: expected a signed 64-bit integer, got 9223372036854775808'],
    [12, -5, 'BlockHeader.Timestamp: expected an unsigned 64-bit integer, got a negative integer (-5)'],
    [5, [new Uint8Array(38)], 'BlockHeader.Parents[0]: expected a CID, got bytes (38)'],
    [5, null, 'BlockHeader.Parents: expected an array, got null'],
    [1, [new Uint8Array(1), new Uint8Array(1)], 'BlockHeader.Ticket: expected an array of 1 fields, got an array of 2'],
    [2, [1.5, new Uint8Array(0)], 'BlockHeader.ElectionProof.WinCount: expected an integer, got a float (1.5)'],
    [3, [[MAX_UINT64, 5]], 'BlockHeader.BeaconEntries[0].Data: expected bytes, got 5'],
    [13, new Uint8Array(0), 'BlockHeader.BlockSig: empty signature (no type byte)'],
    [13, Uint8Array.of(4, 1, 2), 'BlockHeader.BlockSig: unknown signature type 4'],
    [11, new Uint8Array(201), 'BlockHeader.BLSAggregate: expected at most 200 bytes, got bytes (201)'],
    [8, 'bafy', 'BlockHeader.ParentStateRoot: expected a CID, got a text string'],
  ])('field %i = %p is rejected', (field, value, message) => {
    expect(() => decodeBlockHeader(headerWith(field, value))).toThrow(
      expect.objectContaining({ code: 'ERR_CBOR_DECODE', message: expect.stringContaining(message) }),
    );
  });

  it('rejects a 15-field header and a CID tag without its 0x00 prefix', () => {
    const node = blockHeaderToCborNode(sampleHeader()).slice(0, 15);
    expect(() => decodeBlockHeader(encodeCbor(node))).toThrow(
      'BlockHeader: expected an array of 16 fields, got an array of 15',
    );
    const bytes = encodeBlockHeader(sampleHeader());
    const hex = toHex(bytes);
    const tag = hex.indexOf('d82a582700');
    const broken = `${hex.slice(0, tag)}d82a582701${hex.slice(tag + 10)}`;
    expect(() => decodeBlockHeader(fromHex(broken))).toThrow(/invalid DAG-CBOR for BlockHeader.*leading 0x00/);
  });

  it('names nested fields of a signed message', () => {
    const node = [messageToCborNode(sampleMessage()), Uint8Array.of(9, 9)];
    expect(() => decodeSignedMessage(encodeCbor(node))).toThrow('SignedMessage.Signature: unknown signature type 9');
    const badMessage = [[...messageToCborNode(sampleMessage()).slice(0, 9)], Uint8Array.of(1)];
    expect(() => decodeSignedMessage(encodeCbor(badMessage))).toThrow(
      'SignedMessage.Message: expected an array of 10 fields, got an array of 9',
    );
  });
});

describe('versioned tuples', () => {
  it('reject lengths that are no version', () => {
    expect(() => decodeMessageReceipt(encodeCbor([0, new Uint8Array(0)]))).toThrow(
      'MessageReceipt: expected an array of 3 or 4 fields, got an array of 2',
    );
    expect(() => decodeActor(encodeCbor([1, 2, 3]))).toThrow('Actor: expected an array of 4 or 5 fields');
    expect(() => decodeStateRoot(fromHex('824080'))).toThrow(
      'StateRoot: expected an array of 3 fields, got an array of 2',
    );
  });
});

describe('encoders refuse values that do not fit the wire', () => {
  it.each([
    [{ nonce: -1n }, 'Message.Nonce: expected an unsigned 64-bit integer (bigint), got -1'],
    [{ nonce: MAX_UINT64 + 1n }, 'Message.Nonce'],
    [{ gasLimit: MAX_INT64 + 1n }, 'Message.GasLimit'],
    [{ gasLimit: MIN_INT64 - 1n }, 'Message.GasLimit'],
    [{ method: 5 as unknown as bigint }, 'Message.Method: expected an unsigned 64-bit integer (bigint), got 5'],
    [{ value: 2n ** 1016n }, 'too large to serialize'],
  ])('%p', (change, message) => {
    expect(() => encodeMessage(sampleMessage(change))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT', message: expect.stringContaining(message) }),
    );
  });

  it('refuse a block header field out of range', () => {
    expect(() => encodeBlockHeader(sampleHeader({ height: MAX_INT64 + 1n }))).toThrow('BlockHeader.Height');
    expect(() => encodeBlockHeader(sampleHeader({ parents: new Array(8193).fill(sampleHeader().messages) }))).toThrow(
      'BlockHeader.Parents: 8193 items exceed 8192',
    );
  });
});
