/**
 * The message pool (filecoin-project/lotus `chain/messagepool`): admits signed messages against the
 * current head's state, keeps them per sender by nonce with replace-by-fee, prunes when it grows
 * past its high-water mark, persists local messages, follows head changes (included messages leave,
 * reverted ones come back), selects messages for blocks and hands local messages to whoever
 * publishes them (gossip) on a timer.
 *
 * Admission is fast on purpose: stateless checks, then the (batched, cached) signature check, then
 * every stateful check synchronously against one cached view of the head — no await between the
 * checks and the insert, so a head change cannot interleave. A local push answers only once its
 * message is committed to SQLite (group commit: the pushes of one event-loop turn share one
 * transaction and answer together); if that commit fails they are taken out of the pool again and
 * answer an error, and nothing is published before the commit.
 */

import type { CID } from 'multiformats/cid';
import type { Logger } from 'pino';
import { isValidForSending } from '../consensus/index.js';
import type { MpoolStore } from '../db/mpool-store.js';
import type { NetworkParams } from '../params/index.js';
import { actorNameOf, byteKey } from '../state/index.js';
import {
  type Actor,
  type Address,
  decodeSignedMessage,
  type Message,
  SignatureType,
  type SignedMessage,
  type TipSet,
} from '../types/index.js';
import { LruCache } from '../utils/lru-cache.js';
import { blsChainMessage, signedMessageBytes } from '../vm/index.js';
import type { HeadChange, MpoolChain } from './chain.js';
import {
  DEFAULT_MPOOL_CONFIG,
  type MpoolConfig,
  mpoolConfigFromLotusJson,
  mpoolConfigToLotusJson,
  validateMpoolConfig,
} from './config.js';
import { MpoolError, MpoolErrorCode } from './errors.js';
import { MessageSet } from './message-set.js';
import { inclusionGas, type PendingMessage, pendingMessage } from './pending-message.js';
import { messagesToPrune } from './pruning.js';
import { messagesToRepublish, REPUBLISH_BATCH_DELAY_MS, republishIntervalMs } from './republish.js';
import { type SenderMessages, selectMessages } from './selection.js';
import { SignatureVerifier } from './signature-verifier.js';
import { KeyAddressCache, TipSetView } from './tipset-view.js';
import { blockInclusionProblem } from './validation.js';

/** Lotus MaxMessageSize: the whole SignedMessage CBOR. */
export const MAX_MESSAGE_SIZE = 64 << 10;
/** Admission's base-fee sanity bound divides the base fee by this (baseFeeLowerBoundFactorConservative). */
const ADMISSION_BASE_FEE_FACTOR = 100n;
/** Pruning and republishing rank as if the base fee fell to a tenth (baseFeeLowerBoundFactor). */
const BASE_FEE_LOWER_BOUND_FACTOR = 10n;
/** BLS signatures kept so reverted BLS messages can be re-added (Lotus blsSigCache). */
const BLS_SIGNATURE_CACHE_SIZE = 40_000;
/**
 * A batch of persistence writes commits on the next event-loop turn (every push admitted meanwhile
 * joins it), or at once when it holds this many writes. The pushes wait for their commit, so a
 * longer delay would only add latency; one transaction per batch keeps the commit cost shared.
 */
const PERSIST_BATCH_MAX = 1024;

export interface MessagePoolOptions {
  readonly chain: MpoolChain;
  readonly params: NetworkParams;
  /** Persistence of local messages and the config; none keeps everything in memory. */
  readonly store?: MpoolStore | undefined;
  /** Runs the persistence writes of one batch together (the database's transaction). */
  readonly transaction?: (<T>(fn: () => T) => T) | undefined;
  readonly logger?: Logger | undefined;
  /** Shuffles leftover chains in optimal selection; Math.random by default. */
  readonly random?: (() => number) | undefined;
  /** Milliseconds; Date.now by default (prune cooldown). */
  readonly now?: (() => number) | undefined;
  /** Republish local messages on Lotus's interval (default true; tests turn the timer off). */
  readonly republishTimer?: boolean | undefined;
}

/** How a message entered: Lotus Push (local), Add (network, strict), PushUntrusted (gateway). */
export interface AdmissionKind {
  readonly local: boolean;
  readonly untrusted: boolean;
}

export const LOCAL: AdmissionKind = { local: true, untrusted: false };
export const NETWORK: AdmissionKind = { local: false, untrusted: false };
export const UNTRUSTED: AdmissionKind = { local: true, untrusted: true };

export type PublishListener = (message: SignedMessage) => void;

