/**
 * Message chains (Lotus createMessageChains and msgChain, filecoin-project/lotus
 * `chain/messagepool/selection.go`): a sender's includable messages — from its state nonce on,
 * without gaps, each with at least the inclusion gas, within the block gas limit and the sender's
 * balance — cut into runs whose gas performance (miner reward per unit of gas, scaled to a block)
 * decreases along the nonce order, so a run is only worth taking after the runs before it.
 * Selection, pruning and republishing all rank senders' messages through these chains.
 */
import type { NetworkParams } from '../params/index.js';
import type { Actor, SignatureType } from '../types/index.js';
import { inclusionGas, type PendingMessage } from './pending-message.js';

/** A negative reward (fee cap below the base fee) counts three times, as the miner's penalty does. */
const NEGATIVE_REWARD_MULTIPLIER = 3n;

/** What the miner earns from including `message` at `baseFee`: `min(premium, feeCap − baseFee) × gasLimit`. */
export function gasReward(message: PendingMessage, baseFee: bigint): bigint {
  const { gasFeeCap, gasPremium, gasLimit } = message.signed.message;
  const headroom = gasFeeCap - baseFee;
  const reward = (headroom < gasPremium ? headroom : gasPremium) * gasLimit;
  return reward < 0n ? reward * NEGATIVE_REWARD_MULTIPLIER : reward;
}

function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/** `numerator / denominator` rounded once to the nearest double, as Go's `big.Rat.Float64` does. */
export function ratioToNumber(numerator: bigint, denominator: bigint): number {
  if (numerator === 0n) return 0;
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  // A quotient of 66+ bits, with a sticky bit for any remainder, rounds exactly like the ratio.
  const shift = Math.max(0, 66 - (bitLength(n) - bitLength(d)));
  const scaled = n << BigInt(shift);
  let quotient = scaled / d;
  if (quotient * d !== scaled) quotient |= 1n;
  const magnitude = Number(quotient) * 2 ** -shift;
  return negative ? -magnitude : magnitude;
}

/** Reward per gas, scaled to a full block: `reward × BlockGasLimit / gasLimit`. */
export function gasPerformance(reward: bigint, gasLimit: bigint, blockGasLimit: bigint): number {
  return ratioToNumber(reward * blockGasLimit, gasLimit);
}

export class MessageChain {
  messages: PendingMessage[];
  gasReward: bigint;
  gasLimit: bigint;
  gasPerf: number;
  /** Gas performance weighted by the probability of the block it would land in (optimal selection). */
  effPerf = 0;
  /** That block's probability. */
  blockProbability = 0;
  /** How much averaging with the parent chain changed effPerf. */
  parentOffset = 0;
  valid = true;
  merged = false;
  next: MessageChain | undefined;
  prev: MessageChain | undefined;
  readonly sigType: SignatureType;
  readonly #blockGasLimit: bigint;

  constructor(message: PendingMessage, reward: bigint, blockGasLimit: bigint) {
    this.messages = [message];
    this.gasReward = reward;
    this.gasLimit = message.signed.message.gasLimit;
    this.#blockGasLimit = blockGasLimit;
    this.gasPerf = gasPerformance(reward, this.gasLimit, blockGasLimit);
    this.sigType = message.signed.signature.type;
  }

