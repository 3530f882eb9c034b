/**
 * The next tipset's base fee, by FIP-0115 (Lotus `chain/store/basefee.go`
 * ComputeNextBaseFeeFromPremiums, from network version 28 — from genesis on our networks): take the
 * tipset's messages once per (sender, nonce), weigh each message's effective premium by its gas
 * limit, and find the premium at position BlockGasTargetIndex of that distribution sorted high to
 * low (zero if it is shorter). The base fee moves towards that premium by at most 1/8 per epoch and
 * never falls below the minimum.
 */
import type { NetworkParams } from '../params/index.js';
import { byteKey } from '../state/index.js';
import type { Message } from '../types/index.js';
import { bigMax, bigMin } from './actors/math.js';

/** What the sender pays the miner per gas at this base fee: the premium, capped by the fee cap's headroom. */
export function effectiveGasPremium(message: Message, baseFee: bigint): bigint {
  return bigMin(message.gasPremium, bigMax(message.gasFeeCap - baseFee, 0n));
}

/** The premium at weighted position `index` of the premiums sorted in descending order. */
export function weightedPremiumPercentile(
  premiums: ReadonlyArray<{ premium: bigint; weight: bigint }>,
  index: bigint,
): bigint {
  const sorted = [...premiums].sort((a, b) => (a.premium > b.premium ? -1 : a.premium < b.premium ? 1 : 0));
  let cumulative = 0n;
  for (const { premium, weight } of sorted) {
    cumulative += weight;
    if (index < cumulative) return premium;
  }
  return 0n;
}

/** Moves the base fee towards the percentile premium `premium`, by at most ⌈baseFee/8⌉. */
export function nextBaseFeeFromPremium(baseFee: bigint, premium: bigint, params: NetworkParams): bigint {
  const denom = params.baseFeeMaxChangeDenom;
  const maxAdjustment = (baseFee + denom - 1n) / denom;
  return bigMax(params.minimumBaseFee, baseFee + bigMin(maxAdjustment, premium - maxAdjustment));
}

/**
 * The base fee of the tipset after one whose blocks hold `messages` (in tipset order: each block's
 * BLS messages, then its secp messages) and whose own base fee was `parentBaseFee`.
 */
export function computeNextBaseFee(messages: Iterable<Message>, parentBaseFee: bigint, params: NetworkParams): bigint {
  const seen = new Set<string>();
  const premiums: Array<{ premium: bigint; weight: bigint }> = [];
  for (const message of messages) {
    // Senders are compared as written, not resolved (Lotus keys on From and Nonce).
    const key = `${byteKey(message.from.bytes)}/${message.nonce}`;
    if (seen.has(key)) continue;
    seen.add(key);
    premiums.push({ premium: effectiveGasPremium(message, parentBaseFee), weight: message.gasLimit });
  }
  return nextBaseFeeFromPremium(parentBaseFee, weightedPremiumPercentile(premiums, params.blockGasTargetIndex), params);
}
