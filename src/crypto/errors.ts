import { LedgerError } from '../utils/errors.js';

/**
 * A cryptographic operation refused its input. `code` comes from the native core:
 * `ERR_INVALID_LENGTH`, `ERR_INVALID_PRIVATE_KEY`, `ERR_INVALID_PUBLIC_KEY`,
 * `ERR_INVALID_SIGNATURE` or `ERR_INVALID_ARGUMENT`.
 */
export class CryptoError extends LedgerError {}

const nativeCodes = new Set([
  'ERR_INVALID_LENGTH',
  'ERR_INVALID_PRIVATE_KEY',
  'ERR_INVALID_PUBLIC_KEY',
  'ERR_INVALID_SIGNATURE',
  'ERR_INVALID_ARGUMENT',
]);

/** Turns an error thrown by the addon into a CryptoError with the same code. */
export function fromNative(error: unknown): unknown {
  // Duck-typed: errors made by the addon may come from another realm (e.g. under jest's vm).
  if (typeof error !== 'object' || error === null) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return error;
  if (nativeCodes.has(code)) return new CryptoError(code, message);
  // napi-rs reports a wrong JS argument type with its own status codes (InvalidArg, …).
  return new CryptoError('ERR_INVALID_ARGUMENT', `invalid argument: ${message}`, { cause: error });
}
