import { call, native } from './native.js';

/** blake2b-256: CIDs, signing digests, randomness. */
export function blake2b256(data: Uint8Array): Uint8Array {
  return native.blake2b256(data);
}

/** blake2b-160: f1 and f2 address payloads. */
export function blake2b160(data: Uint8Array): Uint8Array {
  return native.blake2b(data, 20);
}

/** blake2b-32: address checksums. */
export function blake2b32(data: Uint8Array): Uint8Array {
  return native.blake2b(data, 4);
}

/** blake2b with any digest length from 1 to 64 bytes. */
export function blake2b(data: Uint8Array, length: number): Uint8Array {
  return call(() => native.blake2b(data, length));
}