  /** Appends messages worth `reward`, recomputing the performance. */
  extend(messages: readonly PendingMessage[], reward: bigint, gasLimit: bigint): void {
    this.messages.push(...messages);
    this.gasReward += reward;
    this.gasLimit += gasLimit;
    this.gasPerf = gasPerformance(this.gasReward, this.gasLimit, this.#blockGasLimit);
  }

  /** Ranks by gas performance, then by total reward. */
  before(other: MessageChain): boolean {
    return this.gasPerf > other.gasPerf || (this.gasPerf === other.gasPerf && this.gasReward > other.gasReward);
  }

  /** Ranks merged chains first, then by effective performance (optimal selection). */
  beforeEffective(other: MessageChain): boolean {
    return (
      (this.merged && !other.merged) ||
      (this.gasPerf >= 0 && other.gasPerf < 0) ||
      this.effPerf > other.effPerf ||
      (this.effPerf === other.effPerf && this.gasPerf > other.gasPerf) ||
      (this.effPerf === other.effPerf && this.gasPerf === other.gasPerf && this.gasReward > other.gasReward)
    );
  }

  /**
   * Drops messages from the tail until the chain fits `gasLimit` and `messageLimit` and pays;
   * the chains after it cannot be included any more.
   */
  trim(gasLimit: bigint, messageLimit: number, baseFee: bigint): void {
    let i = this.messages.length - 1;
    while (i >= 0 && (this.gasLimit > gasLimit || this.gasPerf < 0 || i >= messageLimit)) {
      const message = this.messages[i] as PendingMessage;
      this.gasReward -= gasReward(message, baseFee);
      this.gasLimit -= message.signed.message.gasLimit;
      if (this.gasLimit > 0n) {
        this.gasPerf = gasPerformance(this.gasReward, this.gasLimit, this.#blockGasLimit);
        if (this.blockProbability !== 0) this.#updateEffectivePerf();
      } else {
        this.gasPerf = 0;
        this.effPerf = 0;
      }
      i--;
    }
    if (i < 0) {
      this.messages = [];
      this.valid = false;
    } else {
      this.messages = this.messages.slice(0, i + 1);
    }
    if (this.next !== undefined) {
      this.next.invalidate();
      this.next = undefined;
    }
  }

  /** Marks this chain and every chain after it as not includable. */
  invalidate(): void {
    this.valid = false;
    this.messages = [];
    if (this.next !== undefined) {
      this.next.invalidate();
      this.next = undefined;
    }
  }

  setEffectivePerf(blockProbability: number): void {
    this.blockProbability = blockProbability;
    this.#updateEffectivePerf();
  }

  /** After the parent chain was merged: its averaging no longer applies. */
  restoreParentOffset(): void {
    this.effPerf += this.parentOffset;
  }

  /** Recomputes effPerf from gasPerf, averaged with the parent's by gas limit. */
  refreshEffectivePerf(): void {
    this.#updateEffectivePerf();
  }

  /** For chains past every partition: nothing, or their (negative) performance. */
  setNullEffectivePerf(): void {
    this.effPerf = Math.min(this.gasPerf, 0);
  }

  #updateEffectivePerf(): void {
    let effPerf = this.gasPerf * this.blockProbability;
    if (effPerf > 0 && this.prev !== undefined) {
      const ownGas = Number(this.gasLimit);
      const parentGas = Number(this.prev.gasLimit);
      const withParent = (effPerf * ownGas + this.prev.effPerf * parentGas) / (ownGas + parentGas);
      this.parentOffset = effPerf - withParent;
      effPerf = withParent;
    }
    this.effPerf = effPerf;
  }
}

/**
 * The chains of one sender. `actor` is the sender after the base tipset (its nonce and balance);
 * none when it does not exist.
 */
export function createMessageChains(
  messages: Iterable<PendingMessage>,
  actor: Actor | undefined,
  baseFee: bigint,
  params: NetworkParams,
): MessageChain[] {
  if (actor === undefined) return [];
  const sorted = [...messages].sort((a, b) =>
    a.signed.message.nonce < b.signed.message.nonce ? -1 : a.signed.message.nonce > b.signed.message.nonce ? 1 : 0,
  );
  let nonce = actor.nonce;
  let balance = actor.balance;
  let gasLimit = 0n;
  let skip = 0;
  let end = 0;
  const rewards: bigint[] = [];
  for (; end < sorted.length; end++) {
    const { message } = (sorted[end] as PendingMessage).signed;
    if (message.nonce < nonce) {
      skip++;
      continue;
    }
    if (message.nonce !== nonce) break;
    nonce++;
    if (message.gasLimit < inclusionGas((sorted[end] as PendingMessage).chainLength)) break;
    gasLimit += message.gasLimit;
    if (gasLimit > params.blockGasLimit) break;
    const required = message.gasFeeCap * message.gasLimit;
    if (balance < required) break;
    balance -= required + message.value;
    rewards.push(gasReward(sorted[end] as PendingMessage, baseFee));
  }
  if (end <= skip) return [];
  const includable = sorted.slice(skip, Math.min(end, skip + params.blockMessageLimit));

  // First pass: extend the current chain while that does not lower its performance.
  const chains: MessageChain[] = [];
  let current: MessageChain | undefined;
  includable.forEach((message, i) => {
    const reward = rewards[i] as bigint;
    if (current === undefined) {
      current = new MessageChain(message, reward, params.blockGasLimit);
      return;
    }
    const limit = current.gasLimit + message.signed.message.gasLimit;
    if (gasPerformance(current.gasReward + reward, limit, params.blockGasLimit) < current.gasPerf) {
      chains.push(current);
      current = new MessageChain(message, reward, params.blockGasLimit);
    } else {
      current.extend([message], reward, message.signed.message.gasLimit);
    }
  });
  if (current !== undefined) chains.push(current);

  // Second pass: merge a chain into its predecessor while it performs at least as well.
  let merged = mergeOnce(chains);
  while (merged.length !== chains.length) {
    chains.splice(0, chains.length, ...merged);
    merged = mergeOnce(chains);
  }

  for (let i = 0; i < chains.length - 1; i++) (chains[i] as MessageChain).next = chains[i + 1];
  for (let i = chains.length - 1; i > 0; i--) (chains[i] as MessageChain).prev = chains[i - 1];
  return chains;
}

/** One merge pass from the tail, as Lotus runs it; returns the surviving chains. */
function mergeOnce(chains: MessageChain[]): MessageChain[] {
  for (let i = chains.length - 1; i > 0; i--) {
    const chain = chains[i] as MessageChain;
    const previous = chains[i - 1] as MessageChain;
    if (chain.gasPerf >= previous.gasPerf) {
      previous.extend(chain.messages, chain.gasReward, chain.gasLimit);
      chain.valid = false;
    }
  }
  return chains.filter((chain) => chain.valid);
}
