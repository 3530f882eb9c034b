/**
 * Deterministic test keys: each derived from a label, the same on every run, so genesis templates,
 * signatures and CIDs are reproducible. `keys` are the accounts most tests fund.
 */
import { blake2b256, bls, secp256k1 } from '../../src/crypto/index.js';
import { Address } from '../../src/types/index.js';

export interface SecpKey {
  readonly privateKey: Uint8Array;
  readonly address: Address;
}

export interface BlsKey {
  readonly privateKey: Uint8Array;
  readonly address: Address;
}

/** A secp256k1 key derived from a label. */
export function secpKey(label: string): SecpKey {
  const privateKey = blake2b256(new TextEncoder().encode(`secp:${label}`));
  return { privateKey, address: Address.newSecp256k1(secp256k1.publicKey(privateKey)) };
}

/** A BLS key derived from a label. */
export function blsKey(label: string): BlsKey {
  const privateKey = bls.privateKeyFromSeed(blake2b256(new TextEncoder().encode(`bls:${label}`)));
  return { privateKey, address: Address.newBls(bls.publicKey(privateKey)) };
}

/** Two secp256k1 accounts, one BLS account, and the BLS worker of the genesis miner t01000. */
export const keys = {
  alice: secpKey('alice'),
  bob: secpKey('bob'),
  carol: blsKey('carol'),
  worker: blsKey('worker'),
};
