/**
 * secp256k1 as Filecoin uses it: 65-byte `r || s || v` signatures over blake2b-256 of the signed
 * bytes; verification recovers the key and compares blake2b-160 of it with the f1 payload.
 * The `…Digest` forms sign and recover over a caller's 32-byte digest (delegated, Ethereum-style
 * signatures sign a Keccak-256 digest: lotus `lib/sigs/delegated/init.go`).
 */
import { CryptoError } from './errors.js';
import { keccak256 } from './keccak.js';
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

/** A 65-byte `r || s || v` signature (v ∈ {0, 1}) over a 32-byte digest. */
export function signDigest(privateKey: Uint8Array, digest: Uint8Array): Uint8Array {
  return call(() => native.secp256k1SignDigest(privateKey, digest));
}

/** The uncompressed public key that signed the 32-byte `digest`; throws a CryptoError when none recovers. */
export function recoverDigest(signature: Uint8Array, digest: Uint8Array): Uint8Array {
  return call(() => native.secp256k1RecoverDigest(signature, digest));
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

/** As `recoverBatch`, over 32-byte digests; `null` where a signature or digest recovers nothing. */
export function recoverDigestBatch(
  items: ReadonlyArray<{ signature: Uint8Array; digest: Uint8Array }>,
): Promise<Array<Uint8Array | null>> {
  return callAsync(() =>
    native.secp256k1RecoverDigestBatchAsync(
      items.map((i) => i.signature),
      items.map((i) => i.digest),
    ),
  );
}

/** The Ethereum address of a 65-byte uncompressed public key: the last 20 bytes of keccak256 of its 64 coordinate bytes. */
export function ethAddress(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== PUBLIC_KEY_LENGTH) {
    throw new CryptoError(
      'ERR_INVALID_LENGTH',
      `invalid secp256k1 public key length: expected ${PUBLIC_KEY_LENGTH} bytes, got ${publicKey.length}`,
    );
  }
  if (publicKey[0] !== 0x04) {
    throw new CryptoError('ERR_INVALID_PUBLIC_KEY', 'invalid public key: expected an uncompressed key (0x04 prefix)');
  }
  return keccak256(publicKey.subarray(1)).subarray(12);
}
