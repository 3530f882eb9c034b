/**
 * Reading and writing 32-byte ABI words as builtin-actors' EVM does for its precompiles and its
 * Filecoin-method bridge (`actors/evm/src/reader.rs`): reads past the end yield zeros, a word read
 * as a smaller integer must fit it.
 */
import { ActorError } from '../../errors.js';
import { ExitCode } from '../../exit-code.js';
import { u256FromBytes, u256ToBytes32 } from './u256.js';

export const WORD = 32;

export class AbiOverflowError extends Error {}

export class ValueReader {
  readonly #full: Uint8Array;
  #at = 0;

  constructor(bytes: Uint8Array) {
    this.#full = bytes;
  }

  seek(offset: number): void {
    this.#at = offset;
  }

  /** `length` bytes, zero-padded past the end. */
  readPadded(length: number): Uint8Array {
    const out = new Uint8Array(length);
    if (this.#at < this.#full.length) out.set(this.#full.subarray(this.#at, this.#at + length));
    this.#at += length;
    return out;
  }

  word(): bigint {
    return u256FromBytes(this.readPadded(WORD));
  }

  /** A word that must fit in `bits` bits. */
  uint(bits: number): bigint {
    const value = this.word();
    if (value >> BigInt(bits) !== 0n) throw new AbiOverflowError(`ABI word does not fit in ${bits} bits`);
    return value;
  }
}

export function word(value: bigint): Uint8Array {
  return u256ToBytes32(value);
}

/** Words and trailing bytes concatenated, padded to a whole number of words. */
export function abiConcat(parts: readonly Uint8Array[]): Uint8Array {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(Math.ceil(length / WORD) * WORD);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A serialization failure of an ABI value, as the EVM actor aborts with it. */
export function abiSerializationError(what: string): ActorError {
  return new ActorError(ExitCode.UsrSerialization, what);
}
