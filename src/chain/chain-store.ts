/**
 * The chain store (Lotus `chain/store`): block headers and messages in the blockstore, tipsets
 * indexed in SQLite (`ChainIndex`), the heaviest tipset as the head, persisted, and the canonical
 * chain by height. Tipsets enter through `addTipSet` once consensus has validated their blocks; the
 * heaviest (ties broken by ticket) becomes the head, and subscribers see each move of the head as
 * the tipsets reverted and applied. A head change — canonical rows, message inclusions and the head
 * itself — is one transaction, and the head in memory moves only once it is committed. Validated
 * blocks enter through `addBlocks` (called by the sync module's block intake): the blocks, the tipset
 * they form with the blocks already held on the same parents, the head and whatever the caller writes
 * alongside (a mined block's slash-filter record) in one transaction.
 */
import { CID } from 'multiformats/cid';
import type { Logger } from 'pino';
import { blake2b256 } from '../crypto/index.js';
import type { ChainIndex, LedgerDatabase, MessageInclusion } from '../db/index.js';
import { Amt, type Blockstore, getBlock } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import { StateTree } from '../state/index.js';
import type { CborNode } from '../types/cbor-node.js';
import {
  type BeaconEntry,
  type BlockHeader,
  blockCid,
  decodeBlockHeader,
  decodeMessage,
  decodeSignedMessage,
  encodeBlockHeader,
  type FullBlock,
  type Message,
  type MessageReceipt,
  messageReceiptFromCborNode,
  TipSet,
  TipSetKey,
} from '../types/index.js';
import { compareBytes } from '../utils/bytes.js';
import { LruCache } from '../utils/lru-cache.js';
import { type ChainMessage, selectTipsetMessages } from '../vm/index.js';
import { type BlockMessages, blockMessageCids, loadBlockMessages, putBlockMessages } from './block-messages.js';
import { ChainError, ChainErrorCode } from './errors.js';
import { type HeadChange, type HeadChangeListener, type HeadChangeSource, headChangePath } from './head-change.js';
import type { BeaconSchedule } from './randomness.js';
import { assertStateAvailable, oldestStateEpoch, statePruned } from './snapshot/state-window.js';
import { tipSetWeight } from './weight.js';

const GENESIS = 'genesis';
const HEAD = 'head';
const TIPSET_CACHE_SIZE = 4096;
/** Lotus `GetLatestBeaconEntry` looks this many tipsets back. */
const BEACON_ENTRY_SEARCH_DEPTH = 20;

/** A head change written to the index, to be made in memory once it is committed. */
interface HeadMove {
  readonly tipSet: TipSet;
  readonly weight: bigint;
  readonly change: HeadChange;
}

/** What `addBlocks` recorded: the tipset the blocks joined (expanded) and whether it became the head. */
export interface AddedBlocks {
  readonly tipSet: TipSet;
  readonly becameHead: boolean;
}

export interface ChainStoreOptions {
  readonly db: LedgerDatabase;
  readonly params: NetworkParams;
  readonly logger?: Logger | undefined;
  /** Which beacon round each epoch reads, for beacon randomness (`randomness.ts`); none: it fails. */
  readonly beaconSchedule?: BeaconSchedule | undefined;
}

/** True when `a` wins a weight tie against `b`: the first differing ticket is smaller (Lotus `breakWeightTie`). */
function winsWeightTie(a: TipSet, b: TipSet): boolean {
  const n = Math.min(a.blocks.length, b.blocks.length);
  for (let i = 0; i < n; i++) {
    const order = compareBytes(
      blake2b256((a.blocks[i] as BlockHeader).ticket!.vrfProof),
      blake2b256((b.blocks[i] as BlockHeader).ticket!.vrfProof),
    );
    if (order !== 0) return order < 0;
  }
  return false;
}

