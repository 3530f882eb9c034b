/**
 * Wallet keys: the address a private key controls, signing and verification as Lotus `lib/sigs`
 * does them — secp256k1 over blake2b-256 of the data (the digest is taken inside `secp256k1.sign`),
 * BLS over the data itself, and delegated (an Ethereum key at f410) secp256k1 over keccak-256 of the
 * data (filecoin-project/lotus `lib/sigs/delegated/init.go`).
 */
import {
  bls,
  CryptoError,
  keccak256,
  secp256k1,
  secp256k1RecoverDigest,
  secp256k1SignDigest,
} from '../crypto/index.js';
import {
  Address,
  AddressProtocol,
  delegatedAddressFromPublicKey,
  isEthAddress,
  type Signature,
  SignatureType,
} from '../types/index.js';
import { WalletError, WalletErrorCode } from './errors.js';
import type { KeyInfo } from './key-info.js';
import { KeyType, signatureTypeOf } from './key-type.js';

export interface WalletKey {
  readonly keyInfo: KeyInfo;
  readonly publicKey: Uint8Array;
  readonly address: Address;
}

function addressOf(type: KeyType, publicKey: Uint8Array): Address {
  switch (type) {
    case KeyType.BLS:
      return Address.newBls(publicKey);
    case KeyType.Secp256k1:
      return Address.newSecp256k1(publicKey);
    case KeyType.Delegated:
      return delegatedAddressFromPublicKey(publicKey);
  }
}

/** Derives the public key and address; a private key that is no valid scalar is a WalletError. */
export function keyFromKeyInfo(keyInfo: KeyInfo): WalletKey {
  try {
    const publicKey =
      keyInfo.type === KeyType.BLS ? bls.publicKey(keyInfo.privateKey) : secp256k1.publicKey(keyInfo.privateKey);
    return { keyInfo, publicKey, address: addressOf(keyInfo.type, publicKey) };
  } catch (error) {
    if (!(error instanceof CryptoError)) throw error;
    throw new WalletError(WalletErrorCode.InvalidKey, `invalid ${keyInfo.type} private key: ${error.message}`, {
      cause: error,
    });
  }
}

export function generateKey(type: KeyType): WalletKey {
  const privateKey = type === KeyType.BLS ? bls.generatePrivateKey() : secp256k1.generatePrivateKey();
  return keyFromKeyInfo({ type, privateKey });
}

export function signWithKey(key: WalletKey, data: Uint8Array): Signature {
  const { type, privateKey } = key.keyInfo;
  const signature =
    type === KeyType.BLS
      ? bls.sign(privateKey, data)
      : type === KeyType.Delegated
        ? secp256k1SignDigest(privateKey, keccak256(data))
        : secp256k1.sign(privateKey, data);
  return { type: signatureTypeOf(type), data: signature };
}

/** True when a delegated signature over keccak-256(data) recovers to the key of the f410 `address`. */
function verifyDelegated(address: Address, data: Uint8Array, signature: Uint8Array): boolean {
  if (!isEthAddress(address) || signature.length !== secp256k1.SIGNATURE_LENGTH) return false;
  try {
    return delegatedAddressFromPublicKey(secp256k1RecoverDigest(signature, keccak256(data))).equals(address);
  } catch (error) {
    if (error instanceof CryptoError) return false;
    throw error;
  }
}

/**
 * True when `signature` over `data` was made by the key behind `address`. Anything else is false:
 * a wrong key, a malformed signature, a signature type that does not match the address protocol,
 * and ID or actor addresses, which have no key of their own (Lotus asks callers to resolve them).
 */
export function verifySignature(address: Address, data: Uint8Array, signature: Signature): boolean {
  if (signature.type === SignatureType.Secp256k1 && address.protocol === AddressProtocol.Secp256k1) {
    return secp256k1.verify(signature.data, data, address.payload);
  }
  if (signature.type === SignatureType.BLS && address.protocol === AddressProtocol.BLS) {
    return bls.verify(address.payload, data, signature.data);
  }
  if (signature.type === SignatureType.Delegated) return verifyDelegated(address, data, signature.data);
  return false;
}
