/**
 * BLS12-381 min-pk with Filecoin's `_NUL_` DST: 48-byte public keys, 96-byte signatures, 32-byte
 * little-endian private keys. Messages are signed raw (for chain messages: the binary CID).
 */
import { call, callAsync, native } from './native.js';

export const PRIVATE_KEY_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = 48;
export const SIGNATURE_LENGTH = 96;

/** The aggregate of no signatures: what a block without BLS messages carries. */
export const IDENTITY_SIGNATURE: Uint8Array = (() => {
  const bytes = new Uint8Array(96);
  bytes[0] = 0xc0;
  return bytes;
})();

export function generatePrivateKey(): Uint8Array {
  return native.blsGeneratePrivateKey();
}

/** Deterministic key from a seed of at least 32 bytes (IETF KeyGen). */
export function privateKeyFromSeed(seed: Uint8Array): Uint8Array {
  return call(() => native.blsPrivateKeyFromSeed(seed));
}

export function publicKey(privateKey: Uint8Array): Uint8Array {
  return call(() => native.blsPublicKey(privateKey));
}

export function sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
  return call(() => native.blsSign(privateKey, message));
}

/** False for a wrong signature and for malformed keys or signatures alike. */
export function verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return call(() => native.blsVerify(publicKey, message, signature));
}

export function aggregate(signatures: readonly Uint8Array[]): Uint8Array {
  return call(() => native.blsAggregate([...signatures]));
}

export interface SignedPayload {
  publicKey: Uint8Array;
  message: Uint8Array;
}

/**
 * Verifies an aggregate over distinct messages. Repeated messages and an empty set do not verify
 * (Filecoin's rule); runs on the calling thread, so prefer `aggregateVerifyAsync` for blocks.
 */
export function aggregateVerify(items: readonly SignedPayload[], signature: Uint8Array): boolean {
  return call(() =>
    native.blsAggregateVerify(
      items.map((i) => i.publicKey),
      items.map((i) => i.message),
      signature,
    ),
  );
}

/** `aggregateVerify` off the main thread. */
export function aggregateVerifyAsync(items: readonly SignedPayload[], signature: Uint8Array): Promise<boolean> {
  return callAsync(() =>
    native.blsAggregateVerifyAsync(
      items.map((i) => i.publicKey),
      items.map((i) => i.message),
      signature,
    ),
  );
}

/** Verifies independent signatures off the main thread, one verdict each (batched pairing check). */
export function verifyBatch(items: ReadonlyArray<SignedPayload & { signature: Uint8Array }>): Promise<boolean[]> {
  return callAsync(() =>
    native.blsVerifyBatchAsync(
      items.map((i) => i.publicKey),
      items.map((i) => i.message),
      items.map((i) => i.signature),
    ),
  );
}