export class ChainStore implements HeadChangeSource {
  readonly blockstore: Blockstore;
  readonly params: NetworkParams;
  readonly genesis: TipSet;
  readonly beaconSchedule: BeaconSchedule | undefined;
  readonly #db: LedgerDatabase;
  readonly #index: ChainIndex;
  readonly #logger: Logger | undefined;
  readonly #tipSets = new LruCache<string, TipSet>(TIPSET_CACHE_SIZE);
  readonly #listeners = new Set<HeadChangeListener>();
  #notifications: Promise<void> = Promise.resolve();
  #head: TipSet;
  #headWeight: bigint;

  private constructor(options: ChainStoreOptions, genesis: TipSet, head: TipSet) {
    this.#db = options.db;
    this.#index = options.db.chainIndex;
    this.#logger = options.logger;
    this.blockstore = options.db.blockstore;
    this.params = options.params;
    this.beaconSchedule = options.beaconSchedule;
    this.genesis = genesis;
    this.#head = head;
    this.#headWeight = this.weightOf(head);
  }

  /** Whether the database holds a chain (a recorded genesis). */
  static hasChain(db: LedgerDatabase): boolean {
    return db.chainIndex.getMeta(GENESIS) !== undefined;
  }

  /**
   * Makes the genesis block (already in the blockstore, with its state) the start and head of the
   * database's chain. A database that already has this genesis is simply opened; one with another
   * genesis is refused.
   */
  static initialize(options: ChainStoreOptions, genesisCid: CID): ChainStore {
    const { db } = options;
    const recorded = db.chainIndex.getMeta(GENESIS);
    if (recorded !== undefined) {
      if (!genesisCid.equals(decodeCid(recorded))) {
        throw new ChainError(
          ChainErrorCode.GenesisMismatch,
          `the database holds the chain of genesis ${decodeCid(recorded)}, not ${genesisCid}`,
        );
      }
      return ChainStore.open(options);
    }
    const header = decodeBlockHeader(getBlock(db.blockstore, genesisCid, 'genesis block'));
    if (header.height !== 0n)
      throw new ChainError(ChainErrorCode.NoChain, `block ${genesisCid} is not a genesis block`);
    const genesis = TipSet.fromHeaders([header]);
    const weight = tipSetWeight(db.blockstore, genesis, options.params);
    db.transaction(() => {
      const index = db.chainIndex;
      index.putTipSet({ key: genesis.key, height: 0n, parents: genesis.parents, weight });
      index.setCanonical(0n, genesis.key);
      // Genesis is never executed: its state is the one it was built with.
      index.putTipSetState(genesis.key, {
        stateRoot: genesis.parentStateRoot,
        receiptsRoot: genesis.parentMessageReceipts,
      });
      index.setMeta(GENESIS, genesisCid.bytes);
      index.setMeta(HEAD, genesis.key.bytes);
    });
    return new ChainStore(options, genesis, genesis);
  }

  /** Opens the database's chain at its persisted head. */
  static open(options: ChainStoreOptions): ChainStore {
    const index = options.db.chainIndex;
    const genesisBytes = index.getMeta(GENESIS);
    const headBytes = index.getMeta(HEAD);
    if (genesisBytes === undefined || headBytes === undefined) {
      throw new ChainError(ChainErrorCode.NoChain, `database ${options.db.path} holds no chain`);
    }
    const load = (key: TipSetKey) => loadTipSetFrom(options.db.blockstore, key);
    const genesis = load(TipSetKey.fromCids([decodeCid(genesisBytes)]));
    return new ChainStore(options, genesis, load(TipSetKey.fromBytes(headBytes)));
  }

  /** The heaviest tipset. */
  head(): TipSet {
    return this.#head;
  }

  headWeight(): bigint {
    return this.#headWeight;
  }

