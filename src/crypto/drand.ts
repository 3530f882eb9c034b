/**
 * drand's unchained scheme (quicknet, `bls-unchained-g1-rfc9380`): 48-byte G1 signatures, 96-byte
 * G2 public keys. The chained scheme is Filecoin's own BLS (`bls.verify`).
 */
import { call, native } from './native.js';

export function unchainedPublicKey(privateKey: Uint8Array): Uint8Array {
  return call(() => native.drandUnchainedPublicKey(privateKey));
}

export function unchainedSign(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
  return call(() => native.drandUnchainedSign(privateKey, message));
}

export function unchainedVerify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return call(() => native.drandUnchainedVerify(publicKey, message, signature));
}
