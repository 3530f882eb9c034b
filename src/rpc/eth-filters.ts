/**
 * What eth filters and eth_subscribe follow (filecoin-project/lotus `node/impl/eth/events.go`,
 * `subscriptions.go`, `chain/events/filter/{event,tipset,mempool,store}.go`): each head change's
 * applied tipsets (block filters take their hashes, `newHeads` the executed parent's block) and the
 * logs of the tipsets they executed (`removed` for the ones a reorg reverted), and every message
 * entering the pool (pending transaction hashes).
 *
 * Filters are polled (eth_getFilterChanges): each keeps what arrived since its last poll, at most
 * `maxResults` (the oldest are dropped); at most `maxFilters` exist, and one not polled for `ttlMs`
 * is removed — Lotus's `MaxFilters`, `MaxFilterResults` and `FilterTTL` (node/config/def.go).
 */
import { randomBytes } from 'node:crypto';
import { type ChainStore, ethBlockHash, ethTxHashOf, executedByChild, executedLogs } from '../chain/index.js';
import type { EthLogRecord } from '../db/index.js';
import type { SignedMessage, TipSet } from '../types/index.js';
import { bytesEqual } from '../utils/bytes.js';
import { JsonRpcError, JsonRpcErrorCode } from './errors.js';
import { hexData } from './eth-codecs.js';
import { type EthFilterSpec, logMatches, MAX_FILTER_RESULTS } from './eth-logs.js';

/** One thing filters and subscriptions follow. */
export type EthChainEvent =
  /** A tipset became part of the chain (the head or on the way to it). */
  | { readonly kind: 'apply'; readonly tipSet: TipSet }
  /** Logs of a tipset an applied tipset executed, or (removed) of one a reverted tipset had executed. */
  | { readonly kind: 'logs'; readonly logs: readonly EthLogRecord[]; readonly removed: boolean }
  | { readonly kind: 'pending'; readonly hash: Uint8Array };

export type EthChainListener = (event: EthChainEvent) => void;

export interface EthFilterLimits {
  readonly maxFilters: number;
  readonly maxResults: number;
  readonly ttlMs: number;
}

/** Lotus's defaults (node/config/def.go `FilterTTL`, `MaxFilters`, `MaxFilterResults`). */
export const DEFAULT_ETH_FILTER_LIMITS: EthFilterLimits = {
  maxFilters: 100,
  maxResults: MAX_FILTER_RESULTS,
  ttlMs: 60 * 60 * 1000,
};

/** A random 32-byte id as hex (Lotus `EthFilterID` / `EthSubscriptionID`: a UUID in 32 bytes). */
export function randomEthId(): string {
  return hexData(new Uint8Array(randomBytes(32)));
}

/**
 * The chain and the pool as eth events: subscribes to head changes and pool additions on `start`,
 * computes a tipset's logs only when someone wants logs.
 */
export class EthEvents {
  readonly #chain: ChainStore;
  readonly #chainId: number;
  readonly #listeners = new Set<{ listener: EthChainListener; logs: boolean }>();
  #stop: Array<() => void> = [];

  constructor(chain: ChainStore, chainId: number) {
    this.#chain = chain;
    this.#chainId = chainId;
  }

