/** shared/vectors/address: go-address, ref-fvm and Lotus address tables (see its PROVENANCE.md). */
import { blake2b32 } from '../../src/crypto/index.js';
import {
  Address,
  AddressError,
  AddressErrorCode,
  addressFromEthAddress,
  decodeAddress,
  encodeAddress,
  ethAddressFromAddress,
  isEthAddress,
  MAX_INT64,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { readVectorJson } from './vectors-dir.js';

interface KeyedVector {
  input_hex: string;
  testnet: string;
  mainnet: string;
  payload_hex_derived: string;
  bytes_hex_derived: string;
  checksum_hex_derived: string;
  cbor_hex?: string;
}

interface AddressVectors {
  id: Array<{ id: string; testnet?: string; mainnet: string; bytes_hex_derived?: string; cbor_hex?: string }>;
  secp256k1: KeyedVector[];
  actor: KeyedVector[];
  bls: KeyedVector[];
  delegated: Array<{ namespace: string; subaddress_hex: string; mainnet: string; bytes_hex_derived: string }>;
  invalid_strings: Array<{ input: string; error: string }>;
  invalid_bytes: Array<{ bytes_hex: string; error: string }>;
  trailing_bits: Array<{ input: string; valid: boolean }>;
  eth_f410f: Array<{
    address: string;
    bytes_hex_derived: string;
    valid_eth_address: boolean | null;
    eth_address_derived?: string;
  }>;
}

const vectors = readVectorJson<AddressVectors>('address', 'address_vectors.json');

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AddressError);
    return (error as AddressError).code;
  }
  throw new Error('expected an AddressError, nothing was thrown');
};

