/**
 * Reading a state tree in tests: balances, the total of all balances, and the genesis multisig.
 */
import type { CID } from 'multiformats/cid';
import type { Blockstore } from '../../src/ipld/index.js';
import { actorNameOf, StateTree } from '../../src/state/index.js';
import { Address } from '../../src/types/index.js';

export function loadTree(chain: { store: Blockstore }, root: CID): StateTree {
  return StateTree.load(chain.store, root);
}

/** An actor's balance; 0 for an address without an actor. */
export function balanceOf(tree: StateTree, address: Address): bigint {
  const id = tree.lookupId(address);
  return id === undefined ? 0n : (tree.getActor(id)?.balance ?? 0n);
}

export function totalBalance(tree: StateTree): bigint {
  let total = 0n;
  for (const [, actor] of tree.actors()) total += actor.balance;
  return total;
}

/** The ID address of the first multisig actor in the tree (a genesis template's multisig). */
export function firstMultisig(tree: StateTree): Address {
  for (const [id, actor] of tree.actors()) if (actorNameOf(actor.code) === 'multisig') return Address.newId(id);
  throw new Error('the state tree holds no multisig actor');
}
