/** Parsers for command-line arguments; a bad value becomes commander's usage error naming it. */
import { InvalidArgumentError } from 'commander';
import { Address, type Signature, SignatureType } from '../types/index.js';
import { fromHex } from '../utils/bytes.js';

export function parseAddressArgument(value: string): Address {
  try {
    return Address.fromString(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function parseHexArgument(value: string): Uint8Array {
  try {
    return fromHex(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** A whole number from `min` to `max` for the option `name` (`--api`). */
export function integerParser(name: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
    }
    return number;
  };
}

export function choiceParser<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`expected one of ${choices.join(', ')}`);
    }
    return value as T;
  };
}

/** Lotus's binary signature form (`wallet sign` output): the type byte, then the signature. */
export function parseSignatureArgument(value: string): Signature {
  const bytes = parseHexArgument(value);
  const type = bytes[0];
  if (type !== SignatureType.Secp256k1 && type !== SignatureType.BLS && type !== SignatureType.Delegated) {
    throw new InvalidArgumentError(`invalid signature type byte ${type ?? '(none)'}: expected 1, 2 or 3`);
  }
  return { type, data: bytes.subarray(1) };
}
