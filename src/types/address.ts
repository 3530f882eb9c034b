/**
 * Filecoin addresses (go-address semantics): byte form `protocol || payload`, string form
 * network char + protocol digit + decimal ID or base32(payload || blake2b-32 checksum).
 * IDs and delegated namespaces are capped at 2^63−1 as go-address and Lotus do (ref-fvm allows u64).
 * There is no "undefined" address: every Address is valid, and every invalid input raises an
 * `AddressError` whose code names the problem.
 */
import { blake2b32, blake2b160 } from '../crypto/index.js';
import { bytesEqual, concatBytes } from '../utils/bytes.js';
import { InvalidArgumentError } from '../utils/errors.js';
import { decodeBase32, encodeBase32 } from './base32.js';
import { encodeCbor } from './cbor.js';
import { readBytes } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { AddressError, AddressErrorCode } from './errors.js';
import { MAX_INT64 } from './integers.js';
import { jsonFail } from './json.js';
import type { FieldKind } from './struct.js';
import { decodeUvarint, encodeUvarint } from './uvarint.js';

export const AddressProtocol = { ID: 0, Secp256k1: 1, Actor: 2, BLS: 3, Delegated: 4 } as const;
export type AddressProtocol = (typeof AddressProtocol)[keyof typeof AddressProtocol];

/** `f` renders mainnet addresses, `t` test networks; both parse everywhere and the bytes are the same. */
export type Network = 'f' | 't';

/**
 * The network char `Address.toString()` uses when none is given — Lotus's process-wide
 * `address.CurrentNetwork`. Mainnet (`f`) by default; node startup sets it once for test networks.
 */
let defaultNetwork: Network = 'f';

export function setDefaultNetwork(network: Network): void {
  if (network !== 'f' && network !== 't') {
    throw new InvalidArgumentError(`network must be "f" or "t", got ${JSON.stringify(network)}`);
  }
  defaultNetwork = network;
}

export function getDefaultNetwork(): Network {
  return defaultNetwork;
}

const PAYLOAD_HASH_LENGTH = 20;
const BLS_PUBLIC_KEY_LENGTH = 48;
const SECP256K1_PUBLIC_KEY_LENGTH = 65;
const CHECKSUM_LENGTH = 4;
export const MAX_SUBADDRESS_LENGTH = 54;
const MAX_INT64_DIGITS = 19;
/** 2 + 19 digits + 'f' + base32 of a 54-byte subaddress and checksum. */
const MAX_STRING_LENGTH = 115;
/** go-address refuses longer byte strings in CBOR: 1 + 9 (namespace) + 54 is the longest address. */
export const MAX_ADDRESS_BYTES = 64;

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

function readVarint(payload: Uint8Array, what: string): { value: bigint; length: number } {
  const result = decodeUvarint(payload);
  if ('error' in result) {
    throw new AddressError(
      AddressErrorCode.InvalidPayload,
      `invalid address payload: ${what} varint is ${result.error}`,
    );
  }
  if (result.value > MAX_INT64) {
    throw new AddressError(AddressErrorCode.InvalidPayload, `invalid address payload: ${what} exceeds 2^63-1`);
  }
  return result;
}

/** The payload checks of go-address `newAddress`, shared by every way of making an address. */
function checkPayload(protocol: number, payload: Uint8Array): void {
  const wrongLength = (expected: string) =>
    new AddressError(
      AddressErrorCode.InvalidLength,
      `invalid address length: protocol ${protocol} payloads are ${expected} bytes, got ${payload.length}`,
    );
  switch (protocol) {
    case AddressProtocol.ID: {
      const { length } = readVarint(payload, 'ID');
      if (length !== payload.length) throw wrongLength(`${length} (the ID varint)`);
      return;
    }
    case AddressProtocol.Secp256k1:
    case AddressProtocol.Actor:
      if (payload.length !== PAYLOAD_HASH_LENGTH) throw wrongLength(`${PAYLOAD_HASH_LENGTH}`);
      return;
    case AddressProtocol.BLS:
      if (payload.length !== BLS_PUBLIC_KEY_LENGTH) throw wrongLength(`${BLS_PUBLIC_KEY_LENGTH}`);
      return;
    case AddressProtocol.Delegated: {
      const { length } = readVarint(payload, 'delegated namespace');
      if (payload.length - length > MAX_SUBADDRESS_LENGTH) {
        throw new AddressError(
          AddressErrorCode.InvalidLength,
          `invalid address length: delegated subaddress of ${payload.length - length} bytes exceeds ${MAX_SUBADDRESS_LENGTH}`,
        );
      }
      return;
    }
    default:
      throw new AddressError(AddressErrorCode.UnknownProtocol, `unknown address protocol: ${protocol}`);
  }
}

