/**
 * Fixed-point helpers shared by the reward, power and miner actors (builtin-actors
 * `runtime/src/builtin/reward/math.rs`). Q.128 numbers are bigints scaled by 2^128. Rust's `>>` on
 * big integers rounds towards −∞, as JavaScript's does; `div_floor` needs `floorDiv`, because `/`
 * truncates towards zero.
 */

export const PRECISION = 128n;

export function floorDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator !== 0n && numerator < 0n !== denominator < 0n ? quotient - 1n : quotient;
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return -floorDiv(-numerator, denominator);
}

/** Evaluates a polynomial with Q.128 coefficients (highest degree first) at Q.128 `x`. */
export function polyVal(coefficients: readonly bigint[], x: bigint): bigint {
  let result = 0n;
  for (const coefficient of coefficients) result = ((result * x) >> PRECISION) + coefficient;
  return result;
}

export function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** Number of bits of |x| (num-bigint `bits()`). */
export function bitLength(x: bigint): bigint {
  return BigInt((x < 0n ? -x : x).toString(2).length - (x === 0n ? 1 : 0));
}
