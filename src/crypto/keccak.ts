import { call, native } from './native.js';

/**
 * Keccak-256 as Ethereum uses it (the original Keccak padding, not FIPS 202 SHA3-256): Ethereum
 * addresses, transaction hashes and the digests delegated (type 3) signatures sign.
 */
export function keccak256(data: Uint8Array): Uint8Array {
  return call(() => native.keccak256(data));
}
