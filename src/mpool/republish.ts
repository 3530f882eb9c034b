/**
 * Which local messages to publish again (filecoin-project/lotus `chain/messagepool/repub.go`): the
 * local senders' chains ranked as if the base fee had fallen to a tenth, packed into one block's
 * gas, skipping any chain with a message whose fee cap is below that bound (peers would ignore it),
 * at most 30 messages. The pool publishes them on a timer and early when a head change includes
 * one.
 */
import type { NetworkParams } from '../params/index.js';
import type { Actor, Address, SignedMessage } from '../types/index.js';
import { createMessageChains, type MessageChain } from './message-chains.js';
import { MIN_PACKING_GAS, type SenderMessages } from './selection.js';

/** Lotus repubMsgLimit. */
export const REPUBLISH_MESSAGE_LIMIT = 30;
/** Lotus RepublishBatchDelay: between two publishes, so peers validate them in nonce order. */
export const REPUBLISH_BATCH_DELAY_MS = 100;
/** pubsub TimeCacheDuration: republishing sooner would be dropped as a duplicate. */
const PUBSUB_TIME_CACHE_SECONDS = 120n;

/** Lotus RepublishInterval: ten epochs and a propagation delay, but not less than the pubsub time cache. */
export function republishIntervalMs(params: NetworkParams): number {
  const interval = 10n * params.blockDelaySecs + params.propagationDelaySecs;
  const minimum = PUBSUB_TIME_CACHE_SECONDS + params.propagationDelaySecs;
  return Number(interval < minimum ? minimum : interval) * 1000;
}

export interface RepublishInput {
  /** The local senders' pending messages. */
  readonly pending: Iterable<SenderMessages>;
  readonly actorOf: (sender: Address) => Actor | undefined;
  /** The next tipset's base fee, for trimming. */
  readonly baseFee: bigint;
  /** `max(baseFee / 10, minimum base fee)`. */
  readonly baseFeeLowerBound: bigint;
  readonly params: NetworkParams;
}

export function messagesToRepublish(input: RepublishInput): SignedMessage[] {
  const chains: MessageChain[] = [];
  for (const { sender, messages } of input.pending) {
    chains.push(...createMessageChains(messages, input.actorOf(sender), input.baseFeeLowerBound, input.params));
  }
  chains.sort((a, b) => (a.before(b) ? -1 : b.before(a) ? 1 : 0));

  let gasLimit = input.params.blockGasLimit;
  const selected: SignedMessage[] = [];
  let i = 0;
  nextChain: while (i < chains.length) {
    if (selected.length > REPUBLISH_MESSAGE_LIMIT || gasLimit <= MIN_PACKING_GAS) break;
    const chain = chains[i] as MessageChain;
    if (!chain.valid) {
      i++;
      continue;
    }
    if (chain.gasLimit <= gasLimit) {
      for (const message of chain.messages) {
        if (message.signed.message.gasFeeCap < input.baseFeeLowerBound) {
          chain.invalidate();
          continue nextChain;
        }
        gasLimit -= message.signed.message.gasLimit;
        selected.push(message.signed);
      }
      i++;
      continue;
    }
    chain.trim(gasLimit, REPUBLISH_MESSAGE_LIMIT, input.baseFee);
    for (let j = i; j < chains.length - 1; j++) {
      const current = chains[j] as MessageChain;
      const following = chains[j + 1] as MessageChain;
      if (current.before(following)) break;
      chains[j] = following;
      chains[j + 1] = current;
    }
  }
  return selected.slice(0, REPUBLISH_MESSAGE_LIMIT);
}