  /** The oldest epoch above genesis whose state this node holds, or undefined when it holds all (snapshot/state-window.ts). */
  oldestStateEpoch(): bigint | undefined {
    return oldestStateEpoch(this.#db);
  }

  /** Whether state below that epoch was pruned (rather than never imported). */
  statePruned(): boolean {
    return statePruned(this.#db);
  }

  hasBlock(cid: CID): boolean {
    return this.blockstore.has(cid);
  }

  getBlockHeader(cid: CID): BlockHeader {
    const bytes = this.blockstore.get(cid);
    if (bytes === undefined) throw new ChainError(ChainErrorCode.NotFound, `block ${cid} not found`);
    return decodeBlockHeader(bytes);
  }

  loadTipSet(key: TipSetKey): TipSet {
    const cacheKey = key.toString();
    let tipSet = this.#tipSets.get(cacheKey);
    if (tipSet === undefined) {
      tipSet = loadTipSetFrom(this.blockstore, key);
      this.#tipSets.set(cacheKey, tipSet);
    }
    return tipSet;
  }

  /** The tipset of a key, or the head for the empty key (Lotus `GetTipSetFromKey`). */
  tipSetOrHead(key: TipSetKey): TipSet {
    return key.isEmpty ? this.#head : this.loadTipSet(key);
  }

  /**
   * The tipset at `height` on the chain behind `from` (Lotus `GetTipsetByHeight`). At a null round,
   * `prev` picks the tipset before it, otherwise the first one after it.
   */
  getTipSetByHeight(height: bigint, from: TipSet, prev: boolean): TipSet {
    if (height < 0n) throw new ChainError(ChainErrorCode.InvalidHeight, `height ${height} is negative`);
    if (height > from.height) {
      throw new ChainError(
        ChainErrorCode.InvalidHeight,
        `looking for tipset with height greater than start point, req: ${height}, head: ${from.height}`,
      );
    }
    if (height === from.height) return from;
    if (this.#isCanonical(from)) {
      const at = this.#index.canonicalAtOrBelow(height);
      if (at !== undefined && (at.height === height || prev)) return this.loadTipSet(at.key);
      const after = this.#index.canonicalAbove(height);
      if (after !== undefined) return this.loadTipSet(after.key);
    }
    let tipSet = from;
    for (;;) {
      const parent = this.loadTipSet(tipSet.parents);
      if (parent.height === height) return parent;
      if (parent.height < height) return prev ? parent : tipSet;
      tipSet = parent;
    }
  }

  /** The tipset's weight: recorded when it was added, otherwise computed from its parent state. */
  weightOf(tipSet: TipSet): bigint {
    return this.#index.getTipSet(tipSet.key)?.weight ?? tipSetWeight(this.blockstore, tipSet, this.params);
  }

  /** A block's messages in block order (Lotus `MessagesForBlock`). */
  blockMessages(header: BlockHeader): BlockMessages {
    return loadBlockMessages(this.blockstore, header);
  }

  /**
   * The messages a tipset executes, in execution order and each once (Lotus `MessagesForTipset`):
   * what ChainGetParentMessages answers for its children. It resolves senders in the parent state,
   * so below a pruned window it is refused (ERR_STATE_NOT_AVAILABLE), as Lotus's needs that state too.
   */
  tipSetMessages(tipSet: TipSet): ChainMessage[] {
    assertStateAvailable(this, tipSet);
    const tree = StateTree.load(this.blockstore, tipSet.parentStateRoot);
    const seen = new Set<string>();
    return selectTipsetMessages(
      tree,
      tipSet.blocks.map((header) => this.blockMessages(header)),
    )
      .flat()
      .filter((message) => {
        const key = message.cid.toString();
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
  }

  /** A message by its unsigned or signed CID, as the VM message (Lotus `GetCMessage`). */
  getMessage(cid: CID): Message {
    const bytes = this.blockstore.get(cid);
    if (bytes === undefined) throw new ChainError(ChainErrorCode.NotFound, `message ${cid} not found`);
    try {
      return decodeMessage(bytes);
    } catch {
      return decodeSignedMessage(bytes).message;
    }
  }

  /** The receipts of a receipts AMT (a header's ParentMessageReceipts). */
  readReceipts(root: CID): MessageReceipt[] {
    return Array.from(Amt.load(this.blockstore, root, { version: 'v0' }).values(), (value, i) =>
      messageReceiptFromCborNode(value as CborNode, `MessageReceipt[${i}]`),
    );
  }

  /** The canonical tipset that included a message, by its chain CID. */
  findMessageInclusion(cid: CID): MessageInclusion | undefined {
    return this.#index.findMessageInclusion(cid);
  }

  /** The last beacon entry on the chain up to `tipSet`, searching 20 tipsets back (Lotus `GetLatestBeaconEntry`). */
  latestBeaconEntry(tipSet: TipSet): BeaconEntry {
    let current = tipSet;
    for (let i = 0; i < BEACON_ENTRY_SEARCH_DEPTH; i++) {
      const entries = current.minTicketBlock.beaconEntries;
      const last = entries[entries.length - 1];
      if (last !== undefined) return last;
      if (current.height === 0n) {
        throw new ChainError(ChainErrorCode.NotFound, 'made it back to genesis block without finding beacon entry');
      }
      current = this.loadTipSet(current.parents);
    }
    throw new ChainError(
      ChainErrorCode.NotFound,
      `found no beacon entries in the ${BEACON_ENTRY_SEARCH_DEPTH} latest tipsets`,
    );
  }

  /** Stores a block's header and messages (one transaction). Validation is the caller's job. */
  putBlock(block: FullBlock): CID {
    const cid = blockCid(block.header);
    this.#db.transaction(() => {
      putBlockMessages(this.blockstore, {
        blsMessages: block.blsMessages,
        secpMessages: block.secpkMessages,
      });
      this.blockstore.put(cid, encodeBlockHeader(block.header));
    });
    return cid;
  }

  /** Every accepted tipset at a height, canonical or not. */
  tipSetsAt(height: bigint): TipSet[] {
    return this.#index.tipSetKeysAt(height).map((key) => this.loadTipSet(key));
  }

  /**
   * Records a validated tipset (its blocks stored, its parent executed) and makes it the head if it
   * is heavier than the head, or as heavy with the smaller ticket. Returns whether it became the head.
   */
  addTipSet(tipSet: TipSet): boolean {
    return this.#moveHead(this.#db.transaction(() => this.#indexTipSet(tipSet)));
  }

  /**
   * Stores validated blocks of one epoch on one parent tipset and records the tipset they form,
   * expanded with the blocks already accepted at that height on the same parents, at most one per
   * miner (filecoin-project/lotus `chain/store/store.go` `expandTipset`); the expanded tipset then
   * competes for the head. `alongside` runs first in the same transaction and may throw to refuse
   * the blocks: all of it is written, or none of it (the mining loop's slash-filter record never
   * outlives a failed write). The head in memory moves once the transaction is committed.
   */
  addBlocks(blocks: readonly FullBlock[], alongside?: () => void): AddedBlocks {
    const own = TipSet.fromHeaders(blocks.map((block) => block.header));
    const expanded = this.#expand(own);
    const move = this.#db.transaction(() => {
      alongside?.();
      for (const block of blocks) this.putBlock(block);
      // The blocks' own tipset is recorded too: peers announce it and children name it as parents.
      if (expanded !== own) this.#recordTipSet(own);
      return this.#indexTipSet(expanded);
    });
    return { tipSet: expanded, becameHead: this.#moveHead(move) };
  }

  subscribeHeadChanges(listener: HeadChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once every head change so far has reached every subscriber. */
  settled(): Promise<void> {
    return this.#notifications;
  }

  #isCanonical(tipSet: TipSet): boolean {
    const at = this.#index.canonicalAtOrBelow(tipSet.height);
    return at !== undefined && at.height === tipSet.height && at.key.equals(tipSet.key);
  }

  /**
   * Writes a tipset's index row and, when it is heavier than the head (or as heavy with the
   * smaller ticket), the head change; the caller's transaction holds these writes. The head in
   * memory moves only once they are committed (`#moveHead`).
   */
  #indexTipSet(tipSet: TipSet): HeadMove | undefined {
    const weight = this.#recordTipSet(tipSet);
    const heavier = weight > this.#headWeight || (weight === this.#headWeight && winsWeightTie(tipSet, this.#head));
    if (!heavier) return undefined;
    const change = headChangePath(this.#head, tipSet, (key) => this.loadTipSet(key));
    const firstApplied = change.apply[0];
    const ancestorHeight = firstApplied === undefined ? tipSet.height : this.loadTipSet(firstApplied.parents).height;
    const inclusions = change.apply.map((applied) => ({
      tipSet: applied,
      messages: applied.blocks.flatMap((header) => {
        const { bls, secp } = blockMessageCids(this.blockstore, header);
        return [...bls, ...secp];
      }),
    }));
    for (const reverted of change.revert) this.#index.deleteMessageInclusions(reverted.key);
    this.#index.truncateCanonical(ancestorHeight);
    for (const { tipSet: applied, messages } of inclusions) {
      this.#index.setCanonical(applied.height, applied.key);
      this.#index.putMessageInclusions(applied.key, applied.height, messages);
    }
    this.#index.setMeta(HEAD, tipSet.key.bytes);
    return { tipSet, weight, change };
  }

  /** Writes a tipset's index row; returns its weight. */
  #recordTipSet(tipSet: TipSet): bigint {
    const weight = this.weightOf(tipSet);
    this.#index.putTipSet({ key: tipSet.key, height: tipSet.height, parents: tipSet.parents, weight });
    return weight;
  }