  /** `onPool` registers a listener of messages added to the pool (none without a pool). */
  start(onPool?: (added: (message: SignedMessage) => void) => () => void): void {
    this.#stop.push(
      this.#chain.subscribeHeadChanges((change) => {
        if (this.#listeners.size === 0) return;
        for (const reverted of change.revert) this.#logsOf(reverted, true);
        for (const applied of change.apply) {
          this.#emit({ kind: 'apply', tipSet: applied }, false);
          this.#logsOf(applied, false);
        }
      }),
    );
    if (onPool !== undefined) {
      this.#stop.push(
        onPool((message) => {
          if (this.#listeners.size === 0) return;
          let hash: Uint8Array;
          try {
            hash = ethTxHashOf(message, this.#chainId);
          } catch {
            // A delegated message with no Ethereum form is no Ethereum transaction.
            return;
          }
          this.#emit({ kind: 'pending', hash }, false);
        }),
      );
    }
  }

  stop(): void {
    for (const stop of this.#stop.splice(0)) stop();
    this.#listeners.clear();
  }

  /** Follows events (`logs`: whether it wants logs, which cost a tipset's receipts and events). */
  listen(listener: EthChainListener, logs: boolean): () => void {
    const entry = { listener, logs };
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }

  /** The logs of the tipset `child` executed (its parent). */
  #logsOf(child: TipSet, removed: boolean): void {
    if (child.height === 0n || ![...this.#listeners].some((entry) => entry.logs)) return;
    let logs: EthLogRecord[];
    try {
      const parent = this.#chain.loadTipSet(child.parents);
      const executed = executedByChild(this.#chain, parent, child);
      if (executed === undefined) return;
      logs = executedLogs(this.#chain.blockstore, executed, this.#chainId);
    } catch {
      // The parent's messages are not held (a snapshot's first tipset): no logs to tell.
      return;
    }
    if (logs.length > 0) this.#emit({ kind: 'logs', logs, removed }, true);
  }

  #emit(event: EthChainEvent, logs: boolean): void {
    for (const entry of [...this.#listeners]) {
      if (logs && !entry.logs) continue;
      try {
        entry.listener(event);
      } catch {
        // One listener's failure (a closed subscription) must not starve the others.
      }
    }
  }
}

/** A log as a filter collected it. */
export interface CollectedLog {
  readonly log: EthLogRecord;
  readonly removed: boolean;
}

/** An installed filter's kind and what it collects: logs, block hashes or transaction hashes. */
export type EthFilterKind = 'logs' | 'blocks' | 'pending';

interface InstalledFilter {
  readonly kind: EthFilterKind;
  readonly spec: EthFilterSpec | undefined;
  /** The lowest and highest heights whose logs it takes (logs filters; max undefined: no end). */
  readonly minHeight: bigint;
  readonly maxHeight: bigint | undefined;
  collected: Array<CollectedLog | Uint8Array>;
  lastTaken: number;
  readonly unlisten: () => void;
}

const filterNotFound = () => new JsonRpcError(JsonRpcErrorCode.CallFailed, 'filter not found');

/** The installed filters of a node (Lotus's filter managers and `MemFilterStore`). */
export class EthFilters {
  readonly #events: EthEvents;
  readonly #limits: EthFilterLimits;
  readonly #now: () => number;
  readonly #filters = new Map<string, InstalledFilter>();

  constructor(events: EthEvents, limits: EthFilterLimits = DEFAULT_ETH_FILTER_LIMITS, now: () => number = Date.now) {
    this.#events = events;
    this.#limits = limits;
    this.#now = now;
  }

  get size(): number {
    this.#expire();
    return this.#filters.size;
  }

  /**
   * Installs a filter; a logs filter starts with `initial` (the logs its range already holds, as
   * Lotus's event filter starts with the indexed ones). Throws when `maxFilters` are installed.
   */
  install(
    kind: EthFilterKind,
    options: { spec?: EthFilterSpec; minHeight?: bigint; maxHeight?: bigint; initial?: readonly EthLogRecord[] } = {},
  ): string {
    this.#expire();
    if (this.#filters.size >= this.#limits.maxFilters) {
      throw new JsonRpcError(JsonRpcErrorCode.CallFailed, 'maximum number of filters registered');
    }
    const id = randomEthId();
    const filter: InstalledFilter = {
      kind,
      spec: options.spec,
      minHeight: options.minHeight ?? 0n,
      maxHeight: options.maxHeight,
      collected: (options.initial ?? []).map((log) => ({ log, removed: false })),
      lastTaken: this.#now(),
      unlisten: this.#events.listen((event) => this.#collect(filter, event), kind === 'logs'),
    };
    this.#filters.set(id, filter);
    return id;
  }

  /**
   * What a filter collected since it was last polled (Lotus `TakeCollected…`), with its kind; with
   * `only`, a filter of another kind is refused (Lotus "wrong filter type").
   */
  take(id: string, only?: EthFilterKind): { kind: EthFilterKind; collected: Array<CollectedLog | Uint8Array> } {
    this.#expire();
    const filter = this.#filters.get(id);
    if (filter === undefined) throw filterNotFound();
    if (only !== undefined && filter.kind !== only) {
      throw new JsonRpcError(JsonRpcErrorCode.CallFailed, 'wrong filter type');
    }
    filter.lastTaken = this.#now();
    const collected = filter.collected;
    filter.collected = [];
    return { kind: filter.kind, collected };
  }

  /** Removes a filter; false when there is none by that id. */
  uninstall(id: string): boolean {
    const filter = this.#filters.get(id);
    if (filter === undefined) return false;
    filter.unlisten();
    this.#filters.delete(id);
    return true;
  }

  /** Removes every filter (the node stops). */
  clear(): void {
    for (const id of [...this.#filters.keys()]) this.uninstall(id);
  }

  #collect(filter: InstalledFilter, event: EthChainEvent): void {
    switch (filter.kind) {
      case 'blocks':
        if (event.kind === 'apply') this.#push(filter, ethBlockHash(event.tipSet));
        return;
      case 'pending':
        if (event.kind === 'pending') this.#push(filter, event.hash);
        return;
      case 'logs':
        if (event.kind !== 'logs') return;
        for (const log of event.logs) {
          if (log.blockNumber < filter.minHeight) continue;
          if (filter.maxHeight !== undefined && log.blockNumber > filter.maxHeight) continue;
          const spec = filter.spec;
          if (spec !== undefined && !logMatches(spec, log)) continue;
          if (spec?.blockHash != null && !bytesEqual(spec.blockHash, log.blockHash)) continue;
          this.#push(filter, { log, removed: event.removed });
        }
        return;
    }
  }

  #push(filter: InstalledFilter, value: CollectedLog | Uint8Array): void {
    // As Lotus's collectors: past the cap the oldest goes.
    if (filter.collected.length >= this.#limits.maxResults) filter.collected.shift();
    filter.collected.push(value);
  }

  /** Lotus's filter GC: a filter not polled within the TTL is removed (also run on each filter call). */
  expire(): void {
    this.#expire();
  }

  #expire(): void {
    const oldest = this.#now() - this.#limits.ttlMs;
    for (const [id, filter] of this.#filters) if (filter.lastTaken < oldest) this.uninstall(id);
  }
}

/**
 * The open eth_subscribe subscriptions by id, whatever connection opened them (Lotus's
 * `EthSubscriptionManager` is one map too): eth_unsubscribe ends one by its id.
 */
export class EthSubscriptions {
  readonly #sinks = new Map<string, { close(): void }>();

  /** Registers a subscription's channel until it ends (unsubscribed, or its connection closed). */
  add(id: string, sink: { close(): void; readonly signal: AbortSignal }): void {
    this.#sinks.set(id, sink);
    sink.signal.addEventListener('abort', () => this.#sinks.delete(id), { once: true });
  }

  /** Ends a subscription; false when there is none by that id. */
  remove(id: string): boolean {
    const sink = this.#sinks.get(id);
    if (sink === undefined) return false;
    this.#sinks.delete(id);
    sink.close();
    return true;
  }

  get size(): number {
    return this.#sinks.size;
  }
}
