/**
 * Which epochs this node holds state for. A node synced from genesis or started from a full
 * snapshot holds all of them; one started from a minimal snapshot holds state trees only from the
 * snapshot's oldest recent epoch on, plus genesis. The import records that epoch in the chain
 * metadata (`oldestStateEpoch`), and `assertStateAvailable` is the one check every state query
 * calls before loading the state of a tipset (its ParentStateRoot, as Lotus's StateGetActor & co.
 * read it). The pruner (src/chain/prune.ts) raises that epoch before it deletes anything below it,
 * so state it is half-way through deleting is refused, never half-read.
 */
import type { ChainIndex } from '../../db/index.js';
import type { Blockstore } from '../../ipld/index.js';
import type { TipSet, TipSetKey } from '../../types/index.js';
import { StateNotAvailableError } from './errors.js';

/** The chain store's metadata names (src/chain/chain-store.ts): the genesis CID and the head's key. */
export const CHAIN_GENESIS_META = 'genesis';
export const CHAIN_HEAD_META = 'head';
const OLDEST_STATE_META = 'oldest-state-epoch';
/** Present once the pruner raised the epoch (the error then says why state is missing). */
const STATE_PRUNED_META = 'state-pruned';

/** Where the import records the window; a `LedgerDatabase` is one. */
export interface StateWindowSource {
  readonly chainIndex: ChainIndex;
}

export function recordOldestStateEpoch(
  db: Pick<StateWindowSource, 'chainIndex'>,
  epoch: bigint,
  cause: 'snapshot' | 'prune' = 'snapshot',
): void {
  db.chainIndex.setMeta(OLDEST_STATE_META, new TextEncoder().encode(epoch.toString()));
  if (cause === 'prune') db.chainIndex.setMeta(STATE_PRUNED_META, new Uint8Array([1]));
}

/** Whether state was pruned (rather than never imported). */
export function statePruned(db: Pick<StateWindowSource, 'chainIndex'>): boolean {
  return db.chainIndex.getMeta(STATE_PRUNED_META) !== undefined;
}

/** The oldest epoch above genesis with state, or undefined when the node holds every epoch's state. */
export function oldestStateEpoch(db: Pick<StateWindowSource, 'chainIndex'>): bigint | undefined {
  const recorded = db.chainIndex.getMeta(OLDEST_STATE_META);
  return recorded === undefined ? undefined : BigInt(new TextDecoder().decode(recorded));
}

/** What the check reads: a `ChainStore` is one. */
export interface StateWindowChain {
  readonly blockstore: Blockstore;
  /** The recorded oldest epoch with state (`oldestStateEpoch` of its database), undefined when all are held. */
  oldestStateEpoch(): bigint | undefined;
  /** Whether that epoch was raised by pruning (`statePruned`). */
  statePruned(): boolean;
  head(): TipSet;
  loadTipSet(key: TipSetKey): TipSet;
}

/**
 * Throws `StateNotAvailableError` (code ERR_STATE_NOT_AVAILABLE) when the state of `tipSet` — its
 * ParentStateRoot, what Lotus's state methods read — is below the recorded window or not in the
 * blockstore, naming the oldest epoch whose state the node holds. Costs one lookup when the state
 * is there; only the error walks down from the head to find that epoch.
 */
export function assertStateAvailable(
  chain: StateWindowChain,
  tipSet: Pick<TipSet, 'height' | 'parentStateRoot'>,
): void {
  const recorded = chain.oldestStateEpoch();
  if (recorded !== undefined && tipSet.height > 0n && tipSet.height < recorded) {
    throw new StateNotAvailableError(tipSet.height, recorded, chain.statePruned());
  }
  if (chain.blockstore.has(tipSet.parentStateRoot)) return;
  let oldest = chain.head();
  for (let current = oldest; current.height > 0n; ) {
    if (!chain.blockstore.has(current.parentStateRoot)) break;
    oldest = current;
    current = chain.loadTipSet(current.parents);
  }
  throw new StateNotAvailableError(tipSet.height, oldest.height, chain.statePruned());
}