function checksum(protocol: number, payload: Uint8Array): Uint8Array {
  return blake2b32(concatBytes(Uint8Array.of(protocol), payload));
}

function parseDecimal63(digits: string, what: string): bigint {
  if (digits.length > MAX_INT64_DIGITS) {
    throw new AddressError(
      AddressErrorCode.InvalidLength,
      `invalid address length: ${what} ${quote(digits)} is too long`,
    );
  }
  if (!/^\d+$/.test(digits) || BigInt(digits) > MAX_INT64) {
    throw new AddressError(
      AddressErrorCode.InvalidPayload,
      `invalid address payload: ${what} ${quote(digits)} is not a decimal number from 0 to 2^63-1`,
    );
  }
  return BigInt(digits);
}

interface ChecksummedPayload {
  payload: Uint8Array;
  checksum: Uint8Array;
}

function decodeChecksummed(text: string, encoded: string): ChecksummedPayload {
  let decoded: Uint8Array;
  try {
    decoded = decodeBase32(encoded);
  } catch (error) {
    throw new AddressError(
      AddressErrorCode.InvalidEncoding,
      `invalid encoding: ${quote(text)}: ${(error as Error).message}`,
    );
  }
  if (decoded.length < CHECKSUM_LENGTH) {
    throw new AddressError(AddressErrorCode.InvalidLength, `invalid address length: ${quote(text)} is too short`);
  }
  return { payload: decoded.subarray(0, -CHECKSUM_LENGTH), checksum: decoded.subarray(-CHECKSUM_LENGTH) };
}

/** The `<namespace>f<base32>` rest of an f4 string; the payload starts with the namespace varint. */
function parseDelegated(text: string, raw: string): ChecksummedPayload {
  const separator = raw.indexOf('f');
  if (separator < 0) {
    throw new AddressError(
      AddressErrorCode.InvalidPayload,
      `invalid address payload: ${quote(text)} lacks the "f" after the namespace`,
    );
  }
  const namespace = parseDecimal63(raw.slice(0, separator), 'namespace');
  const { payload: subaddress, checksum } = decodeChecksummed(text, raw.slice(separator + 1));
  if (subaddress.length > MAX_SUBADDRESS_LENGTH) {
    throw new AddressError(
      AddressErrorCode.InvalidLength,
      `invalid address length: ${quote(text)} has a subaddress longer than ${MAX_SUBADDRESS_LENGTH} bytes`,
    );
  }
  return { payload: concatBytes(encodeUvarint(namespace), subaddress), checksum };
}

/** The base32 rest of an f1, f2 or f3 string, whose payload length is fixed by the protocol. */
function parseKeyed(text: string, raw: string, protocol: number): ChecksummedPayload {
  const decoded = decodeChecksummed(text, raw);
  const expectedLength = protocol === AddressProtocol.BLS ? BLS_PUBLIC_KEY_LENGTH : PAYLOAD_HASH_LENGTH;
  if (decoded.payload.length !== expectedLength) {
    throw new AddressError(
      AddressErrorCode.InvalidLength,
      `invalid address length: ${quote(text)} carries ${decoded.payload.length} payload bytes, protocol ${protocol} has ${expectedLength}`,
    );
  }
  return decoded;
}

/**
 * Addresses parsed from strings, by string: an RPC call names the same few senders and recipients
 * over and over, and each parse costs a base32 decode and a blake2b checksum. Addresses are
 * immutable, so one instance can serve every parse; the map is emptied when it fills.
 */
const PARSED_CACHE_SIZE = 8192;
const parsedAddresses = new Map<string, Address>();

