/**
 * Where a message landed (Lotus `stmgr/searchwait.go`: SearchForMessage, WaitForMessage): the
 * execution tipset — the first tipset whose parent included the message, the one whose
 * ParentMessageReceipts holds its receipt — and that receipt. StateSearchMsg, StateWaitMsg,
 * StateGetReceipt and StateReplay with an empty key answer from here.
 *
 * The chain index records which canonical tipset included each message CID, so the usual lookup
 * is one indexed read. A replacement (same sender and nonce, same call, other gas values and so
 * another CID) is not under the asked-for CID; for those Lotus's walk back over the sender's nonce
 * is used, which stops as soon as the sender's nonce shows the message cannot be further back.
 * Lotus's rules at a matching sender and nonce hold: another call is an error, and a replacement
 * is an error unless `allowReplaced`.
 */
import type { CID } from 'multiformats/cid';
import { StateTree } from '../state/index.js';
import { encodeMessage, type Message, type MessageReceipt, type TipSet } from '../types/index.js';
import { bytesEqual } from '../utils/bytes.js';
import { LruCache } from '../utils/lru-cache.js';
import type { ChainMessage } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { ChainError, ChainErrorCode } from './errors.js';
import type { HeadChange } from './head-change.js';
import { assertStateAvailable } from './snapshot/state-window.js';

/** Pending messages asked about, remembered so their replacements can be matched later. */
const SEEN_PENDING_CAPACITY = 10_000;

/** Tipsets whose messages and receipts are kept decoded (the recent ones waiters look at). */
const TIPSET_CACHE_SIZE = 64;

/** Lotus `LookbackNoLimit`: search back to genesis. */
export const LOOKBACK_NO_LIMIT = -1n;

/** Lotus `api.MsgLookup` (ReturnDec is the RPC layer's). */
export interface MsgLookup {
  /** The CID found on chain: the asked-for one, or the replacement's. */
  readonly message: CID;
  readonly receipt: MessageReceipt;
  /** The execution tipset: its parent included the message. */
  readonly tipSet: TipSet;
  readonly height: bigint;
}

export interface MessageSearchOptions {
  readonly chain: ChainStore;
  /**
   * A message the node knows but has not stored in its blockstore (the message pool's pending
   * ones), so that waiting for a just-pushed message can also match a replacement of it.
   */
  readonly pendingMessage?: ((cid: CID) => Message | undefined) | undefined;
}

export interface WaitOptions {
  /** Tipsets on top of the execution tipset before answering (Lotus `confidence`). */
  readonly confidence: bigint;
  /** How far back the first search looks (epochs), or LOOKBACK_NO_LIMIT. */
  readonly limit: bigint;
  readonly allowReplaced: boolean;
  /** Ends the wait with an error (the caller went away or the node stops). */
  readonly signal?: AbortSignal | undefined;
}

/** What is searched for: its CID and, when known, the message itself. */
interface Target {
  readonly cid: CID;
  readonly message: Message | undefined;
}

/** The message with its gas fields cleared: what Lotus's `EqualCall` compares. */
function callBytes(message: Message): Uint8Array {
  return encodeMessage({ ...message, gasLimit: 0n, gasFeeCap: 0n, gasPremium: 0n });
}

export class MessageSearch {
  readonly chain: ChainStore;
  readonly #pendingMessage: ((cid: CID) => Message | undefined) | undefined;
  readonly #seenPending = new LruCache<string, Message>(SEEN_PENDING_CAPACITY);
  readonly #messages = new LruCache<string, readonly ChainMessage[]>(TIPSET_CACHE_SIZE);
  readonly #receipts = new LruCache<string, readonly MessageReceipt[]>(TIPSET_CACHE_SIZE);

  constructor(options: MessageSearchOptions) {
    this.chain = options.chain;
    this.#pendingMessage = options.pendingMessage;
  }

  /**
   * Lotus `SearchForMessage` from `from` looking back at most `limit` epochs: undefined when the
   * message has not been executed on that chain (or only further back). A CID this node has
   * never seen is an error, as in Lotus ("failed to load message").
   */
  async search(from: TipSet, cid: CID, limit: bigint, allowReplaced: boolean): Promise<MsgLookup | undefined> {
    const message = this.#knownMessage(cid);
    if (message === undefined) {
      throw new ChainError(ChainErrorCode.NotFound, `failed to load message: message ${cid} not found`);
    }
    return this.#search(from, { cid, message }, limit, allowReplaced);
  }

