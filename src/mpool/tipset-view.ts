/**
 * The state the pool judges messages by: a tipset (normally the head), the state before it (its
 * ParentStateRoot) and after it, its messages, and what follows from them — each sender's next
 * nonce (Lotus `getStateNonce`: the actor's nonce before the tipset, moved past any of its
 * messages the tipset includes), actors after it (`GetActorAfter`: balance, type) and the base fee
 * of the next tipset (`ChainComputeBaseFee`). State trees cache what they decode, so repeated
 * lookups of one sender are cheap; a view is replaced, not updated, when the head moves.
 */
import type { NetworkParams } from '../params/index.js';
import { byteKey, StateTree } from '../state/index.js';
import type { Actor, Address, Message, TipSet } from '../types/index.js';
import { AddressProtocol } from '../types/index.js';
import { LruCache } from '../utils/lru-cache.js';
import { computeNextBaseFee, keyAddressOf, selectTipsetMessages } from '../vm/index.js';
import type { BlockMessages, MpoolChain } from './chain.js';
import { MpoolError, MpoolErrorCode } from './errors.js';

/** Key addresses of ID senders, shared across views: an account's key never changes. */
const KEY_CACHE_SIZE = 100_000;

export class KeyAddressCache {
  readonly #cache = new LruCache<string, Address>(KEY_CACHE_SIZE);

  /** The key address of `address` in `tree` (Lotus `resolveToKey`); non-ID addresses are their own. */
  resolve(tree: StateTree, address: Address): Address {
    if (address.protocol !== AddressProtocol.ID) return address;
    const key = byteKey(address.bytes);
    let resolved = this.#cache.get(key);
    if (resolved === undefined) {
      resolved = keyAddressOf(tree, address);
      this.#cache.set(key, resolved);
    }
    return resolved;
  }
}

export class TipSetView {
  readonly tipSet: TipSet;
  /** Each block's messages, in block order. */
  readonly blockMessages: readonly BlockMessages[];
  /** ParentBaseFee of the tipset that will follow this one. */
  readonly nextBaseFee: bigint;
  readonly #before: StateTree;
  readonly #after: StateTree;
  readonly #keys: KeyAddressCache;
  /** Per key address: one past the highest nonce the tipset executes from it. */
  readonly #includedNonces = new Map<string, bigint>();

  private constructor(
    tipSet: TipSet,
    blockMessages: readonly BlockMessages[],
    before: StateTree,
    after: StateTree,
    keys: KeyAddressCache,
    params: NetworkParams,
  ) {
    this.tipSet = tipSet;
    this.blockMessages = blockMessages;
    this.#before = before;
    this.#after = after;
    this.#keys = keys;
    const all: Message[] = blockMessages.flatMap((b) => [...b.blsMessages, ...b.secpMessages.map((s) => s.message)]);
    this.nextBaseFee = computeNextBaseFee(all, tipSet.parentBaseFee, params);
    for (const executed of selectTipsetMessages(before, blockMessages).flat()) {
      const sender = this.#tryResolve(executed.message.from);
      if (sender === undefined) continue;
      const key = byteKey(sender.bytes);
      const next = executed.message.nonce + 1n;
      if (next > (this.#includedNonces.get(key) ?? 0n)) this.#includedNonces.set(key, next);
    }
  }

  static async load(
    chain: MpoolChain,
    tipSet: TipSet,
    params: NetworkParams,
    keys: KeyAddressCache,
  ): Promise<TipSetView> {
    const afterRoot = await chain.stateAfter(tipSet);
    const blockMessages = tipSet.blocks.map((block) => chain.messagesForBlock(block));
    const before = StateTree.load(chain.blockstore, tipSet.parentStateRoot);
    const after = StateTree.load(chain.blockstore, afterRoot);
    return new TipSetView(tipSet, blockMessages, before, after, keys, params);
  }

  /** The actor in the state after the tipset (Lotus `GetActorAfter`). */
  actorAfter(address: Address): Actor | undefined {
    const id = this.#after.lookupId(address);
    return id === undefined ? undefined : this.#after.getActor(id);
  }

  /** The key address of a sender, resolved in the state after the tipset. */
  resolveToKey(address: Address): Address {
    return this.#keys.resolve(this.#after, address);
  }

  /** The first nonce a new message from `address` may use, not counting the pool's own messages. */
  stateNonce(address: Address): bigint {
    const id = this.#before.lookupId(address);
    const actor = id === undefined ? undefined : this.#before.getActor(id);
    if (actor === undefined) {
      throw new MpoolError(
        MpoolErrorCode.SoftValidation,
        `failed to look up actor state nonce: actor ${address} not found in the state before ${this.tipSet.key}: validation failure`,
      );
    }
    const included = this.#includedNonces.get(byteKey(this.resolveToKey(address).bytes)) ?? 0n;
    return included > actor.nonce ? included : actor.nonce;
  }

  #tryResolve(address: Address): Address | undefined {
    try {
      return this.resolveToKey(address);
    } catch {
      // Lotus skips messages whose sender it cannot resolve when it counts nonces.
      return undefined;
    }
  }
}
