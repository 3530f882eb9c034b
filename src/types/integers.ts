/**
 * 64-bit integer bounds. Every uint64/int64 field of a chain object is a `bigint` inside the node:
 * nonces, method numbers and IDs use the full 64-bit range, and a JS number would silently round
 * them above 2^53.
 */
import { InvalidArgumentError } from '../utils/errors.js';

export const MAX_UINT64 = 2n ** 64n - 1n;
export const MAX_INT64 = 2n ** 63n - 1n;
export const MIN_INT64 = -(2n ** 63n);

export type IntegerKind = 'uint64' | 'int64';

export function inRange(value: bigint, kind: IntegerKind): boolean {
  return kind === 'uint64' ? value >= 0n && value <= MAX_UINT64 : value >= MIN_INT64 && value <= MAX_INT64;
}

export function describeRange(kind: IntegerKind): string {
  return kind === 'uint64' ? 'an unsigned 64-bit integer' : 'a signed 64-bit integer';
}

/** Guards encoders: a value outside its field's range must never reach the wire. */
export function checkRange(value: bigint, kind: IntegerKind, path: string): bigint {
  if (typeof value !== 'bigint' || !inRange(value, kind)) {
    throw new InvalidArgumentError(`${path}: expected ${describeRange(kind)} (bigint), got ${String(value)}`);
  }
  return value;
}
