/**
 * Where a message's gas money goes (Lotus `chain/vm/burn.go` ComputeGasOutputs, identical to
 * ref-fvm `fvm/src/gas/outputs.rs`). The sender paid `gasFeeCap × gasLimit` up front;
 * `baseFeeBurn + overEstimationBurn + minerTip + refund` is exactly that amount. `minerPenalty` is
 * not moved here: it is summed per block and burnt from the miner by the reward actor.
 */

export interface GasOutputs {
  readonly baseFeeBurn: bigint;
  readonly overEstimationBurn: bigint;
  readonly minerPenalty: bigint;
  readonly minerTip: bigint;
  readonly refund: bigint;
  /** Unused gas refunded at the fee cap. */
  readonly gasRefund: bigint;
  /** Unused gas burnt at the base fee for overestimating. */
  readonly gasBurned: bigint;
}

const GAS_OVERUSE_NUM = 11n;
const GAS_OVERUSE_DENOM = 10n;

/** How much of the unused gas is refunded and how much burnt (the 11/10 overestimation rule). */
export function computeGasOverestimationBurn(
  gasUsed: bigint,
  gasLimit: bigint,
): { gasRefund: bigint; gasBurned: bigint } {
  if (gasUsed === 0n) return { gasRefund: 0n, gasBurned: gasLimit };
  let over = gasLimit - (GAS_OVERUSE_NUM * gasUsed) / GAS_OVERUSE_DENOM;
  if (over < 0n) return { gasRefund: gasLimit - gasUsed, gasBurned: 0n };
  if (over > gasUsed) over = gasUsed;
  const gasBurned = ((gasLimit - gasUsed) * over) / gasUsed;
  return { gasRefund: gasLimit - gasUsed - gasBurned, gasBurned };
}

export function computeGasOutputs(
  gasUsed: bigint,
  gasLimit: bigint,
  baseFee: bigint,
  feeCap: bigint,
  gasPremium: bigint,
): GasOutputs {
  let baseFeeToPay = baseFee;
  let minerPenalty = 0n;
  if (baseFee > feeCap) {
    baseFeeToPay = feeCap;
    minerPenalty = (baseFee - feeCap) * gasUsed;
  }
  const baseFeeBurn = baseFeeToPay * gasUsed;
  let tipRate = feeCap - baseFeeToPay;
  if (gasPremium < tipRate) tipRate = gasPremium;
  const minerTip = tipRate * gasLimit;
  const { gasRefund, gasBurned } = computeGasOverestimationBurn(gasUsed, gasLimit);
  const overEstimationBurn = baseFeeToPay * gasBurned;
  minerPenalty += (baseFee - baseFeeToPay) * gasBurned;
  const refund = feeCap * gasLimit - baseFeeBurn - minerTip - overEstimationBurn;
  return { baseFeeBurn, overEstimationBurn, minerPenalty, minerTip, refund, gasRefund, gasBurned };
}