  /**
   * Lotus `WaitForMessage`: resolves once the message has been executed and `confidence` more
   * tipsets sit on top of its execution tipset, following reorgs. Unlike Lotus, a message this
   * node has not seen yet is waited for (by its CID) instead of refused: it may still arrive.
   */
  wait(cid: CID, options: WaitOptions): Promise<MsgLookup> {
    const { confidence, limit, allowReplaced, signal } = options;
    return new Promise<MsgLookup>((resolve, reject) => {
      const changes: HeadChange[] = [];
      let wake: (() => void) | undefined;
      let done = false;
      const unsubscribe = this.chain.subscribeHeadChanges((change) => {
        changes.push(change);
        wake?.();
      });
      const onAbort = () => {
        wake?.();
      };
      signal?.addEventListener('abort', onAbort);
      const finish = (error: unknown, lookup?: MsgLookup) => {
        if (done) return;
        done = true;
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        if (lookup !== undefined) resolve(lookup);
        else reject(error);
      };
      const aborted = () =>
        new ChainError(
          ChainErrorCode.NotFound,
          `stopped waiting for message ${cid}: ${String(signal?.reason ?? 'aborted')}`,
        );

      const run = async () => {
        let target: Target = { cid, message: this.#knownMessage(cid) };
        let head = this.chain.head();
        let candidate = await this.#search(head, target, limit, allowReplaced);
        for (;;) {
          if (candidate !== undefined && head.height >= candidate.height + confidence) return candidate;
          if (signal?.aborted) throw aborted();
          if (changes.length === 0) {
            await new Promise<void>((awake) => {
              wake = awake;
            });
            wake = undefined;
            continue;
          }
          const change = changes.shift() as HeadChange;
          for (const reverted of change.revert) {
            if (candidate?.tipSet.equals(reverted)) candidate = undefined;
          }
          for (const applied of change.apply) {
            head = applied;
            if (candidate !== undefined) {
              if (applied.height >= candidate.height + confidence) return candidate;
              continue;
            }
            if (target.message === undefined) target = { cid, message: this.#knownMessage(cid) };
            candidate = await this.#executedIn(applied, target, allowReplaced);
          }
        }
      };
      run().then(
        (lookup) => finish(undefined, lookup),
        (error) => finish(error),
      );
    });
  }

  #knownMessage(cid: CID): Message | undefined {
    if (this.chain.blockstore.has(cid)) return this.chain.getMessage(cid);
    const key = cid.toString();
    const pending = this.#pendingMessage?.(cid);
    if (pending === undefined) return this.#seenPending.get(key);
    // Remembered: once replaced, the pool forgets the original, but a later search for its CID
    // must still find the replacement (Lotus keeps every pooled message in its blockstore).
    this.#seenPending.set(key, pending);
    return pending;
  }

  async #search(from: TipSet, target: Target, limit: bigint, allowReplaced: boolean): Promise<MsgLookup | undefined> {
    const atHead = await this.#executedIn(from, target, allowReplaced);
    if (atHead !== undefined) return atHead;
    const indexed = this.#searchIndex(from, target, limit);
    if (indexed !== undefined || target.message === undefined) return indexed;
    return this.#searchBack(from, { cid: target.cid, message: target.message }, limit, allowReplaced);
  }

