/**
 * secp256k1 as Filecoin uses it: 65-byte `r || s || v` signatures over blake2b-256 of the signed
 * bytes; verification recovers the key and compares blake2b-160 of it with the f1 payload.
 */
import { call, callAsync, native } from './native.js';

export const PRIVATE_KEY_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = 65;
export const SIGNATURE_LENGTH = 65;

export function generatePrivateKey(): Uint8Array {
  return native.secp256k1GeneratePrivateKey();
}

/** The 65-byte uncompressed public key. */
export function publicKey(privateKey: Uint8Array): Uint8Array {
  return call(() => native.secp256k1PublicKey(privateKey));
}

export function sign(privateKey: Uint8Array, data: Uint8Array): Uint8Array {
  return call(() => native.secp256k1Sign(privateKey, data));
}

/** The uncompressed public key that signed `data`; throws a CryptoError when none recovers. */
export function recover(signature: Uint8Array, data: Uint8Array): Uint8Array {
  return call(() => native.secp256k1Recover(signature, data));
}

/** True when the signature over `data` was made by the key of the f1 address with this payload. */
export function verify(signature: Uint8Array, data: Uint8Array, addressPayload: Uint8Array): boolean {
  return call(() => native.secp256k1Verify(signature, data, addressPayload));
}

/** Recovers many keys off the main thread; `null` where a signature recovers nothing. */
export function recoverBatch(
  items: ReadonlyArray<{ signature: Uint8Array; data: Uint8Array }>,
): Promise<Array<Uint8Array | null>> {
  return callAsync(() =>
    native.secp256k1RecoverBatchAsync(
      items.map((i) => i.signature),
      items.map((i) => i.data),
    ),
  );
}