export class Address {
  readonly #bytes: Uint8Array;
  /** toString's answer for the network it was last asked for (a checksum and base32 encode). */
  #string: string | undefined;
  #stringNetwork: Network | undefined;

  private constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  /** Validates and copies: an Address never shares memory with its caller. */
  static #create(protocol: number, payload: Uint8Array): Address {
    checkPayload(protocol, payload);
    return new Address(concatBytes(Uint8Array.of(protocol), payload));
  }

  /** An f0 address; `id` must be from 0 to 2^63−1. */
  static newId(id: bigint): Address {
    if (id < 0n || id > MAX_INT64) {
      throw new AddressError(
        AddressErrorCode.InvalidPayload,
        `invalid address payload: ID ${id} is not from 0 to 2^63-1`,
      );
    }
    return Address.#create(AddressProtocol.ID, encodeUvarint(id));
  }

  /** The f1 address of a 65-byte uncompressed secp256k1 public key (`04 || X || Y`). */
  static newSecp256k1(publicKey: Uint8Array): Address {
    if (publicKey.length !== SECP256K1_PUBLIC_KEY_LENGTH || publicKey[0] !== 0x04) {
      throw new AddressError(
        AddressErrorCode.InvalidPayload,
        `invalid address payload: a secp256k1 public key is 65 bytes starting 0x04, got ${publicKey.length} bytes`,
      );
    }
    return Address.#create(AddressProtocol.Secp256k1, blake2b160(publicKey));
  }

  /** The f2 address derived from actor-creation data. */
  static newActor(data: Uint8Array): Address {
    return Address.#create(AddressProtocol.Actor, blake2b160(data));
  }

  /** The f3 address of a 48-byte compressed BLS public key. */
  static newBls(publicKey: Uint8Array): Address {
    return Address.#create(AddressProtocol.BLS, publicKey);
  }

  /** An f4 address: `namespace` is the ID of the address manager actor (10 for Ethereum). */
  static newDelegated(namespace: bigint, subaddress: Uint8Array): Address {
    if (namespace < 0n || namespace > MAX_INT64) {
      throw new AddressError(
        AddressErrorCode.InvalidPayload,
        `invalid address payload: namespace ${namespace} is not from 0 to 2^63-1`,
      );
    }
    return Address.#create(AddressProtocol.Delegated, concatBytes(encodeUvarint(namespace), subaddress));
  }

  static fromBytes(bytes: Uint8Array): Address {
    if (bytes.length < 2) {
      throw new AddressError(
        AddressErrorCode.InvalidLength,
        `invalid address length: ${bytes.length} bytes (an address is a protocol byte and a payload)`,
      );
    }
    return Address.#create(bytes[0] as number, bytes.subarray(1));
  }

  static fromString(text: string): Address {
    const known = parsedAddresses.get(text);
    if (known !== undefined) return known;
    const address = Address.#parse(text);
    if (parsedAddresses.size >= PARSED_CACHE_SIZE) parsedAddresses.clear();
    parsedAddresses.set(text, address);
    return address;
  }

  static #parse(text: string): Address {
    if (text.length < 3 || text.length > MAX_STRING_LENGTH) {
      throw new AddressError(
        AddressErrorCode.InvalidLength,
        `invalid address length: ${quote(text)} has ${text.length} characters (3 to ${MAX_STRING_LENGTH} allowed)`,
      );
    }
    if (text[0] !== 'f' && text[0] !== 't') {
      throw new AddressError(
        AddressErrorCode.UnknownNetwork,
        `unknown address network: ${quote(text)} must start with f or t`,
      );
    }
    const protocol = '01234'.indexOf(text[1] as string);
    if (protocol < 0) {
      throw new AddressError(
        AddressErrorCode.UnknownProtocol,
        `unknown address protocol: ${quote(text)} has protocol ${JSON.stringify(text[1])} (0 to 4 exist)`,
      );
    }
    const raw = text.slice(2);
    if (protocol === AddressProtocol.ID) return Address.newId(parseDecimal63(raw, 'ID'));
    const { payload, checksum: expected } =
      protocol === AddressProtocol.Delegated ? parseDelegated(text, raw) : parseKeyed(text, raw, protocol);
    if (!bytesEqual(checksum(protocol, payload), expected)) {
      throw new AddressError(AddressErrorCode.InvalidChecksum, `invalid address checksum: ${quote(text)}`);
    }
    return Address.#create(protocol, payload);
  }

  get protocol(): AddressProtocol {
    return this.#bytes[0] as AddressProtocol;
  }

  /** The byte form, `protocol || payload`. Shared, not copied: do not modify it. */
  get bytes(): Uint8Array {
    return this.#bytes;
  }

  get payload(): Uint8Array {
    return this.#bytes.subarray(1);
  }

  /** The actor ID of an f0 address. */
  id(): bigint {
    if (this.protocol !== AddressProtocol.ID) {
      throw new AddressError(AddressErrorCode.WrongProtocol, `${this} is not an ID address`);
    }
    return (decodeUvarint(this.payload) as { value: bigint }).value;
  }

  /** The namespace and subaddress of an f4 address. */
  delegated(): { namespace: bigint; subaddress: Uint8Array } {
    if (this.protocol !== AddressProtocol.Delegated) {
      throw new AddressError(AddressErrorCode.WrongProtocol, `${this} is not a delegated address`);
    }
    const { value, length } = decodeUvarint(this.payload) as { value: bigint; length: number };
    return { namespace: value, subaddress: this.payload.subarray(length) };
  }

  toString(network: Network = defaultNetwork): string {
    if (this.#stringNetwork !== network || this.#string === undefined) {
      this.#string = this.#format(network);
      this.#stringNetwork = network;
    }
    return this.#string;
  }

  #format(network: Network): string {
    const protocol = this.protocol;
    if (protocol === AddressProtocol.ID) return `${network}0${this.id()}`;
    const sum = checksum(protocol, this.payload);
    if (protocol === AddressProtocol.Delegated) {
      const { namespace, subaddress } = this.delegated();
      return `${network}4${namespace}f${encodeBase32(concatBytes(subaddress, sum))}`;
    }
    return `${network}${protocol}${encodeBase32(concatBytes(this.payload, sum))}`;
  }

  equals(other: Address): boolean {
    return bytesEqual(this.#bytes, other.#bytes);
  }
}