/** Lotus `MpoolUpdate` types (filecoin-project/lotus `api/api_full.go`): a message joined or left the pool. */
export const MpoolUpdateType = { Add: 0, Remove: 1 } as const;
export type MpoolUpdateType = (typeof MpoolUpdateType)[keyof typeof MpoolUpdateType];

/** What MpoolSub reports: a message that joined the pool (any sender, not only local) or left it. */
export interface MpoolUpdate {
  readonly type: MpoolUpdateType;
  readonly message: SignedMessage;
}

export type UpdateListener = (update: MpoolUpdate) => void;

/** A write made in the same transaction as a pushed message's row (MpoolPushMessage's nonce record). */
export type AlongsideWrite = () => void;

/** What admission changed in the pool, so a failed commit can take it back. */
interface Admission {
  readonly pending: PendingMessage;
  readonly senderKey: string;
  readonly publishable: boolean;
  /** The message this one replaced (replace-by-fee), and whether that one was local. */
  readonly replaced: PendingMessage | undefined;
  readonly replacedWasLocal: boolean;
  /** The sender became local with this message. */
  readonly newLocalSender: boolean;
}

type PersistOp =
  | { readonly kind: 'put'; readonly cid: Uint8Array; readonly bytes: Uint8Array }
  | { readonly kind: 'delete'; readonly cid: Uint8Array }
  | { readonly kind: 'write'; readonly write: AlongsideWrite };

/** The writes of one transaction and the local admissions waiting for it to commit. */
class PersistBatch {
  readonly ops: PersistOp[] = [];
  readonly admissions: Admission[] = [];
  readonly committed: Promise<void>;
  resolve: () => void = () => undefined;
  reject: (error: Error) => void = () => undefined;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A batch of deletions only has nobody waiting; its failure is logged, not unhandled.
    this.committed.catch(() => undefined);
  }
}

interface SenderEntry {
  readonly sender: Address;
  readonly set: MessageSet;
}

