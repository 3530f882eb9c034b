/**
 * Filecoin's BigInt (token amounts, weights, power): in CBOR a byte string, empty for zero, else a
 * sign byte (0x00 positive, 0x01 negative) and the minimal big-endian magnitude, 128 bytes at most.
 * In Lotus JSON a decimal string.
 */
import { InvalidArgumentError } from '../utils/errors.js';
import { CborDecodeError } from './cbor.js';
import { readBytes } from './cbor-fields.js';
import type { CborNode } from './cbor-node.js';
import { jsonFail } from './json.js';

export const BIG_INT_MAX_SERIALIZED_LENGTH = 128;

export function bigIntToBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  let magnitude = value < 0n ? -value : value;
  const digits: number[] = [];
  while (magnitude > 0n) {
    digits.push(Number(magnitude & 0xffn));
    magnitude >>= 8n;
  }
  if (digits.length + 1 > BIG_INT_MAX_SERIALIZED_LENGTH) {
    throw new InvalidArgumentError(`big integer too large to serialize (${digits.length + 1} bytes > 128)`);
  }
  return Uint8Array.from([value < 0n ? 1 : 0, ...digits.reverse()]);
}

export function bigIntFromBytes(bytes: Uint8Array, path = 'BigInt'): bigint {
  if (bytes.length === 0) return 0n;
  if (bytes.length > BIG_INT_MAX_SERIALIZED_LENGTH) {
    throw new CborDecodeError(`${path}: big integer of ${bytes.length} bytes exceeds ${BIG_INT_MAX_SERIALIZED_LENGTH}`);
  }
  const sign = bytes[0];
  if (sign !== 0 && sign !== 1) throw new CborDecodeError(`${path}: big integer sign byte must be 0 or 1, got ${sign}`);
  // A zero or padded magnitude would re-encode differently, changing the CID of the object.
  if (bytes.length === 1 || bytes[1] === 0) {
    throw new CborDecodeError(`${path}: big integer magnitude is not minimal (zero is the empty byte string)`);
  }
  let magnitude = 0n;
  for (let i = 1; i < bytes.length; i++) magnitude = (magnitude << 8n) | BigInt(bytes[i] as number);
  return sign === 1 ? -magnitude : magnitude;
}

export function bigIntToCborNode(value: bigint): Uint8Array {
  return bigIntToBytes(value);
}

export function bigIntFromCborNode(node: CborNode, path: string): bigint {
  return bigIntFromBytes(readBytes(node, path, BIG_INT_MAX_SERIALIZED_LENGTH), path);
}

export function bigIntToLotusJson(value: bigint): string {
  return value.toString();
}

/** A decimal string (Go's big.Int accepts an optional sign); absent is zero, as Lotus leaves it nil. */
export function bigIntFromLotusJson(json: unknown, path: string): bigint {
  if (json === undefined) return 0n;
  if (typeof json !== 'string' || !/^[+-]?\d+$/.test(json)) jsonFail(path, 'a decimal string', json);
  return BigInt(json);
}
