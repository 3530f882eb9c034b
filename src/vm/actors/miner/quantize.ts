/**
 * Epoch quantization (builtin-actors `actors/miner/src/quantize.rs`): expirations, vesting and the
 * pre-commit cleanup queue round epochs to a grid of `unit` epochs shifted by `offset`, so that the
 * queues keyed by epoch hold few entries (for sectors, one per proving period of their deadline).
 */

export interface QuantSpec {
  readonly unit: bigint;
  readonly offset: bigint;
}

/** builtin-actors `NO_QUANTIZATION`: every epoch is its own grid point. */
export const NO_QUANTIZATION: QuantSpec = Object.freeze({ unit: 1n, offset: 0n });

export function quantSpec(unit: bigint, offset: bigint): QuantSpec {
  return { unit, offset };
}

/**
 * Rounds `epoch` up to the next `k·unit + (offset mod unit)`. Like Rust, `%` and `/` truncate
 * towards zero, so a negative `epoch − offset` is already rounded up by the division.
 */
export function quantizeUp(spec: QuantSpec, epoch: bigint): bigint {
  const offset = spec.offset % spec.unit;
  const remainder = (epoch - offset) % spec.unit;
  const quotient = (epoch - offset) / spec.unit;
  if (remainder === 0n || epoch - offset < 0n) return spec.unit * quotient + offset;
  return spec.unit * (quotient + 1n) + offset;
}

/** Rounds `epoch` down to the grid: `quantizeUp`, less a unit unless `epoch` is on the grid. */
export function quantizeDown(spec: QuantSpec, epoch: bigint): bigint {
  const next = quantizeUp(spec, epoch);
  return next === epoch ? next : next - spec.unit;
}
