/** The addon, loaded once. Only src/crypto and src/proofs may import this module. */
import * as native from '@ledger-node/native';
import { fromNative } from './errors.js';

export { native };

/** Calls into the addon, turning its errors into CryptoErrors. */
export function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw fromNative(error);
  }
}

export async function callAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw fromNative(error);
  }
}
