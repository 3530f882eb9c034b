import {
  blockHeaderFromLotusJson,
  JsonDecodeError,
  jsonField,
  messageFromLotusJson,
  messageToLotusJson,
  parseJsonLossless,
  readJsonCid,
  readJsonInt64,
  readJsonUint64,
  signatureFromLotusJson,
  stringifyJsonLossless,
} from '../../src/types/index.js';

const baseMessage = {
  To: 'f01234',
  From: 'f1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqy',
  Nonce: 1,
  Value: '1',
  GasLimit: 1000,
  GasFeeCap: '100',
  GasPremium: '10',
  Method: 0,
  Params: null,
};

describe('parseJsonLossless / stringifyJsonLossless', () => {
  it('keeps integers beyond 2^53 exact and leaves the rest as JSON.parse does', () => {
    const parsed = parseJsonLossless(
      '{"a": 18446744073709551615, "b": 9007199254740991, "c": -9223372036854775808, "d": 1.5, "e": [true, null, "x"]}',
    );
    expect(parsed).toEqual({
      a: 18446744073709551615n,
      b: 9007199254740991,
      c: -9223372036854775808n,
      d: 1.5,
      e: [true, null, 'x'],
    });
  });

  it('writes bigints as JSON numbers, so the text round-trips', () => {
    const text = stringifyJsonLossless({ Nonce: 18446744073709551615n, Height: 7, Value: '5' });
    expect(text).toBe('{"Nonce":18446744073709551615,"Height":7,"Value":"5"}');
    expect(parseJsonLossless(text)).toEqual({ Nonce: 18446744073709551615n, Height: 7, Value: '5' });
  });

  it('reports malformed JSON as a JsonDecodeError', () => {
    expect(() => parseJsonLossless('{"a": 1,}')).toThrow(JsonDecodeError);
  });
});

describe('integer fields', () => {
  it('accept a number, a bigint or a string of digits, and null or absence as zero (Go zero value)', () => {
    expect(readJsonUint64(5, 'X')).toBe(5n);
    expect(readJsonUint64(18446744073709551615n, 'X')).toBe(18446744073709551615n);
    expect(readJsonUint64('18446744073709551615', 'X')).toBe(18446744073709551615n);
    expect(readJsonInt64(-5, 'X')).toBe(-5n);
    expect(readJsonUint64(undefined, 'X')).toBe(0n);
    expect(readJsonUint64(null, 'X')).toBe(0n);
  });

  it.each([
    [1.5, 'Message.Nonce: expected an unsigned 64-bit integer, got 1.5'],
    ['12a', 'Message.Nonce: expected an unsigned 64-bit integer, got "12a"'],
    [-1, 'Message.Nonce: expected an unsigned 64-bit integer (out of range), got -1'],
    [
      18446744073709551616n,
      'Message.Nonce: expected an unsigned 64-bit integer (out of range), got 18446744073709551616',
    ],
    [2 ** 60, 'this number lost precision (parse with parseJsonLossless)'],
    [true, 'got true'],
  ])('reject %p', (value, message) => {
    expect(() => readJsonUint64(value, 'Message.Nonce')).toThrow(message);
  });

  it('bound int64 both ways', () => {
    expect(readJsonInt64(-9223372036854775808n, 'X')).toBe(-9223372036854775808n);
    expect(() => readJsonInt64(9223372036854775808n, 'BlockHeader.Height')).toThrow(
      'BlockHeader.Height: expected a signed 64-bit integer (out of range)',
    );
  });
});

describe('objects, keys and CIDs', () => {
  it('match keys exactly, else case-insensitively, and ignore unknown keys like Lotus', () => {
    expect(jsonField({ gaslimit: 1, GasLimit: 2 }, 'GasLimit')).toBe(2);
    expect(jsonField({ gaslimit: 1 }, 'GasLimit')).toBe(1);
    const lower = Object.fromEntries(Object.entries(baseMessage).map(([k, v]) => [k.toLowerCase(), v]));
    const message = messageFromLotusJson({ ...lower, CID: { '/': 'ignored' }, Extra: 1 });
    expect(messageToLotusJson(message)).toEqual(messageToLotusJson(messageFromLotusJson(baseMessage)));
  });

  it('name the path of a non-object', () => {
    expect(() => messageFromLotusJson([])).toThrow('Message: expected an object, got an array of 0');
    expect(() => signatureFromLotusJson('x', 'SignedMessage.Signature')).toThrow(
      'SignedMessage.Signature: expected an object, got "x"',
    );
  });

  it('read CID links only in {"/": …} form', () => {
    const cid = 'bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2';
    expect(readJsonCid({ '/': cid }, 'X').toString()).toBe(cid);
    expect(() => readJsonCid(cid, 'BlockHeader.Messages')).toThrow(
      'BlockHeader.Messages: expected a CID link {"/": "bafy…"}',
    );
    expect(() => readJsonCid({ '/': '' }, 'X')).toThrow(/^X: invalid CID ""/);
    expect(() => readJsonCid(null, 'X')).toThrow('X: expected a CID link {"/": "bafy…"}, got null');
  });
});

describe('Message JSON', () => {
  it('defaults absent fields to Go zero values (Zondax omits Version) and writes the CID', () => {
    const json = messageToLotusJson(messageFromLotusJson({ To: 'f01', From: 'f02' }));
    expect(json).toMatchObject({ Version: 0, Nonce: 0, Value: '0', GasLimit: 0, Method: 0, Params: null });
    expect(json.CID['/']).toMatch(/^bafy2bzace/);
  });

  it.each([
    [{ Value: 1.5 }, 'Message.Value: expected a decimal string, got 1.5'],
    [{ Version: 42 }, 'Message.Version: must be 0 (the only message version), got 42'],
    [{ Params: 'not base64!' }, 'Message.Params: expected a base64 string, got "not base64!"'],
    [{ Params: 12 }, 'Message.Params: expected a base64 string or null, got 12'],
    [{ To: undefined }, 'Message.To: expected an address string, got nothing'],
    [{ GasLimit: '1e3' }, 'Message.GasLimit: expected a signed 64-bit integer, got "1e3"'],
  ])('rejects %j', (change, message) => {
    expect(() => messageFromLotusJson({ ...baseMessage, ...change })).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_DECODE', message }),
    );
  });

  it('names nested paths in block headers', () => {
    expect(() =>
      blockHeaderFromLotusJson({ Miner: 'f01000', BeaconEntries: [{ Round: 1, Data: '' }, { Round: -1 }] }),
    ).toThrow('BlockHeader.BeaconEntries[1].Round: expected an unsigned 64-bit integer (out of range), got -1');
    const link = { '/': 'bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2' };
    const cids = { ParentStateRoot: link, ParentMessageReceipts: link, Messages: link };
    expect(() => blockHeaderFromLotusJson({ Miner: 'f01000', ...cids, BlockSig: { Type: 7, Data: '' } })).toThrow(
      'BlockHeader.BlockSig.Type: expected one of 1, 2, 3, got 7',
    );
  });
});
