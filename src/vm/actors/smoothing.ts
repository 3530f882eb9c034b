/**
 * Smoothed estimates (builtin-actors `runtime/src/builtin/reward/smooth/`): the alpha-beta filter
 * the reward and power actors keep their per-epoch values in, and the extrapolated cumulative ratio
 * of two such estimates that pledge and expected-reward calculations use.
 */
import type { FilterEstimate } from './cbor.js';
import { bitLength, floorDiv, PRECISION, polyVal } from './math.js';

const DEFAULT_ALPHA = 314760000000000000000000000000000000n;
const DEFAULT_BETA = 96640100000000000000000000000000n;
const LN_2 = 235865763225513294137944142764154484399n;
const EPSILON = 302231454903657293676544n;

const LN_NUM = [
  261417938209272870992496419296200268025n,
  7266615505142943436908456158054846846897n,
  32458783941900493142649393804518050491988n,
  17078670566130897220338060387082146864806n,
  -35150353308172866634071793531642638290419n,
  -20351202052858059355702509232125230498980n,
  -1563932590352680681114104005183375350999n,
];
const LN_DENOM = [
  49928077726659937662124949977867279384n,
  2508163877009111928787629628566491583994n,
  21757751789594546643737445330202599887121n,
  53400635271583923415775576342898617051826n,
  41248834748603606604000911015235164348839n,
  9015227820322455780436733526367238305537n,
  340282366920938463463374607431768211456n,
];

/** A new estimate from whole numbers (both scaled to Q.128). */
export function newFilterEstimate(position: bigint, velocity: bigint): FilterEstimate {
  return { position: position << PRECISION, velocity: velocity << PRECISION };
}

/** The estimate's current value as a whole number. */
export function estimateOf(estimate: FilterEstimate): bigint {
  return estimate.position >> PRECISION;
}

/** The filter's next estimate after observing `observation` `epochDelta` epochs later. */
export function nextEstimate(previous: FilterEstimate, observation: bigint, epochDelta: bigint): FilterEstimate {
  const deltaT = epochDelta << PRECISION;
  const deltaX = (deltaT * previous.velocity) >> PRECISION;
  let position = deltaX + previous.position;
  const residual = (observation << PRECISION) - position;
  position += (DEFAULT_ALPHA * residual) >> PRECISION;
  const velocity = floorDiv(residual * DEFAULT_BETA, deltaT) + previous.velocity;
  return { position, velocity };
}

function lnBetweenOneAndTwo(x: bigint): bigint {
  return floorDiv(polyVal(LN_NUM, x) << PRECISION, polyVal(LN_DENOM, x));
}

/** Natural logarithm of a Q.128 number. */
function ln(z: bigint): bigint {
  const k = bitLength(z) - 1n - PRECISION;
  const x = k > 0n ? z >> k : z << -k;
  return k * LN_2 + lnBetweenOneAndTwo(x);
}

/**
 * ∫ numerator/denominator over [relativeStart, relativeStart + delta] of the two extrapolated
 * estimates, in Q.128 (builtin-actors `extrapolated_cum_sum_of_ratio`).
 */
export function extrapolatedCumSumOfRatio(
  delta: bigint,
  relativeStart: bigint,
  numerator: FilterEstimate,
  denominator: FilterEstimate,
): bigint {
  const deltaT = delta << PRECISION;
  const t0 = relativeStart << PRECISION;
  const { position: position1, velocity: velocity1 } = numerator;
  const { position: position2, velocity: velocity2 } = denominator;
  const squaredVelocity2 = (velocity2 * velocity2) >> PRECISION;
  if (squaredVelocity2 > EPSILON) {
    let x2a = ((velocity2 * t0) >> PRECISION) + position2;
    let x2b = ((velocity2 * deltaT) >> PRECISION) + x2a;
    x2a = ln(x2a);
    x2b = ln(x2b);
    const m1 = ((x2b - x2a) * position1 * velocity2) >> PRECISION;
    const m2 = (((x2a - x2b) * position2 + velocity2 * deltaT) * velocity1) >> PRECISION;
    return floorDiv(m2 + m1, squaredVelocity2);
  }
  const halfDelta = deltaT >> 1n;
  const x1m = ((velocity1 * (t0 + halfDelta)) >> PRECISION) + position1;
  return floorDiv(x1m * deltaT, position2);
}
