/**
 * Errors from the native addon, turned into a module's own LedgerError subclass. The addon puts a
 * stable `code` on every error it raises on purpose; napi-rs itself reports a wrong JS argument type
 * with its own status codes (`InvalidArg`, …), which become the module's invalid-input code.
 */
import type { LedgerError } from './errors.js';

export interface NativeErrorMapping {
  /** The codes the module's native functions raise; they pass through unchanged. */
  codes: readonly string[];
  /** The code for napi-rs's own argument errors. */
  invalidArgumentCode: string;
  create: (code: string, message: string, cause: unknown) => LedgerError;
}

export interface NativeCaller {
  /** Calls into the addon, mapping what it throws. */
  call<T>(fn: () => T): T;
  /** The same for a Promise the addon returns (its rejections are mapped too). */
  callAsync<T>(fn: () => Promise<T>): Promise<T>;
}

export function nativeCaller(mapping: NativeErrorMapping): NativeCaller {
  const known = new Set(mapping.codes);
  const map = (error: unknown): unknown => {
    // Duck-typed: errors made by the addon may come from another realm (e.g. under jest's vm).
    if (typeof error !== 'object' || error === null) return error;
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code !== 'string' || typeof message !== 'string') return error;
    if (known.has(code)) return mapping.create(code, message, error);
    return mapping.create(mapping.invalidArgumentCode, `invalid argument: ${message}`, error);
  };
  return {
    call<T>(fn: () => T): T {
      try {
        return fn();
      } catch (error) {
        throw map(error);
      }
    },
    async callAsync<T>(fn: () => Promise<T>): Promise<T> {
      try {
        return await fn();
      } catch (error) {
        throw map(error);
      }
    },
  };
}
