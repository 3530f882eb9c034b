/**
 * The state tree: every actor by ID in a HAMT, wrapped (from version 1) in a StateRoot
 * `[Version, Actors, Info]` (filecoin-project/lotus `chain/state/statetree.go`). Versions 0–5 are
 * read and written in their own encoding: versions 0 and 1 use the legacy HAMT pointer format,
 * versions before 5 the 4-tuple Actor.
 *
 * Actors read or written are kept decoded in memory; nothing reaches the HAMT until `flush`, which
 * writes the touched actors once. Changes made inside `beginTransaction`/`endTransaction` are
 * journaled, so ending a transaction with `revert` restores exactly what it changed, and nested
 * transactions revert independently (the FVM's state tree layers, as an undo log).
 */
import type { CID } from 'multiformats/cid';
import { type Blockstore, getBlock, Hamt, type HamtFormat, putCbor } from '../ipld/index.js';
import { type CborNode, decodeChainCbor } from '../types/cbor-node.js';
import {
  type Actor,
  Address,
  AddressProtocol,
  actorFromCborNode,
  decodeActor,
  encodeActor,
  readCid,
  readUint64,
  STATE_TREE_VERSION_WITH_DELEGATED_ADDRESS,
} from '../types/index.js';
import { INIT_ACTOR_ID } from './actor-code.js';
import { putCborBytes } from './blocks.js';
import { byteKey } from './byte-key.js';
import { StateError, StateErrorCode } from './errors.js';
import { decodeActorId, decodeInitState, encodeInitState, type InitState } from './init-state.js';

/** The newest state tree version (network version 18 on). */
export const CURRENT_STATE_TREE_VERSION = 5n;
const MAX_STATE_TREE_VERSION = 5n;

/** State trees 0 and 1 (actors v0–v2) use the keyed-union HAMT pointers of go-hamt-ipld v1/v2. */
export function hamtFormatOf(stateTreeVersion: bigint): HamtFormat {
  return stateTreeVersion <= 1n ? 'legacy' : 'v3';
}

type JournalEntry =
  | { kind: 'actor'; id: bigint; previous: Actor | null }
  | { kind: 'address'; key: string; previous: bigint | undefined };

interface InitView {
  state: InitState;
  addressMap: Hamt;
}

export class StateTree {
  readonly store: Blockstore;
  readonly version: bigint;
  readonly #hamtFormat: HamtFormat;
  readonly #actorsHamt: Hamt;
  readonly #info: CID | undefined;
  /** Every actor read or written, decoded; null where the actor does not exist. */
  readonly #actors = new Map<bigint, Actor | null>();
  readonly #dirty = new Set<bigint>();
  /** Resolved robust addresses (by address bytes). */
  readonly #resolved = new Map<string, bigint>();
  /** The Init state and address map last seen, keyed by the Init head they belong to. */
  #init: { head: string; view: InitView } | undefined;
  readonly #journal: JournalEntry[][] = [];

  private constructor(store: Blockstore, version: bigint, actorsHamt: Hamt, info: CID | undefined) {
    this.store = store;
    this.version = version;
    this.#hamtFormat = hamtFormatOf(version);
    this.#actorsHamt = actorsHamt;
    this.#info = info;
  }

  /** An empty tree; `flush` writes its StateRoot (or, for version 0, the bare HAMT). */
  static create(store: Blockstore, version: bigint = CURRENT_STATE_TREE_VERSION): StateTree {
    checkVersion(version);
    const info = version === 0n ? undefined : putCbor(store, []);
    return new StateTree(store, version, Hamt.create(store, { format: hamtFormatOf(version) }), info);
  }

  /** Opens the tree at `root`: a StateRoot, or (version 0) the actors HAMT itself. */
  static load(store: Blockstore, root: CID): StateTree {
    const node = decodeChainCbor(getBlock(store, root, 'state root'), `state root ${root}`);
    if (!isStateRoot(node)) {
      return new StateTree(store, 0n, Hamt.load(store, root, { format: hamtFormatOf(0n) }), undefined);
    }
    const version = readUint64(node[0], 'StateRoot.Version');
    checkVersion(version);
    const actors = readCid(node[1], 'StateRoot.Actors');
    const info = readCid(node[2], 'StateRoot.Info');
    return new StateTree(store, version, Hamt.load(store, actors, { format: hamtFormatOf(version) }), info);
  }

  getActor(id: bigint): Actor | undefined {
    let actor = this.#actors.get(id);
    if (actor === undefined) {
      const bytes = this.#actorsHamt.getBytes(Address.newId(id).bytes);
      actor = bytes === undefined ? null : decodeActor(bytes);
      this.#actors.set(id, actor);
    }
    return actor ?? undefined;
  }

  /** Like `getActor`, but a missing actor is an error naming `what` it was needed for. */
  requireActor(id: bigint, what: string): Actor {
    const actor = this.getActor(id);
    if (actor === undefined) throw new StateError(StateErrorCode.ActorNotFound, `${what}: actor f0${id} not found`);
    return actor;
  }

  setActor(id: bigint, actor: Actor): void {
    if (actor.delegatedAddress !== null && this.version < STATE_TREE_VERSION_WITH_DELEGATED_ADDRESS) {
      throw new StateError(
        StateErrorCode.InvalidState,
        `actor f0${id}: state tree version ${this.version} cannot hold a delegated address`,
      );
    }
    this.#record(id);
    this.#actors.set(id, actor);
    this.#dirty.add(id);
  }

  deleteActor(id: bigint): void {
    this.#record(id);
    this.#actors.set(id, null);
    this.#dirty.add(id);
  }

