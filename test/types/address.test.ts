import {
  Address,
  AddressError,
  AddressErrorCode,
  AddressProtocol,
  addressFromCborNode,
  addressFromEthAddress,
  addressFromLotusJson,
  addressToLotusJson,
  decodeAddress,
  ethAddressFromAddress,
  getDefaultNetwork,
  MAX_INT64,
  messageFromLotusJson,
  setDefaultNetwork,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';

const blsKey = fromHex(
  'ad58df696e2d4e91ea86c881e938ba4ea81b395e12797b84b9cf314b9546705e839c7a99d606b247ddb4f9ac7a3414dd',
);

describe('constructors', () => {
  it('newId covers 0 … 2^63-1 and nothing else', () => {
    expect(Address.newId(0n).toString('f')).toBe('f00');
    expect(Address.newId(MAX_INT64).id()).toBe(MAX_INT64);
    expect(() => Address.newId(-1n)).toThrow(expect.objectContaining({ code: AddressErrorCode.InvalidPayload }));
    expect(() => Address.newId(MAX_INT64 + 1n)).toThrow(/not from 0 to 2\^63-1/);
  });

  it('newSecp256k1 wants a 65-byte uncompressed key', () => {
    const compressed = new Uint8Array(33).fill(2);
    expect(() => Address.newSecp256k1(compressed)).toThrow(
      expect.objectContaining({ code: AddressErrorCode.InvalidPayload }),
    );
    expect(() => Address.newSecp256k1(new Uint8Array(65))).toThrow(/65 bytes starting 0x04/);
  });

  it('newBls wants 48 bytes', () => {
    expect(Address.newBls(blsKey).protocol).toBe(AddressProtocol.BLS);
    expect(() => Address.newBls(blsKey.subarray(1))).toThrow(
      expect.objectContaining({ code: AddressErrorCode.InvalidLength }),
    );
  });

  it('newDelegated bounds the namespace and the subaddress', () => {
    expect(Address.newDelegated(10n, new Uint8Array(54)).delegated().subaddress).toHaveLength(54);
    expect(() => Address.newDelegated(10n, new Uint8Array(55))).toThrow(
      expect.objectContaining({ code: AddressErrorCode.InvalidLength }),
    );
    expect(() => Address.newDelegated(-1n, new Uint8Array(1))).toThrow(
      expect.objectContaining({ code: AddressErrorCode.InvalidPayload }),
    );
  });

  it('copies its input, so later changes to the caller’s buffer do not change the address', () => {
    const key = Uint8Array.from(blsKey);
    const address = Address.newBls(key);
    const bytes = Uint8Array.from(address.bytes);
    key.fill(0);
    expect(address.bytes).toEqual(bytes);
    const raw = Uint8Array.from(bytes);
    const fromRaw = Address.fromBytes(raw);
    raw.fill(0);
    expect(fromRaw.bytes).toEqual(bytes);
  });

  it('id() and delegated() refuse other protocols', () => {
    expect(() => Address.newBls(blsKey).id()).toThrow(
      expect.objectContaining({ code: AddressErrorCode.WrongProtocol }),
    );
    expect(() => Address.newId(5n).delegated()).toThrow(
      expect.objectContaining({ code: AddressErrorCode.WrongProtocol }),
    );
  });
});

describe('bytes', () => {
  it.each([
    ['008000', AddressErrorCode.InvalidPayload, 'invalid address payload: ID varint is not minimal'],
    ['0001ff', AddressErrorCode.InvalidLength, 'protocol 0 payloads are 1 (the ID varint) bytes, got 2'],
    ['0480', AddressErrorCode.InvalidPayload, 'delegated namespace varint is truncated'],
    ['', AddressErrorCode.InvalidLength, 'invalid address length: 0 bytes'],
  ])('%s fails with %s', (hex, code, message) => {
    expect(() => Address.fromBytes(fromHex(hex))).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(message) }),
    );
  });

  it('take the longest ID and an empty delegated subaddress', () => {
    expect(Address.fromBytes(fromHex('00ffffffffffffffff7f')).id()).toBe(MAX_INT64);
    expect(Address.fromBytes(fromHex('040a')).toString('f')).toBe(
      Address.newDelegated(10n, new Uint8Array(0)).toString('f'),
    );
  });
});

