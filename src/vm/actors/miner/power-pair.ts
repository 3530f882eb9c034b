/**
 * A pair of raw-byte and quality-adjusted power (builtin-actors `actors/miner/src/partition_state.rs`
 * `PowerPair`; JSON names as go-state-types `builtin/v18/miner` `PowerPair`). Partitions, deadlines
 * and expiration sets keep their power as pairs, and power deltas to the power actor are pairs.
 */
import { declareStruct, kinds, type StructValue } from '../../../types/index.js';

export const powerPairStruct = declareStruct('PowerPair', [
  { key: 'raw', json: 'Raw', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qa', json: 'QA', kind: kinds.bigInt, description: 'quality-adjusted bytes' },
]);
export type PowerPair = StructValue<typeof powerPairStruct>;

export const ZERO_POWER: PowerPair = Object.freeze({ raw: 0n, qa: 0n });

export function powerPair(raw: bigint, qa: bigint): PowerPair {
  return { raw, qa };
}

export function addPower(a: PowerPair, b: PowerPair): PowerPair {
  return { raw: a.raw + b.raw, qa: a.qa + b.qa };
}

export function subPower(a: PowerPair, b: PowerPair): PowerPair {
  return { raw: a.raw - b.raw, qa: a.qa - b.qa };
}

export function negPower(a: PowerPair): PowerPair {
  return { raw: -a.raw, qa: -a.qa };
}

export function isZeroPower(a: PowerPair): boolean {
  return a.raw === 0n && a.qa === 0n;
}

export function powerEquals(a: PowerPair, b: PowerPair): boolean {
  return a.raw === b.raw && a.qa === b.qa;
}

/** True when either component is negative (an invariant check). */
export function isNegativePower(a: PowerPair): boolean {
  return a.raw < 0n || a.qa < 0n;
}

export function formatPower(a: PowerPair): string {
  return `{raw ${a.raw}, qa ${a.qa}}`;
}
