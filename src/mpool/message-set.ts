/**
 * One sender's pending messages by nonce (Lotus `msgSet`, filecoin-project/lotus
 * `chain/messagepool/messagepool.go`): the next nonce after the run of messages that follows the
 * state nonce without gaps, the nonce-gap rule for strict (network) adds, replace-by-fee, the
 * per-sender limit, and the sum of `feeCap × gasLimit` the messages reserve (value is not counted,
 * as in Lotus).
 */
import { MpoolError, MpoolErrorCode } from './errors.js';
import type { PendingMessage } from './pending-message.js';

/** How far ahead of the next nonce a strict add may go (Lotus MaxNonceGap). */
export const MAX_NONCE_GAP = 4n;
export const MAX_ACTOR_PENDING_MESSAGES = 1000;
export const MAX_UNTRUSTED_ACTOR_PENDING_MESSAGES = 100;
const RBF_MINIMUM_PERCENT = 110n;

/** The smallest premium that replaces a message paying `premium` (Lotus ComputeMinRBF): +10 %, plus 1. */
export function minimumReplacementPremium(premium: bigint): bigint {
  return (premium * RBF_MINIMUM_PERCENT) / 100n + 1n;
}

/** The premium `mpool replace --auto` offers at `ratioPercent` (Lotus ComputeRBF). */
export function replacementPremium(premium: bigint, ratioPercent: number): bigint {
  return (premium * BigInt(ratioPercent)) / 100n + 1n;
}

export interface AddOptions {
  /** Network messages: no nonce gaps beyond MAX_NONCE_GAP, no replacement across a gap. */
  readonly strict: boolean;
  /** Gateway pushes: at most MAX_UNTRUSTED_ACTOR_PENDING_MESSAGES per sender; with `strict`, no nonce gap at all. */
  readonly untrusted: boolean;
}

export class MessageSet {
  readonly messages = new Map<bigint, PendingMessage>();
  nextNonce: bigint;
  requiredFunds = 0n;

  constructor(stateNonce: bigint) {
    this.nextNonce = stateNonce;
  }

  /**
   * Adds or replaces the message at its nonce. Returns the message it replaced, if any; throws
   * when a rule refuses it.
   */
  add(message: PendingMessage, options: AddOptions): PendingMessage | undefined {
    const { nonce, gasPremium } = message.signed.message;
    let nextNonce = this.nextNonce;
    let nonceGap = false;
    const maxPending = options.untrusted ? MAX_UNTRUSTED_ACTOR_PENDING_MESSAGES : MAX_ACTOR_PENDING_MESSAGES;
    const maxGap = options.untrusted ? 0n : MAX_NONCE_GAP;
    if (nonce === nextNonce) {
      nextNonce++;
      while (this.messages.has(nextNonce)) nextNonce++;
    } else if (options.strict && nonce > nextNonce + maxGap) {
      throw new MpoolError(
        MpoolErrorCode.NonceGap,
        `message nonce has too big a gap from expected nonce (Nonce: ${nonce}, nextNonce: ${nextNonce}): unfulfilled nonce gap`,
      );
    } else if (nonce > nextNonce) {
      nonceGap = true;
    }

    const existing = this.messages.get(nonce);
    if (existing !== undefined) {
      const from = message.signed.message.from;
      if (options.strict && nonceGap) {
        throw new MpoolError(
          MpoolErrorCode.NonceGap,
          `rejecting replace by fee because of nonce gap (Nonce: ${nonce}, nextNonce: ${nextNonce}): unfulfilled nonce gap`,
        );
      }
      if (existing.key === message.key) {
        throw new MpoolError(
          MpoolErrorCode.ExistingNonce,
          `message from ${from} with nonce ${nonce} already in mpool: message with nonce already exists`,
        );
      }
      const minimum = minimumReplacementPremium(existing.signed.message.gasPremium);
      if (gasPremium < minimum) {
        throw new MpoolError(
          MpoolErrorCode.ReplaceByFeeTooLow,
          `message from ${from} with nonce ${nonce} already in mpool, increase GasPremium to ${minimum} from ${gasPremium} to trigger replace by fee: replace by fee has too low GasPremium`,
        );
      }
      this.requiredFunds -= existing.requiredFunds;
    } else if (this.messages.size >= maxPending) {
      throw new MpoolError(MpoolErrorCode.TooManyPending, 'too many pending messages for actor');
    }

    this.nextNonce = nextNonce;
    this.messages.set(nonce, message);
    this.requiredFunds += message.requiredFunds;
    return existing;
  }

  /**
   * Removes the message at `nonce`. `applied`: it was included in a tipset (the next nonce moves
   * past it even when the pool never saw it); otherwise it was pruned or cleared (the next nonce
   * rewinds to it).
   */
  remove(nonce: bigint, applied: boolean): PendingMessage | undefined {
    const message = this.messages.get(nonce);
    if (message === undefined) {
      if (applied && nonce >= this.nextNonce) {
        this.nextNonce = nonce + 1n;
        while (this.messages.has(this.nextNonce)) this.nextNonce++;
      }
      return undefined;
    }
    this.requiredFunds -= message.requiredFunds;
    this.messages.delete(nonce);
    if (applied) {
      if (nonce >= this.nextNonce) this.nextNonce = nonce + 1n;
    } else if (nonce < this.nextNonce) {
      this.nextNonce = nonce;
    }
    return message;
  }

  /** The funds the other pending messages reserve: all but the one at `nonce` (which a new message would replace). */
  requiredFundsExcept(nonce: bigint): bigint {
    const existing = this.messages.get(nonce);
    return existing === undefined ? this.requiredFunds : this.requiredFunds - existing.requiredFunds;
  }

  /** The messages in nonce order. */
  sorted(): PendingMessage[] {
    return [...this.messages.values()].sort((a, b) =>
      a.signed.message.nonce < b.signed.message.nonce ? -1 : a.signed.message.nonce > b.signed.message.nonce ? 1 : 0,
    );
  }
}