/** Maps the vector's go-address/ref-fvm error name to our code. */
function expectedCode(error: string): AddressErrorCode | 'any' {
  if (error.startsWith('Base32') || error.startsWith('InvalidEncoding')) return AddressErrorCode.InvalidEncoding;
  if (error.startsWith('any error')) return 'any';
  if (error.includes('MaxInt64') || error.includes('truncated uvarint')) return AddressErrorCode.InvalidPayload;
  const name = error.split(/[ (]/)[0] as keyof typeof AddressErrorCode;
  const code = AddressErrorCode[name];
  if (code === undefined) throw new Error(`unmapped vector error ${error}`);
  return code;
}

describe('ID addresses', () => {
  const valid = vectors.id.filter((v) => BigInt(v.id) <= MAX_INT64);
  it('covers the table, including 2^63-1', () => {
    expect(valid).toHaveLength(9);
    expect(valid.map((v) => v.id)).toContain('9223372036854775807');
  });

  it.each(valid)('f0$id ↔ bytes ↔ CBOR', (v) => {
    const address = Address.newId(BigInt(v.id));
    expect(address.toString('f')).toBe(v.mainnet);
    expect(address.toString('t')).toBe(v.testnet);
    expect(toHex(address.bytes)).toBe(v.bytes_hex_derived);
    expect(address.id()).toBe(BigInt(v.id));
    expect(Address.fromString(v.mainnet).equals(address)).toBe(true);
    expect(Address.fromString(v.testnet as string).equals(address)).toBe(true);
    expect(Address.fromBytes(fromHex(v.bytes_hex_derived as string)).equals(address)).toBe(true);
    if (v.cbor_hex !== undefined) {
      expect(toHex(encodeAddress(address))).toBe(v.cbor_hex);
      expect(decodeAddress(fromHex(v.cbor_hex)).equals(address)).toBe(true);
    }
  });

  it('rejects IDs above 2^63-1 as go-address does (ref-fvm accepts u64::MAX)', () => {
    const tooLarge = vectors.id.filter((v) => BigInt(v.id) > MAX_INT64);
    expect(tooLarge).toHaveLength(2);
    for (const v of tooLarge) {
      expect(codeOf(() => Address.newId(BigInt(v.id)))).toBe(AddressErrorCode.InvalidPayload);
      // 20 digits are too long to be an int63 (InvalidLength); 19 digits above 2^63-1 are a bad payload.
      expect(codeOf(() => Address.fromString(v.mainnet))).toBe(
        v.id.length > 19 ? AddressErrorCode.InvalidLength : AddressErrorCode.InvalidPayload,
      );
      if (v.bytes_hex_derived !== undefined) {
        expect(codeOf(() => Address.fromBytes(fromHex(v.bytes_hex_derived as string)))).toBe(
          AddressErrorCode.InvalidPayload,
        );
      }
    }
  });
});

describe.each([
  ['secp256k1', vectors.secp256k1, (input: Uint8Array) => Address.newSecp256k1(input)],
  ['actor', vectors.actor, (input: Uint8Array) => Address.newActor(input)],
  ['bls', vectors.bls, (input: Uint8Array) => Address.newBls(input)],
] as const)('%s addresses', (_name, table, create) => {
  it.each(table)('$mainnet', (v) => {
    const address = create(fromHex(v.input_hex));
    expect(address.toString('f')).toBe(v.mainnet);
    expect(address.toString('t')).toBe(v.testnet);
    expect(toHex(address.payload)).toBe(v.payload_hex_derived);
    expect(toHex(address.bytes)).toBe(v.bytes_hex_derived);
    expect(toHex(blake2b32(address.bytes))).toBe(v.checksum_hex_derived);
    expect(toHex(Address.fromString(v.mainnet).bytes)).toBe(v.bytes_hex_derived);
    expect(toHex(Address.fromString(v.testnet).bytes)).toBe(v.bytes_hex_derived);
    expect(Address.fromBytes(fromHex(v.bytes_hex_derived)).toString('t')).toBe(v.testnet);
    if (v.cbor_hex !== undefined) {
      expect(toHex(encodeAddress(address))).toBe(v.cbor_hex);
      expect(decodeAddress(fromHex(v.cbor_hex)).equals(address)).toBe(true);
    }
  });
});

describe('delegated addresses', () => {
  const valid = vectors.delegated.filter((v) => BigInt(v.namespace) <= MAX_INT64);
  const tooLarge = vectors.delegated.filter((v) => BigInt(v.namespace) > MAX_INT64);

  it.each(valid)('$mainnet', (v) => {
    const address = Address.newDelegated(BigInt(v.namespace), fromHex(v.subaddress_hex));
    expect(address.toString('f')).toBe(v.mainnet);
    expect(toHex(address.bytes)).toBe(v.bytes_hex_derived);
    expect(toHex(Address.fromString(v.mainnet).bytes)).toBe(v.bytes_hex_derived);
    expect(Address.fromBytes(fromHex(v.bytes_hex_derived)).toString('f')).toBe(v.mainnet);
    expect(address.delegated().namespace).toBe(BigInt(v.namespace));
    expect(toHex(address.delegated().subaddress)).toBe(v.subaddress_hex);
  });

  it('includes the 54-byte maximum subaddress', () => {
    expect(valid.some((v) => v.subaddress_hex.length === 108)).toBe(true);
  });

  it.each(tooLarge)('rejects namespace u64::MAX ($mainnet), as go-address does', (v) => {
    expect(codeOf(() => Address.newDelegated(BigInt(v.namespace), fromHex(v.subaddress_hex)))).toBe(
      AddressErrorCode.InvalidPayload,
    );
    expect(codeOf(() => Address.fromString(v.mainnet))).toBe(AddressErrorCode.InvalidLength);
    expect(codeOf(() => Address.fromBytes(fromHex(v.bytes_hex_derived)))).toBe(AddressErrorCode.InvalidPayload);
  });
});

describe('invalid strings', () => {
  it.each(vectors.invalid_strings)('$input → $error', ({ input, error }) => {
    const code = codeOf(() => Address.fromString(input));
    const expected = expectedCode(error);
    if (expected !== 'any') expect(code).toBe(expected);
  });
});

describe('invalid bytes', () => {
  it.each(vectors.invalid_bytes)('$bytes_hex → $error', ({ bytes_hex, error }) => {
    expect(codeOf(() => Address.fromBytes(fromHex(bytes_hex)))).toBe(expectedCode(error));
  });
});

describe('trailing bits', () => {
  it.each(vectors.trailing_bits)('$input valid=$valid', ({ input, valid }) => {
    if (valid) expect(Address.fromString(input).toString('f')).toBe(input);
    else expect(codeOf(() => Address.fromString(input))).toBe(AddressErrorCode.InvalidEncoding);
  });
});

describe('f410f and Ethereum addresses', () => {
  it.each(vectors.eth_f410f)('$address', (v) => {
    const address = Address.fromString(v.address);
    expect(toHex(address.bytes)).toBe(v.bytes_hex_derived);
    expect(address.toString('f')).toBe(v.address);
    expect(isEthAddress(address)).toBe(v.valid_eth_address === true);
    if (v.valid_eth_address === true) {
      expect(ethAddressFromAddress(address)).toBe(v.eth_address_derived);
      expect(addressFromEthAddress(v.eth_address_derived as string).equals(address)).toBe(true);
      expect(v.address).toHaveLength(44);
    } else {
      expect(codeOf(() => ethAddressFromAddress(address))).toBe(AddressErrorCode.NotEthAddress);
    }
  });

  it('maps a masked-ID Ethereum address to its ID address, not to the f410 that embeds it', () => {
    const masked = vectors.eth_f410f.find((v) => v.valid_eth_address === false);
    expect(addressFromEthAddress(masked?.eth_address_derived as string).toString('f')).toBe(`f0${0x2ec8fa}`);
  });

  it.each([1, 2, 3, 100, 101])('f0%i ↔ masked ID (Lotus TestParseEthAddr)', (id) => {
    const eth = ethAddressFromAddress(Address.newId(BigInt(id)));
    expect(eth).toBe(`0xff${'00'.repeat(11)}${id.toString(16).padStart(16, '0')}`);
    expect(addressFromEthAddress(eth).id()).toBe(BigInt(id));
  });

  it('knows f0100 ↔ 0xff00000000000000000000000000000000000064', () => {
    expect(ethAddressFromAddress(Address.fromString('f0100'))).toBe('0xff00000000000000000000000000000000000064');
    expect(addressFromEthAddress('0xff00000000000000000000000000000000000064').toString('f')).toBe('f0100');
  });
});
