/**
 * The probability that a block lands at each place of its tipset (Lotus `block_proba.go`), which
 * optimal selection weighs chains by: the number of other winners follows Poisson(5) given at
 * least one, and a block with ticket quality `tq` is beaten by each of them with probability
 * `1 − tq`.
 */

/** Tipset places considered (Lotus MaxBlocks). */
export const MAX_BLOCKS = 15;
const EXPECTED_WINNERS = 5;

function logFactorial(n: number): number {
  let factorial = 1;
  for (let k = 2; k <= n; k++) factorial *= k;
  return Math.log(factorial);
}

/** P(n other winners), n = 1…MAX_BLOCKS, for Poisson(5) conditioned on at least one. */
const otherWinners: readonly number[] = (() => {
  const condition = Math.log(-1 + Math.exp(EXPECTED_WINNERS));
  return Array.from({ length: MAX_BLOCKS }, (_, i) =>
    Math.exp(Math.log(EXPECTED_WINNERS) * (i + 1) - logFactorial(i + 1) - condition),
  );
})();

function binomialCoefficient(n: number, k: number): number {
  if (k > n) return Number.NaN;
  let result = 1;
  let m = n;
  for (let d = 1; d <= k; d++) {
    result *= m;
    result /= d;
    m--;
  }
  return result;
}

/** `out[i]`: the probability that a block of ticket quality `ticketQuality` is at place `i`. */
export function blockProbabilities(ticketQuality: number): number[] {
  const p = 1 - ticketQuality;
  const binomial = (x: number, trials: number): number => {
    if (x > trials) return 0;
    if (p === 0) return x === 0 ? 1 : 0;
    if (p === 1) return x === trials ? 1 : 0;
    const coefficient = binomialCoefficient(trials, x);
    if (!Number.isFinite(coefficient)) return 0;
    return coefficient * (p ** x * (1 - p) ** (trials - x));
  };
  return Array.from({ length: MAX_BLOCKS }, (_, place) =>
    otherWinners.reduce((sum, probability, others) => sum + probability * binomial(place, others), 0),
  );
}
