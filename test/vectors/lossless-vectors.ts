/** Reads a vector JSON file keeping integers beyond 2^53 exact (some vectors hold u64 JSON numbers). */
import { parseJsonLossless } from '../../src/types/json.js';
import { readVectorBytes } from './vectors-dir.js';

export function readVectorJsonLossless<T = unknown>(...parts: string[]): T {
  return parseJsonLossless(new TextDecoder().decode(readVectorBytes(...parts))) as T;
}