describe('strings', () => {
  it('parse both networks to the same bytes and render with the chosen one', () => {
    const a = Address.fromString('f1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqy');
    const b = Address.fromString('t1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqy');
    expect(a.equals(b)).toBe(true);
    expect(a.toString('t')).toBe('t1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqy');
  });

  it('render with the process default network, which node startup may change', () => {
    const previous = getDefaultNetwork();
    try {
      const address = Address.newId(1234n);
      expect(address.toString()).toBe('f01234');
      setDefaultNetwork('t');
      expect(address.toString()).toBe('t01234');
      expect(`${address}`).toBe('t01234');
      expect(addressToLotusJson(address)).toBe('t01234');
      expect(address.toString('f')).toBe('f01234');
      expect(() => setDefaultNetwork('x' as 'f')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }));
    } finally {
      setDefaultNetwork(previous);
    }
  });

  it('accept leading zeros in IDs as go-address does, and render canonically', () => {
    expect(Address.fromString('f0007').toString('f')).toBe('f07');
  });

  it.each([
    ['', AddressErrorCode.InvalidLength],
    ['f0-1', AddressErrorCode.InvalidPayload],
    ['f0+1', AddressErrorCode.InvalidPayload],
    ['f4', AddressErrorCode.InvalidLength],
    ['f410', AddressErrorCode.InvalidPayload],
    ['f4f', AddressErrorCode.InvalidPayload],
    ['f410f', AddressErrorCode.InvalidLength],
    ['f410fa', AddressErrorCode.InvalidEncoding],
    ['F1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqy', AddressErrorCode.UnknownNetwork],
    ['f1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltq', AddressErrorCode.InvalidEncoding],
    ['f1xcbgdhkgkwht3hrrnui3jdopeejsoatkzmoltqa', AddressErrorCode.InvalidChecksum],
  ])('%j fails with %s', (text, code) => {
    expect(() => Address.fromString(text)).toThrow(expect.objectContaining({ code }));
  });

  it('say in the message what is wrong', () => {
    expect(() => Address.fromString('f9abc')).toThrow(
      'unknown address protocol: "f9abc" has protocol "9" (0 to 4 exist)',
    );
    expect(() => Address.fromString('t2gfvuyh7v2sx3paTm1k23wdzmhyhtmqctasbr24y')).toThrow(
      /invalid encoding: .*character "T" at 14 is not in the lower-case base32 alphabet/,
    );
  });
});

describe('CBOR and JSON codecs', () => {
  it('prefix errors with the field they were found in, keeping the code', () => {
    expect(() => addressFromCborNode(fromHex('0501'), 'Message.To')).toThrow(
      expect.objectContaining({
        code: AddressErrorCode.UnknownProtocol,
        message: 'Message.To: unknown address protocol: 5',
      }),
    );
    expect(() => messageFromLotusJson({ To: 'f0x', From: 'f01' })).toThrow(
      expect.objectContaining({
        code: AddressErrorCode.InvalidPayload,
        message: expect.stringMatching(/^Message\.To: /),
      }),
    );
  });

  it('refuse address byte strings longer than 64 bytes before parsing them', () => {
    const cbor = fromHex(`5841${'04'.repeat(65)}`);
    expect(() => decodeAddress(cbor)).toThrow('Address: expected at most 64 bytes, got bytes (65)');
  });

  it('refuse a CBOR text string where an address belongs', () => {
    expect(() => decodeAddress(fromHex('6466303132'))).toThrow('Address: expected bytes, got a text string');
  });

  it('refuse empty and non-string JSON addresses', () => {
    expect(() => addressFromLotusJson('', 'Message.From')).toThrow('Message.From: expected an address string, got ""');
    expect(() => addressFromLotusJson(1234)).toThrow('Address: expected an address string, got 1234');
    expect(() => addressFromLotusJson(null)).toThrow(expect.objectContaining({ code: 'ERR_JSON_DECODE' }));
  });
});

describe('Ethereum mapping', () => {
  it('rejects addresses without an Ethereum form', () => {
    for (const address of [Address.newBls(blsKey), Address.newDelegated(11n, new Uint8Array(20))]) {
      expect(() => ethAddressFromAddress(address)).toThrow(
        expect.objectContaining({ code: AddressErrorCode.NotEthAddress }),
      );
    }
  });

  it('accepts 0x/0X and mixed case, and nothing but 20 bytes of hex', () => {
    const lower = '0x52963ef50e27e06d72d59fcb4f3c2a687be3cfef';
    expect(addressFromEthAddress(lower.toUpperCase().replace('0X', '0x')).toString('f')).toBe(
      'f410fkkld55ioe7qg24wvt7fu6pbknb56ht7pt4zamxa',
    );
    expect(toHex(addressFromEthAddress(`0X${lower.slice(2)}`).bytes)).toBe(`040a${lower.slice(2)}`);
    for (const bad of ['0x1234', `${lower}00`, `0x${'g'.repeat(40)}`]) {
      expect(() => addressFromEthAddress(bad)).toThrow(
        expect.objectContaining({ code: AddressErrorCode.NotEthAddress }),
      );
    }
  });

  it('rejects a masked ID above 2^63-1 (it has no ID address)', () => {
    expect(() => addressFromEthAddress(`0xff${'00'.repeat(11)}ffffffffffffffff`)).toThrow(AddressError);
  });
});