  /** Whether `limit` lets a search from `from` reach the execution tipset at `height`. */
  #withinLimit(from: TipSet, height: bigint, limit: bigint): boolean {
    return limit === LOOKBACK_NO_LIMIT || height > from.height - limit;
  }

  /** The index's inclusion of exactly this CID, when it lies on `from`'s chain. */
  #searchIndex(from: TipSet, target: Target, limit: bigint): MsgLookup | undefined {
    const inclusion = this.chain.findMessageInclusion(target.cid);
    if (inclusion === undefined || inclusion.height >= from.height) return undefined;
    const included = this.chain.getTipSetByHeight(inclusion.height, from, true);
    if (!included.key.equals(inclusion.tipSet)) return undefined;
    const execution = this.chain.getTipSetByHeight(inclusion.height + 1n, from, false);
    if (!this.#withinLimit(from, execution.height, limit)) return undefined;
    const messages = this.#messagesOf(included);
    const index = messages.findIndex((m) => m.cid.equals(target.cid));
    // Included but skipped for its nonce: never executed, so no receipt.
    if (index < 0) return undefined;
    return {
      message: target.cid,
      receipt: this.#receiptAt(execution, index),
      tipSet: execution,
      height: execution.height,
    };
  }

  /**
   * Lotus `searchBackForMsg`: walks parents while the sender's nonce says the message may be
   * further back, and looks in the tipset where the nonce passed it.
   */
  async #searchBack(
    from: TipSet,
    target: { readonly cid: CID; readonly message: Message },
    limit: bigint,
    allowReplaced: boolean,
  ): Promise<MsgLookup | undefined> {
    const { from: sender, nonce } = target.message;
    const oldestState = this.chain.oldestStateEpoch();
    const nonceAt = (tipSet: TipSet): bigint | undefined => {
      // Below a pruned window the search ends as Lotus's does at a state it cannot load: not found.
      if (oldestState !== undefined && tipSet.height > 0n && tipSet.height < oldestState) return undefined;
      const tree = StateTree.load(this.chain.blockstore, tipSet.parentStateRoot);
      const id = tree.lookupId(sender);
      return id === undefined ? undefined : tree.getActor(id)?.nonce;
    };
    let current = from;
    let currentNonce = nonceAt(current);
    for (;;) {
      if (current.height === 0n || !this.#withinLimit(from, current.height, limit)) return undefined;
      if (currentNonce === undefined || currentNonce === 0n || currentNonce < nonce) return undefined;
      const parent = this.chain.loadTipSet(current.parents);
      const parentNonce = nonceAt(parent);
      if (parentNonce === undefined || (currentNonce > nonce && parentNonce <= nonce)) {
        const found = await this.#executedIn(current, target, allowReplaced);
        if (found !== undefined) return found;
      }
      current = parent;
      currentNonce = parentNonce;
    }
  }

  /**
   * Lotus `tipsetExecutedMessage`: the message's receipt when `tipSet`'s parent executed it (or,
   * with `allowReplaced`, a replacement of it).
   */
  async #executedIn(tipSet: TipSet, target: Target, allowReplaced: boolean): Promise<MsgLookup | undefined> {
    if (tipSet.height === 0n) return undefined;
    const parent = this.chain.loadTipSet(tipSet.parents);
    const messages = this.#messagesOf(parent);
    const lookup = (index: number, found: CID): MsgLookup => ({
      message: found,
      receipt: this.#receiptAt(tipSet, index),
      tipSet,
      height: tipSet.height,
    });
    const wanted = target.message;
    if (wanted === undefined) {
      const index = messages.findIndex((m) => m.cid.equals(target.cid));
      return index < 0 ? undefined : lookup(index, target.cid);
    }
    for (let i = messages.length - 1; i >= 0; i--) {
      const { message, cid } = messages[i]!;
      if (!message.from.equals(wanted.from)) continue;
      if (message.nonce < wanted.nonce) return undefined;
      if (message.nonce !== wanted.nonce) continue;
      if (!bytesEqual(callBytes(message), callBytes(wanted))) {
        throw new ChainError(
          ChainErrorCode.NotFound,
          `found message with equal nonce as the one we are looking for that is NOT a valid replacement message (F:${target.cid} n ${wanted.nonce}, TS: ${cid} n${message.nonce})`,
        );
      }
      if (!cid.equals(target.cid) && !allowReplaced) {
        throw new ChainError(
          ChainErrorCode.NotFound,
          `found message with equal nonce as the one we are looking for (F:${target.cid} n ${wanted.nonce}, TS: ${cid} n${message.nonce})`,
        );
      }
      return lookup(i, cid);
    }
    return undefined;
  }

  /**
   * A tipset's executed messages, shared by every search and wait: on a head change each waiter
   * looks at the same new tipsets, so they are read once, not once per waiter.
   */
  #messagesOf(tipSet: TipSet): readonly ChainMessage[] {
    const key = tipSet.key.toString();
    let messages = this.#messages.get(key);
    if (messages === undefined) {
      messages = this.chain.tipSetMessages(tipSet);
      this.#messages.set(key, messages);
    }
    return messages;
  }

  #receiptsOf(tipSet: TipSet): readonly MessageReceipt[] {
    const key = tipSet.parentMessageReceipts.toString();
    let receipts = this.#receipts.get(key);
    if (receipts === undefined) {
      assertStateAvailable(this.chain, tipSet);
      receipts = this.chain.readReceipts(tipSet.parentMessageReceipts);
      this.#receipts.set(key, receipts);
    }
    return receipts;
  }

  /** The receipt of the `index`th message its parent executed, from a tipset's ParentMessageReceipts. */
  #receiptAt(tipSet: TipSet, index: number): MessageReceipt {
    const receipts = this.#receiptsOf(tipSet);
    const receipt = receipts[index];
    if (receipt === undefined) {
      throw new ChainError(
        ChainErrorCode.NotFound,
        `tipset ${tipSet.key} at ${tipSet.height} has ${receipts.length} parent receipts, not ${index + 1}`,
      );
    }
    return receipt;
  }
}