  /**
   * `own` joined by the blocks of accepted tipsets at its height on the same parents, skipping a
   * second block of a miner already in (Lotus `expandTipset`); `own` itself when there are none.
   */
  #expand(own: TipSet): TipSet {
    const headers = new Map(own.cids.map((cid, i) => [cid.toString(), own.blocks[i]!]));
    const miners = new Set(own.blocks.map((header) => header.miner.toString()));
    for (const known of this.tipSetsAt(own.height)) {
      if (!known.parents.equals(own.parents)) continue;
      known.blocks.forEach((header, i) => {
        const cid = known.cids[i]!.toString();
        if (headers.has(cid) || miners.has(header.miner.toString())) return;
        headers.set(cid, header);
        miners.add(header.miner.toString());
      });
    }
    return headers.size === own.blocks.length ? own : TipSet.fromHeaders([...headers.values()]);
  }

  /** Makes a committed head change the head in memory and tells the subscribers. */
  #moveHead(move: HeadMove | undefined): boolean {
    if (move === undefined) return false;
    this.#head = move.tipSet;
    this.#headWeight = move.weight;
    this.#notify(move.change);
    return true;
  }

  #notify(change: HeadChange): void {
    const listeners = [...this.#listeners];
    this.#notifications = this.#notifications.then(async () => {
      for (const listener of listeners) {
        try {
          await listener(change);
        } catch (error) {
          this.#logger?.error({ err: error }, 'a head change subscriber failed');
        }
      }
    });
  }
}

function decodeCid(bytes: Uint8Array): CID {
  return CID.decode(bytes);
}

function loadTipSetFrom(store: Blockstore, key: TipSetKey): TipSet {
  if (key.isEmpty) throw new ChainError(ChainErrorCode.NotFound, 'cannot load the tipset of an empty key');
  const headers = key.cids.map((cid) => {
    const bytes = store.get(cid);
    if (bytes === undefined) throw new ChainError(ChainErrorCode.NotFound, `get block ${cid}: block not found`);
    return decodeBlockHeader(bytes);
  });
  return TipSet.fromHeaders(headers);
}
