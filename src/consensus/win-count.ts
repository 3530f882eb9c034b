/**
 * Expected Consensus leader election: how many blocks (WinCount) a miner's election proof wins.
 *
 * Poisson sortition in Q.256 fixed point, bit-exact with Lotus `chain/types/electionproof.go`
 * (test/vectors/election.test.ts pins it with Lotus's golden files, `chain/types/testdata/`):
 * λ = power·E·2²⁵⁶ / totalPower with E = blocks per epoch; the VRF digest, read as a Q.256
 * number h ∈ [0, 1), wins j times while h < 1 − CDF(j−1; λ), up to 3·E. e^−λ uses Lotus's
 * rational approximation, whose integer coefficients are scaled by 2⁻¹²⁸.
 */
import { blake2b256 } from '../crypto/index.js';

const PRECISION = 256n;
const ONE = 1n << PRECISION;

// Highest order first, as Horner's method consumes them (scaled from 2^-128 to Q.256).
const toQ256 = (coefficients: readonly string[]) => coefficients.map((c) => BigInt(c) << (PRECISION - 128n));
const EXP_NUMERATOR = toQ256([
  '-648770010757830093818553637600',
  '67469480939593786226847644286976',
  '-3197587544499098424029388939001856',
  '89244641121992890118377641805348864',
  '-1579656163641440567800982336819953664',
  '17685496037279256458459817590917169152',
  '-115682590513835356866803355398940131328',
  '340282366920938463463374607431768211456',
]);
const EXP_DENOMINATOR = toQ256([
  '1225524182432722209606361',
  '114095592300906098243859450',
  '5665570424063336070530214243',
  '194450132448609991765137938448',
  '5068267641632683791026134915072',
  '104716890604972796896895427629056',
  '1748338658439454459487681798864896',
  '23704654329841312470660182937960448',
  '259380097567996910282699886670381056',
  '2250336698853390384720606936038375424',
  '14978272436876548034486263159246028800',
  '72144088983913131323343765784380833792',
  '224599776407103106596571252037123047424',
  '340282366920938463463374607431768211456',
]);

/** Floor division (Go's big.Int.Div for a positive divisor); BigInt `/` truncates toward zero. */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Horner's method in Q.256 (`>>` on BigInt floors like Go's arithmetic shift). */
function polyval(coefficients: readonly bigint[], x: bigint): bigint {
  let result = coefficients[0] as bigint;
  for (let i = 1; i < coefficients.length; i++) result = ((result * x) >> PRECISION) + (coefficients[i] as bigint);
  return result;
}

/** e^−x for x in Q.256, in Q.256. */
export function expneg(x: bigint): bigint {
  return floorDiv(polyval(EXP_NUMERATOR, x) << PRECISION, polyval(EXP_DENOMINATOR, x));
}

/** λ = power·blocksPerEpoch / totalPower, in Q.256. */
export function lambda(power: bigint, totalPower: bigint, blocksPerEpoch: bigint): bigint {
  return floorDiv((power * blocksPerEpoch) << PRECISION, totalPower);
}

/** Successive values of 1 − CDF(k; λ) for k = 0, 1, 2, … (Q.256), computed as Lotus does. */
export function* poissonInverseCdf(lam: bigint): Generator<bigint, never> {
  let pmf = expneg(lam);
  let icdf = ONE - pmf;
  yield icdf;
  for (let k = 1n; ; k++) {
    pmf = ((pmf / k) * lam) >> PRECISION;
    icdf -= pmf;
    yield icdf;
  }
}

/**
 * The number of blocks won by an election proof (`ElectionProof.ComputeWinCount`). Powers are
 * quality-adjusted, from the lookback state; the maximum is 3·blocksPerEpoch.
 */
export function computeWinCount(
  vrfProof: Uint8Array,
  power: bigint,
  totalPower: bigint,
  blocksPerEpoch: bigint,
): number {
  if (totalPower <= 0n || power <= 0n) return 0;
  const h = BigInt(`0x${Buffer.from(blake2b256(vrfProof)).toString('hex')}`);
  const maxWinCount = 3n * blocksPerEpoch;
  const tail = poissonInverseCdf(lambda(power, totalPower, blocksPerEpoch));
  let rhs = tail.next().value;
  let wins = 0n;
  while (h < rhs && wins < maxWinCount) {
    rhs = tail.next().value;
    wins++;
  }
  return Number(wins);
}
