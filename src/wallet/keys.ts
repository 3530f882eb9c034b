/**
 * Wallet keys: the address a private key controls, signing and verification as Lotus `lib/sigs`
 * does them — secp256k1 over blake2b-256 of the data (the digest is taken inside `secp256k1.sign`),
 * BLS over the data itself.
 */
import { bls, CryptoError, secp256k1 } from '../crypto/index.js';
import { Address, AddressProtocol, type Signature, SignatureType } from '../types/index.js';
import { WalletError, WalletErrorCode } from './errors.js';
import type { KeyInfo } from './key-info.js';
import { KeyType, signatureTypeOf } from './key-type.js';

export interface WalletKey {
  readonly keyInfo: KeyInfo;
  readonly publicKey: Uint8Array;
  readonly address: Address;
}

/** Derives the public key and address; a private key that is no valid scalar is a WalletError. */
export function keyFromKeyInfo(keyInfo: KeyInfo): WalletKey {
  try {
    if (keyInfo.type === KeyType.BLS) {
      const publicKey = bls.publicKey(keyInfo.privateKey);
      return { keyInfo, publicKey, address: Address.newBls(publicKey) };
    }
    const publicKey = secp256k1.publicKey(keyInfo.privateKey);
    return { keyInfo, publicKey, address: Address.newSecp256k1(publicKey) };
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
  const signature = type === KeyType.BLS ? bls.sign(privateKey, data) : secp256k1.sign(privateKey, data);
  return { type: signatureTypeOf(type), data: signature };
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
  return false;
}
