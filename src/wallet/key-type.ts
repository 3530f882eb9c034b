/**
 * Lotus `types.KeyType`: a string (`"secp256k1"`, `"bls"`, `"delegated"`), or — deprecated but still
 * accepted by Lotus — a signature-type integer (1 secp256k1, 2 BLS, 3 delegated). A `delegated` key
 * is a secp256k1 key whose address is the f410 of its Ethereum address (Lotus `KTDelegated`).
 * `secp256k1-ledger` (a hardware wallet) exists in Lotus but not in this node, so it is refused with
 * a clear message.
 */
import { jsonFail, SignatureType } from '../types/index.js';
import { WalletError, WalletErrorCode } from './errors.js';

export const KeyType = { Secp256k1: 'secp256k1', BLS: 'bls', Delegated: 'delegated' } as const;
export type KeyType = (typeof KeyType)[keyof typeof KeyType];
export const KEY_TYPES: readonly KeyType[] = [KeyType.Secp256k1, KeyType.BLS, KeyType.Delegated];

/** Lotus key types this node knows of but does not hold. */
const UNSUPPORTED_KEY_TYPES = ['secp256k1-ledger'];
const EXPECTED = '"secp256k1", "bls" or "delegated" (or the deprecated 1, 2 or 3)';

const SIGNATURE_TYPES: Readonly<Record<KeyType, SignatureType>> = {
  [KeyType.Secp256k1]: SignatureType.Secp256k1,
  [KeyType.BLS]: SignatureType.BLS,
  [KeyType.Delegated]: SignatureType.Delegated,
};

function unsupported(path: string, type: string): never {
  throw new WalletError(
    WalletErrorCode.UnsupportedKeyType,
    `${path}: key type ${JSON.stringify(type)} is not supported by this node (use secp256k1, bls or delegated)`,
  );
}

export function keyTypeFromLotusJson(json: unknown, path = 'KeyType'): KeyType {
  if (typeof json === 'string') {
    if ((KEY_TYPES as readonly string[]).includes(json)) return json as KeyType;
    if (UNSUPPORTED_KEY_TYPES.includes(json)) unsupported(path, json);
    jsonFail(path, EXPECTED, json);
  }
  const type = KEY_TYPES.find((t) => SIGNATURE_TYPES[t] === json);
  if (type !== undefined) return type;
  jsonFail(path, EXPECTED, json);
}

export function signatureTypeOf(type: KeyType): SignatureType {
  return SIGNATURE_TYPES[type];
}