/** In CBOR an address is a byte string of its byte form. */
export function addressToCborNode(address: Address): Uint8Array {
  return address.bytes;
}

export function addressFromCborNode(node: CborNode, path: string): Address {
  const bytes = readBytes(node, path, MAX_ADDRESS_BYTES);
  try {
    return Address.fromBytes(bytes);
  } catch (error) {
    throw error instanceof AddressError ? error.at(path) : error;
  }
}

export function encodeAddress(address: Address): Uint8Array {
  return encodeCbor(addressToCborNode(address));
}

export function decodeAddress(bytes: Uint8Array): Address {
  return addressFromCborNode(decodeChainCbor(bytes, 'Address'), 'Address');
}

/** Lotus JSON renders an address as its string with the default network char. */
export function addressToLotusJson(address: Address): string {
  return address.toString();
}

export function addressFromLotusJson(json: unknown, path = 'Address'): Address {
  if (typeof json !== 'string' || json === '') jsonFail(path, 'an address string', json);
  try {
    return Address.fromString(json);
  } catch (error) {
    throw error instanceof AddressError ? error.at(path) : error;
  }
}

export const addressSchema = {
  title: 'Address',
  type: 'string',
  description:
    'A Filecoin address: f/t, the protocol digit (0 ID, 1 secp256k1, 2 actor, 3 BLS, 4 delegated), the payload',
  pattern: '^[ft][0-4][0-9a-z]+$',
  examples: ['t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba'],
} as const;

/**
 * The address as a struct field. Written by hand rather than from the generic kinds: its bytes
 * (`protocol || payload`) and its string (network char, protocol digit, base32 with a blake2b
 * checksum) are two different encodings with their own validation (go-address address.go), and
 * the string depends on the node's network.
 */
export const addressKind: FieldKind<Address, string> = {
  toCbor: addressToCborNode,
  fromCbor: addressFromCborNode,
  toJson: addressToLotusJson,
  fromJson: addressFromLotusJson,
  schema: addressSchema,
  required: true,
};
