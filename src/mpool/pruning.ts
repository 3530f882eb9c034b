/**
 * Which messages go when the pool has grown past its high-water mark (filecoin-project/lotus
 * `chain/messagepool/pruning.go`): protected senders (priority addresses and every sender of a
 * local message) keep all theirs; the others' messages are ranked through their chains, best
 * performing first, and kept until the pool is down to the low-water mark. Messages that form no
 * chain — after a nonce gap, underfunded, below the inclusion gas — go first.
 */
import type { NetworkParams } from '../params/index.js';
import type { Actor, Address } from '../types/index.js';
import { createMessageChains } from './message-chains.js';
import type { PendingMessage } from './pending-message.js';
import type { SenderMessages } from './selection.js';

export interface PruneInput {
  readonly pending: ReadonlyMap<string, SenderMessages>;
  /** Sender keys never pruned. */
  readonly protectedSenders: ReadonlySet<string>;
  readonly actorOf: (sender: Address) => Actor | undefined;
  /** `max(baseFee / 10, minimum base fee)`: chains are ranked as if fees had fallen that far. */
  readonly baseFeeLowerBound: bigint;
  readonly params: NetworkParams;
  readonly sizeLimitLow: number;
}

export function messagesToPrune(input: PruneInput): PendingMessage[] {
  const candidates = new Map<string, PendingMessage>();
  let kept = 0;
  const chains = [];
  for (const [key, { sender, messages }] of input.pending) {
    if (input.protectedSenders.has(key)) {
      kept += messages.length;
      continue;
    }
    for (const message of messages) candidates.set(message.key, message);
    chains.push(...createMessageChains(messages, input.actorOf(sender), input.baseFeeLowerBound, input.params));
  }
  chains.sort((a, b) => (a.before(b) ? -1 : b.before(a) ? 1 : 0));
  keep: for (const chain of chains) {
    for (const message of chain.messages) {
      if (kept >= input.sizeLimitLow) break keep;
      candidates.delete(message.key);
      kept++;
    }
  }
  return [...candidates.values()];
}
