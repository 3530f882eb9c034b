import { LedgerError } from '../utils/errors.js';

/** Error codes of `WalletError`. Messages follow Lotus's wording where clients may match on them. */
export const WalletErrorCode = {
  /** No key of that name or address (Lotus `ErrKeyInfoNotFound`: "key info not found"). */
  KeyNotFound: 'ERR_KEY_NOT_FOUND',
  /** A key of that name exists already (Lotus `ErrKeyExists`). */
  KeyExists: 'ERR_KEY_EXISTS',
  /** A key type this node cannot hold (`secp256k1-ledger`). */
  UnsupportedKeyType: 'ERR_UNSUPPORTED_KEY_TYPE',
  /** A delegated key cannot sign this message: it has no Ethereum transaction form, or the chain id is unknown. */
  CannotSign: 'ERR_CANNOT_SIGN',
  /** The private key bytes do not make a key of their type. */
  InvalidKey: 'ERR_INVALID_KEY',
  /** A keystore file is readable by others, or unreadable, or not a KeyInfo. */
  KeystoreUnsafe: 'ERR_KEYSTORE_UNSAFE',
  KeystoreCorrupt: 'ERR_KEYSTORE_CORRUPT',
} as const;
export type WalletErrorCode = (typeof WalletErrorCode)[keyof typeof WalletErrorCode];

/** A keystore or wallet operation failed; messages never contain key material. */
export class WalletError extends LedgerError {
  declare readonly code: WalletErrorCode;

  constructor(code: WalletErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Lotus's text for a missing key, kept so clients that match on it keep working. */
export const KEY_INFO_NOT_FOUND = 'key info not found';
