import { LedgerError } from '../utils/errors.js';

/**
 * A cryptographic operation refused its input. `code` comes from the native core:
 * `ERR_INVALID_LENGTH`, `ERR_INVALID_PRIVATE_KEY`, `ERR_INVALID_PUBLIC_KEY`,
 * `ERR_INVALID_SIGNATURE` or `ERR_INVALID_ARGUMENT`.
 */
export class CryptoError extends LedgerError {}

export const CRYPTO_ERROR_CODES = [
  'ERR_INVALID_LENGTH',
  'ERR_INVALID_PRIVATE_KEY',
  'ERR_INVALID_PUBLIC_KEY',
  'ERR_INVALID_SIGNATURE',
  'ERR_INVALID_ARGUMENT',
] as const;