  /** The ID an address stands for: its own for f0, else the Init actor's mapping; undefined when unknown. */
  lookupId(address: Address): bigint | undefined {
    if (address.protocol === AddressProtocol.ID) return address.id();
    const key = byteKey(address.bytes);
    const cached = this.#resolved.get(key);
    if (cached !== undefined) return cached;
    const bytes = this.#initView().addressMap.getBytes(address.bytes);
    if (bytes === undefined) return undefined;
    const id = decodeActorId(bytes);
    // The mapping may have been made inside an open transaction (Init's Exec): forget it on revert.
    this.#journal.at(-1)?.push({ kind: 'address', key, previous: undefined });
    this.#resolved.set(key, id);
    return id;
  }

  /** Gives a robust address the Init actor's next ID (FVM `register_new_address`) and returns it. */
  registerNewAddress(address: Address): bigint {
    if (address.protocol === AddressProtocol.ID) {
      throw new StateError(StateErrorCode.InvalidState, `cannot register ID address ${address} as a new address`);
    }
    const { state, addressMap } = this.#initView();
    const id = state.nextId;
    addressMap.set(address.bytes, id);
    this.#setInit({ ...state, addressMap: addressMap.flush(), nextId: id + 1n }, addressMap);
    const key = byteKey(address.bytes);
    this.#journal.at(-1)?.push({ kind: 'address', key, previous: this.#resolved.get(key) });
    this.#resolved.set(key, id);
    return id;
  }

  /** The Init actor's state (network name, next ID). */
  initState(): InitState {
    return this.#initView().state;
  }

  beginTransaction(): void {
    this.#journal.push([]);
  }

  /** Ends the innermost transaction: `revert` undoes its changes, otherwise they join the enclosing one. */
  endTransaction(revert: boolean): void {
    const entries = this.#journal.pop();
    if (entries === undefined) {
      throw new StateError(StateErrorCode.TransactionMisuse, 'endTransaction without a matching beginTransaction');
    }
    if (revert) {
      for (let i = entries.length - 1; i >= 0; i--) this.#undo(entries[i]!);
      return;
    }
    const parent = this.#journal.at(-1);
    if (parent !== undefined) for (const entry of entries) parent.push(entry);
  }

  /** Actors held decoded in memory (read or written since the tree was loaded). */
  get cachedActorCount(): number {
    return this.#actors.size;
  }

  get inTransaction(): boolean {
    return this.#journal.length > 0;
  }

  /** Every existing actor, by ID: stored ones in HAMT order, then those created since the last flush. */
  *actors(): Generator<[id: bigint, actor: Actor]> {
    for (const [key, value] of this.#actorsHamt.entries()) {
      const id = Address.fromBytes(key).id();
      if (this.#actors.has(id)) continue;
      yield [id, actorFromCborNode(value as CborNode)];
    }
    for (const [id, actor] of this.#actors) {
      if (actor !== null) yield [id, actor];
    }
  }

  /** Writes the touched actors and returns the root: a StateRoot CID, or the HAMT root for version 0. */
  flush(): CID {
    if (this.inTransaction) {
      throw new StateError(StateErrorCode.TransactionMisuse, 'cannot flush the state tree inside a transaction');
    }
    for (const id of this.#dirty) {
      const actor = this.#actors.get(id);
      const key = Address.newId(id).bytes;
      if (actor === null || actor === undefined) this.#actorsHamt.delete(key);
      else this.#actorsHamt.setBytes(key, encodeActor(actor, this.version));
    }
    this.#dirty.clear();
    const actorsRoot = this.#actorsHamt.flush();
    if (this.#info === undefined) return actorsRoot;
    return putCbor(this.store, [this.version, actorsRoot, this.#info]);
  }

  #record(id: bigint): void {
    const transaction = this.#journal.at(-1);
    if (transaction === undefined) return;
    this.getActor(id);
    transaction.push({ kind: 'actor', id, previous: this.#actors.get(id) ?? null });
  }

  #undo(entry: JournalEntry): void {
    if (entry.kind === 'actor') {
      this.#actors.set(entry.id, entry.previous);
      return;
    }
    if (entry.previous === undefined) this.#resolved.delete(entry.key);
    else this.#resolved.set(entry.key, entry.previous);
  }

  #initView(): InitView {
    const init = this.requireActor(INIT_ACTOR_ID, 'address resolution');
    const head = init.head.toString();
    if (this.#init?.head !== head) {
      const state = decodeInitState(getBlock(this.store, init.head, 'Init actor state'));
      const addressMap = Hamt.load(this.store, state.addressMap, { format: this.#hamtFormat });
      this.#init = { head, view: { state, addressMap } };
    }
    return this.#init.view;
  }

  #setInit(state: InitState, addressMap: Hamt): void {
    const init = this.requireActor(INIT_ACTOR_ID, 'address registration');
    const head = putCborBytes(this.store, encodeInitState(state));
    this.setActor(INIT_ACTOR_ID, { ...init, head });
    this.#init = { head: head.toString(), view: { state, addressMap } };
  }
}

function checkVersion(version: bigint): void {
  if (version < 0n || version > MAX_STATE_TREE_VERSION) {
    throw new StateError(
      StateErrorCode.UnsupportedVersion,
      `state tree version ${version} is not supported (0 to ${MAX_STATE_TREE_VERSION})`,
    );
  }
}

/** A StateRoot is a 3-tuple `[uint, CID, CID]`; a version 0 root is a HAMT node `[bytes, array]`. */
function isStateRoot(node: CborNode): node is [CborNode, CborNode, CborNode] {
  return Array.isArray(node) && node.length === 3 && (typeof node[0] === 'number' || typeof node[0] === 'bigint');
}