function maxBigInt(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export class MessagePool {
  readonly params: NetworkParams;
  readonly #chain: MpoolChain;
  readonly #store: MpoolStore | undefined;
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #logger: Logger | undefined;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #verifier: SignatureVerifier;
  readonly #keys = new KeyAddressCache();
  readonly #pending = new Map<string, SenderEntry>();
  /** Senders that ever pushed a local message: never pruned, republished. */
  readonly #localSenders = new Set<string>();
  /** CID keys of pooled local messages. */
  readonly #localMessages = new Set<string>();
  readonly #blsSignatures = new LruCache<string, SignedMessage>(BLS_SIGNATURE_CACHE_SIZE);
  readonly #publishListeners = new Set<PublishListener>();
  readonly #updateListeners = new Set<UpdateListener>();
  #config: MpoolConfig;
  #view: TipSetView;
  #count = 0;
  #lastPrune = Number.NEGATIVE_INFINITY;
  #pruneScheduled = false;
  #batch: PersistBatch | undefined;
  #flushScheduled: NodeJS.Immediate | undefined;
  /** Keys of the messages published last, for the early republish when one is included. */
  #republished = new Set<string>();
  #republishTimer: NodeJS.Timeout | undefined;
  #headChanges: Promise<void> = Promise.resolve();
  #unsubscribe: (() => void) | undefined;
  #closed = false;

  private constructor(options: MessagePoolOptions, config: MpoolConfig, view: TipSetView) {
    this.params = options.params;
    this.#verifier = new SignatureVerifier(options.params.eip155ChainId);
    this.#chain = options.chain;
    this.#store = options.store;
    this.#transaction = options.transaction ?? ((fn) => fn());
    this.#logger = options.logger;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
    this.#config = config;
    this.#view = view;
  }

  /** Opens the pool on the chain's head: loads the config, restores local messages, follows the head. */
  static async open(options: MessagePoolOptions): Promise<MessagePool> {
    const stored = options.store?.config();
    let config = DEFAULT_MPOOL_CONFIG;
    if (stored !== undefined) {
      try {
        config = mpoolConfigFromLotusJson(JSON.parse(stored));
      } catch (error) {
        options.logger?.warn({ err: error }, 'ignoring the stored mpool config');
      }
    }
    const keys = new KeyAddressCache();
    const view = await TipSetView.load(options.chain, options.chain.head(), options.params, keys);
    const pool = new MessagePool(options, config, view);
    await pool.#restoreLocal();
    pool.#unsubscribe = options.chain.subscribeHeadChanges((change) => pool.#onHeadChange(change));
    if (options.republishTimer !== false) {
      pool.#republishTimer = setInterval(() => pool.republish(), republishIntervalMs(options.params));
      pool.#republishTimer.unref();
    }
    return pool;
  }

  /** Stops following the chain and writes what is still queued. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    if (this.#republishTimer !== undefined) clearInterval(this.#republishTimer);
    await this.#headChanges;
    this.#flushPersistence();
  }

  // ---- config ----

  get config(): MpoolConfig {
    return this.#config;
  }

  setConfig(config: MpoolConfig): void {
    validateMpoolConfig(config);
    this.#config = config;
    this.#store?.saveConfig(
      JSON.stringify(mpoolConfigToLotusJson(config), (_, v) => (typeof v === 'bigint' ? Number(v) : v)),
    );
  }

  // ---- admission ----

  /**
   * Lotus `Push`: a local message (MpoolPush). Resolves to its chain CID once the message is
   * committed to the database, together with `alongside`'s writes (same transaction).
   */
  push(signed: SignedMessage, alongside?: AlongsideWrite): Promise<CID> {
    return this.#admit(signed, LOCAL, alongside);
  }

  /**
   * Lotus `PushUntrusted`: a gateway's message: at most 100 pending per sender and no nonce gap.
   * Committed before it resolves, as `push`.
   */
  pushUntrusted(signed: SignedMessage): Promise<CID> {
    return this.#admit(signed, UNTRUSTED);
  }

  /** Lotus `Add`: a message from the network; nonce gaps are limited. */
  add(signed: SignedMessage): Promise<CID> {
    return this.#admit(signed, NETWORK);
  }

  async #admit(
    signed: SignedMessage,
    kind: AdmissionKind,
    alongside?: AlongsideWrite,
    restoring = false,
  ): Promise<CID> {
    if (this.#closed) throw new MpoolError(MpoolErrorCode.Closed, 'the message pool is closed');
    const pending = this.#checkStateless(signed);
    await this.#verifier.verify(signed);
    if (this.#closed) throw new MpoolError(MpoolErrorCode.Closed, 'the message pool is closed');
    if (signed.signature.type === SignatureType.BLS) this.#blsSignatures.set(pending.key, signed);
    const admission = this.#addChecked(pending, kind);
    if (kind.local && !restoring) {
      const committed = this.#persistAdmission(admission, alongside);
      if (committed !== undefined) await committed;
    }
    if (kind.local && admission.publishable) this.#publish(signed);
    return pending.cid;
  }

  /** Lotus `checkMessage` before the signature: size, syntax, value, minimum fee cap. */
  #checkStateless(signed: SignedMessage): PendingMessage {
    const message = signed.message;
    let pending: PendingMessage;
    try {
      pending = pendingMessage(signed);
    } catch (error) {
      throw new MpoolError(MpoolErrorCode.InvalidMessage, `message could not be encoded: ${(error as Error).message}`);
    }
    const size = signed.signature.type === SignatureType.BLS ? signedMessageBytes(signed).length : pending.chainLength;
    if (size > MAX_MESSAGE_SIZE) {
      throw new MpoolError(
        MpoolErrorCode.MessageTooBig,
        `mpool message too large (${size}B): message too big (maximum ${MAX_MESSAGE_SIZE} bytes)`,
      );
    }
    if (message.value > this.params.totalFilecoin) {
      throw new MpoolError(
        MpoolErrorCode.ValueTooHigh,
        `'Value' field cannot be greater than total filecoin supply: cannot send more filecoin than will ever exist (${message.value} attoFIL)`,
      );
    }
    const problem = blockInclusionProblem(message, 0n, this.params);
    if (problem !== undefined) {
      throw new MpoolError(MpoolErrorCode.InvalidMessage, `message not valid for block inclusion: ${problem}`);
    }
    if (message.gasFeeCap < this.params.minimumBaseFee) {
      throw new MpoolError(
        MpoolErrorCode.GasFeeCapTooLow,
        `gas fee cap too low: GasFeeCap ${message.gasFeeCap} is below the minimum base fee ${this.params.minimumBaseFee}`,
      );
    }
    return pending;
  }

  /**
   * Lotus `addTs` against the current view, synchronously. Says whether the message may be
   * published now (not when its fee cap is below the base-fee sanity bound) and what it changed.
   */
  #addChecked(pending: PendingMessage, kind: AdmissionKind): Admission {
    const view = this.#view;
    const message = pending.signed.message;
    const sender = this.#senderKey(view, message.from);
    const stateNonce = view.stateNonce(message.from);
    if (message.nonce < stateNonce) {
      throw new MpoolError(
        MpoolErrorCode.NonceTooLow,
        `minimum expected nonce is ${stateNonce}: message nonce too low (message ${pending.cid} has nonce ${message.nonce})`,
      );
    }
    const actor = view.actorAfter(message.from);
    if (actor === undefined || !isValidForSending(actor)) {
      throw new MpoolError(
        MpoolErrorCode.InvalidSender,
        `sender ${message.from} is not a valid top-level sender (${actor === undefined ? 'no such actor' : `actor type ${actorNameOf(actor.code) ?? actor.code.toString()}`})`,
      );
    }
    const minGas = inclusionGas(pending.chainLength);
    const problem = blockInclusionProblem(message, minGas, this.params);
    if (problem !== undefined) {
      throw new MpoolError(MpoolErrorCode.InvalidMessage, `message will not be included in a block: ${problem}`);
    }
    const publishable = message.gasFeeCap >= this.#admissionFeeBound(view);
    if (!publishable && !kind.local) {
      throw new MpoolError(
        MpoolErrorCode.SoftValidation,
        `GasFeeCap doesn't meet base fee lower bound for inclusion in the next 20 blocks (GasFeeCap: ${message.gasFeeCap}, baseFeeLowerBound: ${this.#admissionFeeBound(view)}): validation failure`,
      );
    }

    let entry = this.#pending.get(sender.key);
    const required = pending.requiredFunds;
    if (actor.balance < required) {
      throw new MpoolError(
        MpoolErrorCode.NotEnoughFunds,
        `not enough funds (required: ${required}, balance: ${actor.balance}): not enough funds`,
      );
    }
    const withPending = required + (entry?.set.requiredFundsExcept(message.nonce) ?? 0n);
    if (actor.balance < withPending) {
      throw new MpoolError(
        MpoolErrorCode.SoftValidation,
        `not enough funds including pending messages (required: ${withPending}, balance: ${actor.balance}): validation failure`,
      );
    }

    if (entry === undefined) {
      entry = { sender: sender.address, set: new MessageSet(stateNonce) };
      this.#pending.set(sender.key, entry);
    }
    let replaced: PendingMessage | undefined;
    try {
      // Untrusted pushes get the strict gap rule with no gap allowed: Lotus documents PushUntrusted
      // as "no nonce gaps" and sets maxNonceGap to 0 for it, but passes strict = !local = false, so
      // its check never runs (filecoin-project/lotus chain/messagepool/messagepool.go, PushUntrusted
      // and msgSet.add). We enforce the documented rule.
      replaced = entry.set.add(pending, { strict: !kind.local || kind.untrusted, untrusted: kind.untrusted });
    } catch (error) {
      if (entry.set.messages.size === 0) this.#pending.delete(sender.key);
      throw error;
    }
    let replacedWasLocal = false;
    if (replaced === undefined) this.#count++;
    else replacedWasLocal = this.#forgetLocal(replaced);
    let newLocalSender = false;
    if (kind.local) {
      newLocalSender = !this.#localSenders.has(sender.key);
      this.#localSenders.add(sender.key);
      this.#localMessages.add(pending.key);
    }
    this.#announce(MpoolUpdateType.Add, pending.signed);
    this.#maybePrune();
    return { pending, senderKey: sender.key, publishable, replaced, replacedWasLocal, newLocalSender };
  }

  #senderKey(view: TipSetView, from: Address): { address: Address; key: string } {
    let address: Address;
    try {
      address = view.resolveToKey(from);
    } catch (error) {
      throw new MpoolError(
        MpoolErrorCode.InvalidSender,
        `failed to resolve the sender ${from} to a key address: ${(error as Error).message}`,
      );
    }
    return { address, key: byteKey(address.bytes) };
  }

  #admissionFeeBound(view: TipSetView): bigint {
    return maxBigInt(view.tipSet.parentBaseFee / ADMISSION_BASE_FEE_FACTOR, this.params.minimumBaseFee);
  }

  #baseFeeLowerBound(baseFee: bigint): bigint {
    return maxBigInt(baseFee / BASE_FEE_LOWER_BOUND_FACTOR, this.params.minimumBaseFee);
  }

  // ---- queries ----

  /** The number of pooled messages. */
  get size(): number {
    return this.#count;
  }

  /** The tipset the pool judges messages against (Lotus curTs). */
  get head(): TipSet {
    return this.#view.tipSet;
  }

  /** The base fee the next block will pay (per the pool's head). */
  get nextBaseFee(): bigint {
    return this.#view.nextBaseFee;
  }

  /** Every pooled message, by sender then nonce (Lotus `Pending`). */
  pending(): SignedMessage[] {
    const out: SignedMessage[] = [];
    for (const { set } of this.#pending.values()) for (const message of set.sorted()) out.push(message.signed);
    return out;
  }

  /** Pooled local messages. */
  pendingLocal(): SignedMessage[] {
    return this.pending().filter((signed) => this.#localMessages.has(pendingMessage(signed).key));
  }

  /** A sender's pooled messages in nonce order (Lotus `PendingFor`). */
  pendingFor(address: Address): SignedMessage[] {
    let key: string;
    try {
      key = byteKey(this.#view.resolveToKey(address).bytes);
    } catch {
      return [];
    }
    return (
      this.#pending
        .get(key)
        ?.set.sorted()
        .map((message) => message.signed) ?? []
    );
  }

  /**
   * A sender's pooled messages (Lotus `getPendingMset`): the next nonce after its run, the fee
   * funds (`gasFeeCap × gasLimit`) they reserve, and the messages in nonce order; undefined when
   * it has none.
   */
  pendingSet(address: Address): { nextNonce: bigint; requiredFunds: bigint; messages: SignedMessage[] } | undefined {
    let key: string;
    try {
      key = byteKey(this.#view.resolveToKey(address).bytes);
    } catch {
      return undefined;
    }
    const set = this.#pending.get(key)?.set;
    if (set === undefined) return undefined;
    return {
      nextNonce: set.nextNonce,
      requiredFunds: set.requiredFunds,
      messages: set.sorted().map((message) => message.signed),
    };
  }

  /** Lotus `GetNonce`: max(state nonce, next nonce after the sender's pooled run). */
  getNonce(address: Address): bigint {
    const view = this.#view;
    const { key } = this.#senderKey(view, address);
    const stateNonce = view.stateNonce(address);
    const entry = this.#pending.get(key);
    return entry === undefined ? stateNonce : maxBigInt(stateNonce, entry.set.nextNonce);
  }

  /** The key address of `address` (ID addresses resolved in the state after the pool's head). */
  resolveToKey(address: Address): Address {
    return this.#view.resolveToKey(address);
  }

  /** The sender actor after the pool's head, or undefined. */
  actorAfterHead(address: Address): Actor | undefined {
    return this.#view.actorAfter(address);
  }

  /** Calls `listener` with each local message to publish (gossip); returns the unsubscribe function. */
  onPublish(listener: PublishListener): () => void {
    this.#publishListeners.add(listener);
    return () => this.#publishListeners.delete(listener);
  }

  // ---- selection ----

  /** BlockMessageSource for the mining loop. */
  async selectMessages(base: TipSet, ticketQuality: number): Promise<SignedMessage[]> {
    return (await this.select(base, ticketQuality)) ?? [];
  }

  /** Lotus `SelectMessages` (MpoolSelect): null when nothing is pending, else the chosen messages (maybe none). */
  async select(base: TipSet, ticketQuality: number): Promise<SignedMessage[] | null> {
    await this.#headChanges;
    if (this.#count > this.#config.sizeLimitHigh) this.prune();
    const view = base.key.equals(this.#view.tipSet.key)
      ? this.#view
      : await TipSetView.load(this.#chain, base, this.params, this.#keys);
    const priority: string[] = [];
    for (const address of this.#config.priorityAddrs) {
      try {
        priority.push(byteKey(view.resolveToKey(address).bytes));
      } catch {
        // A priority address without an actor has nothing to select.
      }
    }
    // A block carries only committed messages: a push whose commit failed must not be mined.
    this.#flushPersistence();
    return selectMessages({
      pending: this.#snapshot(),
      actorOf: (sender) => view.actorAfter(sender),
      baseFee: view.nextBaseFee,
      params: this.params,
      priority,
      ticketQuality,
      random: this.#random,
    });
  }

  #snapshot(filter?: (key: string) => boolean): Map<string, SenderMessages> {
    const snapshot = new Map<string, SenderMessages>();
    for (const [key, { sender, set }] of this.#pending) {
      if (filter !== undefined && !filter(key)) continue;
      snapshot.set(key, { sender, messages: [...set.messages.values()] });
    }
    return snapshot;
  }

  // ---- pruning ----

  #maybePrune(): void {
    if (this.#count <= this.#config.sizeLimitHigh || this.#pruneScheduled) return;
    const cooldownMs = Number(this.#config.pruneCooldownNs / 1_000_000n);
    if (this.#now() - this.#lastPrune < cooldownMs) return;
    this.#pruneScheduled = true;
    // Off the admission path: a burst of pushes pays for one prune, not one each.
    setImmediate(() => {
      this.#pruneScheduled = false;
      if (!this.#closed) this.prune();
    });
  }

  /** Prunes down to the low-water mark now (Lotus `pruneMessages`); returns how many went. */
  prune(): number {
    this.#lastPrune = this.#now();
    if (this.#count <= this.#config.sizeLimitHigh) return 0;
    const protectedSenders = new Set(this.#localSenders);
    for (const address of this.#config.priorityAddrs) {
      try {
        protectedSenders.add(byteKey(this.#view.resolveToKey(address).bytes));
      } catch {
        // Unknown priority address: nothing of it is pooled.
      }
    }
    const view = this.#view;
    const doomed = messagesToPrune({
      pending: this.#snapshot(),
      protectedSenders,
      actorOf: (sender) => view.actorAfter(sender),
      baseFeeLowerBound: this.#baseFeeLowerBound(view.nextBaseFee),
      params: this.params,
      sizeLimitLow: this.#config.sizeLimitLow,
    });
    for (const message of doomed) this.#remove(message.signed.message.from, message.signed.message.nonce, false);
    this.#logger?.debug({ pruned: doomed.length, left: this.#count }, 'mpool pruned');
    return doomed.length;
  }

  /**
   * Lotus `Clear` (MpoolClear): drops every message of the senders that are not local, or with
   * `local` every message, local ones included, and their stored rows. Returns how many went.
   */
  clear(local: boolean): number {
    let removed = 0;
    for (const [key, { sender, set }] of [...this.#pending]) {
      if (!local && this.#localSenders.has(key)) continue;
      for (const message of set.sorted()) {
        this.#remove(sender, message.signed.message.nonce, false);
        removed++;
      }
    }
    if (local) this.#republished = new Set();
    return removed;
  }

  /** Removes the sender's message at `nonce`; `applied`: included in a tipset. */
  #remove(from: Address, nonce: bigint, applied: boolean): void {
    let key: string;
    try {
      key = byteKey(this.#view.resolveToKey(from).bytes);
    } catch {
      return;
    }
    const entry = this.#pending.get(key);
    if (entry === undefined) return;
    const removed = entry.set.remove(nonce, applied);
    if (removed !== undefined) {
      this.#count--;
      this.#forgetLocal(removed);
      this.#announce(MpoolUpdateType.Remove, removed.signed);
    }
    if (entry.set.messages.size === 0) this.#pending.delete(key);
  }

  /** Drops a local message's row (if it was local); returns whether it was. */
  #forgetLocal(message: PendingMessage): boolean {
    if (!this.#localMessages.delete(message.key)) return false;
    this.#persist(false, message);
    return true;
  }

  // ---- persistence ----

  /**
   * Group commit. Durability: the database runs WAL with synchronous=NORMAL (src/db/database.ts),
   * so a committed transaction is in the WAL file (the OS page cache) before COMMIT returns: it
   * survives a kill -9 of the node, not a power loss or an OS crash (SQLite, "PRAGMA synchronous",
   * https://www.sqlite.org/pragma.html#pragma_synchronous). That is the guarantee an answered push carries.
   */
  #openBatch(): PersistBatch {
    if (this.#batch === undefined) {
      this.#batch = new PersistBatch();
      this.#flushScheduled = setImmediate(() => this.#flushPersistence());
    }
    return this.#batch;
  }

  /** Queues a local admission's row (and `alongside`); resolves when they are committed. */
  #persistAdmission(admission: Admission, alongside: AlongsideWrite | undefined): Promise<void> | undefined {
    if (this.#store === undefined && alongside === undefined) return undefined;
    const batch = this.#openBatch();
    const { pending } = admission;
    if (this.#store !== undefined) {
      batch.ops.push({ kind: 'put', cid: pending.cid.bytes, bytes: signedMessageBytes(pending.signed) });
    }
    if (alongside !== undefined) batch.ops.push({ kind: 'write', write: alongside });
    batch.admissions.push(admission);
    const committed = batch.committed;
    if (batch.ops.length >= PERSIST_BATCH_MAX) this.#flushPersistence();
    return committed;
  }

  /** Queues a row write nobody waits for (a removal, a reverted local message coming back). */
  #persist(put: boolean, message: PendingMessage): void {
    if (this.#store === undefined) return;
    const batch = this.#openBatch();
    batch.ops.push(
      put
        ? { kind: 'put', cid: message.cid.bytes, bytes: signedMessageBytes(message.signed) }
        : { kind: 'delete', cid: message.cid.bytes },
    );
    if (batch.ops.length >= PERSIST_BATCH_MAX) this.#flushPersistence();
  }

  /**
   * Commits the open batch in one transaction and answers its pushes. If the commit fails, its
   * pushes are taken out of the pool again and all of them get the error: an error answer means
   * nothing changed. Rows it would have deleted stay (a restart drops those already mined).
   */
  #flushPersistence(): void {
    if (this.#flushScheduled !== undefined) clearImmediate(this.#flushScheduled);
    this.#flushScheduled = undefined;
    const batch = this.#batch;
    this.#batch = undefined;
    if (batch === undefined) return;
    const store = this.#store;
    try {
      this.#transaction(() => {
        for (const op of batch.ops) {
          if (op.kind === 'write') op.write();
          else if (op.kind === 'put') store?.putLocalMessage(op.cid, op.bytes);
          else store?.deleteLocalMessage(op.cid);
        }
      });
    } catch (error) {
      this.#logger?.error(
        { err: error, messages: batch.admissions.length },
        'failed to persist local mpool messages; their pushes are refused',
      );
      this.#undoAdmissions(batch.admissions);
      batch.reject(
        new MpoolError(MpoolErrorCode.Persist, `error persisting local message: ${(error as Error).message}`, {
          cause: error,
        }),
      );
      return;
    }
    batch.resolve();
  }

  /** Takes back the admissions of a batch that did not commit, newest first, so the pool is as before them. */
  #undoAdmissions(admissions: readonly Admission[]): void {
    for (let i = admissions.length - 1; i >= 0; i--) {
      const { pending, senderKey, replaced, replacedWasLocal, newLocalSender } = admissions[i] as Admission;
      if (newLocalSender) this.#localSenders.delete(senderKey);
      const entry = this.#pending.get(senderKey);
      const nonce = pending.signed.message.nonce;
      // Gone already (mined meanwhile): nothing of it to take back.
      if (entry === undefined || entry.set.messages.get(nonce)?.key !== pending.key) continue;
      entry.set.remove(nonce, false);
      this.#localMessages.delete(pending.key);
      this.#announce(MpoolUpdateType.Remove, pending.signed);
      if (replaced === undefined) {
        this.#count--;
        if (entry.set.messages.size === 0) this.#pending.delete(senderKey);
      } else {
        // Its slot is free again, so the message it replaced goes back without a rule to refuse it.
        entry.set.add(replaced, { strict: false, untrusted: false });
        if (replacedWasLocal) this.#localMessages.add(replaced.key);
      }
    }
  }

  /** Lotus `loadLocal`: re-admits every stored local message; those already mined are dropped. */
  async #restoreLocal(): Promise<void> {
    const store = this.#store;
    if (store === undefined) return;
    const stored = store.localMessages();
    for (const bytes of stored) {
      let signed: SignedMessage;
      try {
        signed = decodeSignedMessage(bytes);
      } catch (error) {
        this.#logger?.warn({ err: error }, 'dropping an undecodable stored local message');
        continue;
      }
      try {
        // Its row is stored already: nothing to write or wait for.
        await this.#admit(signed, LOCAL, undefined, true);
      } catch (error) {
        const code = (error as MpoolError).code;
        if (code === MpoolErrorCode.NonceTooLow) {
          store.deleteLocalMessage(pendingMessage(signed).cid.bytes);
        } else if (code !== MpoolErrorCode.ExistingNonce) {
          this.#logger?.warn({ err: error }, 'could not restore a local message');
        }
      }
    }
    this.#flushPersistence();
    if (stored.length > 0)
      this.#logger?.info({ stored: stored.length, pending: this.#count }, 'local messages restored');
  }

  // ---- head changes ----

  #onHeadChange(change: HeadChange): Promise<void> {
    const run = this.#headChanges.then(() => this.#applyHeadChange(change));
    this.#headChanges = run.catch((error) => {
      this.#logger?.error({ err: error }, 'mpool head change failed');
    });
    return this.#headChanges;
  }

  async #applyHeadChange(change: HeadChange): Promise<void> {
    if (this.#closed) return;
    const newHead = change.apply.at(-1) ?? this.#chain.loadTipSet((change.revert.at(-1) as TipSet).parents);
    const view = await TipSetView.load(this.#chain, newHead, this.params, this.#keys);

    // Reverted messages are candidates to come back, unless an applied tipset includes them too.
    const candidates = new Map<string, SignedMessage>();
    for (const tipSet of change.revert) {
      for (const block of tipSet.blocks) {
        const { blsMessages, secpMessages } = this.#chain.messagesForBlock(block);
        for (const signed of secpMessages) candidates.set(pendingMessage(signed).key, signed);
        for (const message of blsMessages) {
          const key = byteKey(blsChainMessage(message).cid.bytes);
          const signed = this.#blsSignatures.get(key);
          if (signed !== undefined) candidates.set(key, signed);
        }
      }
    }
    this.#view = view;
    let republishNow = false;
    for (const tipSet of change.apply) {
      for (const block of tipSet.blocks) {
        const { blsMessages, secpMessages } = this.#chain.messagesForBlock(block);
        const messages: Message[] = [...blsMessages, ...secpMessages.map((signed) => signed.message)];
        for (const signed of secpMessages) {
          const key = pendingMessage(signed).key;
          candidates.delete(key);
          if (this.#republished.has(key)) republishNow = true;
        }
        for (const message of blsMessages) {
          const key = byteKey(blsChainMessage(message).cid.bytes);
          candidates.delete(key);
          if (this.#republished.has(key)) republishNow = true;
        }
        for (const message of messages) this.#remove(message.from, message.nonce, true);
      }
    }
    for (const signed of candidates.values()) this.#addSkipChecks(signed);
    if (republishNow) this.republish();
  }

  /** Lotus `addSkipChecks`: a reverted message goes back without validation. */
  #addSkipChecks(signed: SignedMessage): void {
    const pending = pendingMessage(signed);
    let sender: { address: Address; key: string };
    try {
      sender = this.#senderKey(this.#view, signed.message.from);
    } catch {
      return;
    }
    let entry = this.#pending.get(sender.key);
    if (entry === undefined) {
      let stateNonce: bigint;
      try {
        stateNonce = this.#view.stateNonce(signed.message.from);
      } catch {
        return;
      }
      entry = { sender: sender.address, set: new MessageSet(stateNonce) };
      this.#pending.set(sender.key, entry);
    }
    try {
      const replaced = entry.set.add(pending, { strict: false, untrusted: false });
      if (replaced === undefined) this.#count++;
      this.#announce(MpoolUpdateType.Add, signed);
    } catch (error) {
      this.#logger?.debug({ err: error, cid: pending.cid.toString() }, 'a reverted message was not re-added');
      if (entry.set.messages.size === 0) this.#pending.delete(sender.key);
      return;
    }
    if (this.#localSenders.has(sender.key)) {
      this.#localMessages.add(pending.key);
      this.#persist(true, pending);
    }
  }

  // ---- publishing ----

  /**
   * Calls `listener` with every message that joins the pool (Lotus publishes each add, replacements
   * and re-added reverted messages included) or leaves it; returns the unsubscribe function.
   */
  onUpdate(listener: UpdateListener): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  #announce(type: MpoolUpdateType, message: SignedMessage): void {
    if (this.#updateListeners.size === 0) return;
    for (const listener of [...this.#updateListeners]) {
      try {
        listener({ type, message });
      } catch (error) {
        this.#logger?.warn({ err: error }, 'an mpool update listener failed');
      }
    }
  }

  #publish(signed: SignedMessage): void {
    for (const listener of this.#publishListeners) {
      try {
        listener(signed);
      } catch (error) {
        this.#logger?.warn({ err: error }, 'a publish listener failed');
      }
    }
  }

  /**
   * Lotus `republishPendingMessages`: publishes the best local messages again, 100 ms apart.
   * Returns the messages chosen.
   */
  republish(): SignedMessage[] {
    if (this.#closed || this.#publishListeners.size === 0) return [];
    // Only committed messages go out: a push whose commit failed must not be broadcast.
    this.#flushPersistence();
    const view = this.#view;
    const selected = messagesToRepublish({
      pending: this.#snapshot((key) => this.#localSenders.has(key)).values(),
      actorOf: (sender) => view.actorAfter(sender),
      baseFee: view.nextBaseFee,
      baseFeeLowerBound: this.#baseFeeLowerBound(view.nextBaseFee),
      params: this.params,
    });
    this.#republished = new Set(selected.map((signed) => pendingMessage(signed).key));
    selected.forEach((signed, index) => {
      const timer = setTimeout(() => {
        if (!this.#closed) this.#publish(signed);
      }, index * REPUBLISH_BATCH_DELAY_MS);
      timer.unref();
    });
    return selected;
  }
}
