/**
 * Lotus `types.KeyType`: a string (`"secp256k1"`, `"bls"`), or — deprecated but still accepted by
 * Lotus — a signature-type integer (1 secp256k1, 2 BLS). `delegated` (f4) and `secp256k1-ledger`
 * keys exist in Lotus but not in this node, so they are refused with a clear message.
 */
import { jsonFail, SignatureType } from '../types/index.js';
import { WalletError, WalletErrorCode } from './errors.js';

export const KeyType = { Secp256k1: 'secp256k1', BLS: 'bls' } as const;
export type KeyType = (typeof KeyType)[keyof typeof KeyType];
export const KEY_TYPES: readonly KeyType[] = [KeyType.Secp256k1, KeyType.BLS];

/** Lotus key types this node knows of but does not hold. */
const UNSUPPORTED_KEY_TYPES = ['delegated', 'secp256k1-ledger'];
const EXPECTED = '"secp256k1" or "bls" (or the deprecated 1 or 2)';

function unsupported(path: string, type: string): never {
  throw new WalletError(
    WalletErrorCode.UnsupportedKeyType,
    `${path}: key type ${JSON.stringify(type)} is not supported by this node (use secp256k1 or bls)`,
  );
}

export function keyTypeFromLotusJson(json: unknown, path = 'KeyType'): KeyType {
  if (typeof json === 'string') {
    if ((KEY_TYPES as readonly string[]).includes(json)) return json as KeyType;
    if (UNSUPPORTED_KEY_TYPES.includes(json)) unsupported(path, json);
    jsonFail(path, EXPECTED, json);
  }
  if (json === SignatureType.Secp256k1) return KeyType.Secp256k1;
  if (json === SignatureType.BLS) return KeyType.BLS;
  if (json === SignatureType.Delegated) unsupported(path, 'delegated');
  jsonFail(path, EXPECTED, json);
}

export function signatureTypeOf(type: KeyType): SignatureType {
  return type === KeyType.BLS ? SignatureType.BLS : SignatureType.Secp256k1;
}
