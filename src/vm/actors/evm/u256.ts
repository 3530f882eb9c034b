/**
 * builtin-actors' U256 (`actors/evm/shared/src/uints.rs`): a 256-bit word, in CBOR a byte string
 * holding its big-endian bytes with the leading zeros stripped (zero is the empty string).
 */
import { RawCborReader, RawCborWriter } from '../../../ipld/raw-cbor.js';
import { InvalidArgumentError } from '../../../utils/errors.js';

export const U256_BYTES = 32;
const MAX_U256 = (1n << 256n) - 1n;

/** The 32 big-endian bytes of a word (EVM words wrap, so callers pass values already in range). */
export function u256ToBytes32(value: bigint): Uint8Array {
  if (value < 0n || value > MAX_U256) throw new InvalidArgumentError(`U256 out of range: ${value}`);
  const bytes = new Uint8Array(U256_BYTES);
  let rest = value;
  for (let i = U256_BYTES - 1; i >= 0 && rest > 0n; i--) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

/** A big-endian unsigned integer of at most 32 bytes. */
export function u256FromBytes(bytes: Uint8Array): bigint {
  if (bytes.length > U256_BYTES) throw new InvalidArgumentError(`U256 of ${bytes.length} bytes exceeds 32`);
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/** The U256's CBOR bytes: a byte string of its minimal big-endian bytes. */
export function encodeU256(value: bigint): Uint8Array {
  const bytes = u256ToBytes32(value);
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return new RawCborWriter().byteString(bytes.subarray(start)).finish();
}

/** Reads a U256 from its CBOR bytes (as builtin-actors does, leading zeros are accepted). */
export function decodeU256(encoded: Uint8Array, what = 'U256'): bigint {
  const reader = new RawCborReader(encoded, (reason) => new InvalidArgumentError(`${what}: ${reason}`));
  const value = u256FromBytes(reader.byteString());
  if (!reader.atEnd) throw new InvalidArgumentError(`${what}: trailing bytes`);
  return value;
}
