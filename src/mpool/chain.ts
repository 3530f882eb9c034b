/**
 * What the message pool and gas estimation need from the chain. The chain store provides all of
 * it (`node/` wires it in); tests use a real in-memory chain over a genesis state. Everything else
 * — nonces, balances, actor types, key addresses, base fees, estimation calls — the pool reads
 * from the state trees in `blockstore` itself.
 */
import type { CID } from 'multiformats/cid';
import type { BlockMessages } from '../chain/block-messages.js';
import type { ChainStore } from '../chain/chain-store.js';
import type { HeadChange } from '../chain/head-change.js';
import { ChainRandomness, type RandomnessChain } from '../chain/randomness.js';
import type { TipSetStates } from '../chain/tipset-states.js';
import type { Blockstore } from '../ipld/index.js';
import type { BlockHeader, TipSet, TipSetKey } from '../types/index.js';
import type { RandomnessSource } from '../vm/index.js';

export type { BlockMessages, HeadChange };

export interface MpoolChain {
  /** Holds the state trees of every tipset the pool asks about. */
  readonly blockstore: Blockstore;
  /** The heaviest tipset. */
  head(): TipSet;
  /** A known tipset by key; throws when the chain does not have it. */
  loadTipSet(key: TipSetKey): TipSet;
  /**
   * The state root after executing `tipSet` (Lotus `TipSetState`): its children's
   * ParentStateRoot. For genesis, its own state.
   */
  stateAfter(tipSet: TipSet): Promise<CID>;
  /** The messages a block carries (Lotus `MessagesForBlock`). */
  messagesForBlock(block: BlockHeader): BlockMessages;
  /** Calls `listener` for every head change, in order; returns the function that unsubscribes. */
  subscribeHeadChanges(listener: (change: HeadChange) => Promise<void>): () => void;
  /** The chain's randomness as of `tipSet`, for messages run on the state after it (Lotus `NewStateRand(ts)`). */
  randomness(tipSet: TipSet): RandomnessSource;
}

/** The node's chain store and tipset states seen as what the pool needs. */
export function mpoolChainOf(
  store: Pick<ChainStore, 'blockstore' | 'head' | 'loadTipSet' | 'blockMessages' | 'subscribeHeadChanges'> &
    RandomnessChain,
  states: Pick<TipSetStates, 'stateOf'>,
): MpoolChain {
  return {
    blockstore: store.blockstore,
    head: () => store.head(),
    loadTipSet: (key) => store.loadTipSet(key),
    stateAfter: async (tipSet) => (await states.stateOf(tipSet)).stateRoot,
    messagesForBlock: (block) => store.blockMessages(block),
    subscribeHeadChanges: (listener) => store.subscribeHeadChanges(listener),
    randomness: (tipSet) => new ChainRandomness(store, tipSet),
  };
}
