/**
 * Liveness and readiness as Lotus defines them (filecoin-project/lotus `node/health.go`), read
 * when asked rather than on Lotus's minute ticker:
 *
 * - live: the node is still processing the chain. Lotus counts down from 5 each minute and resets
 *   the count on every head change (ChainNotify, its first `current` included), so about five
 *   minutes without a new head reads as dead. A node without a chain has nothing to process and
 *   is live while it serves.
 * - ready: synced and serving. Lotus requires `NodeStatus.SyncStatus.Behind` (the head's age in
 *   epochs) under 5, and libp2p reachability known; here the second is the sync manager's own
 *   verdict (no sync running, no heavier chain announced by a peer), since reachability stays
 *   unknown on a loopback devnet that serves perfectly well.
 */
import type { HeadChangeSource } from '../chain/index.js';
import type { SyncManager } from '../sync/index.js';

/** Lotus: a countdown of 5 one-minute ticks. */
export const LIVENESS_WINDOW_MS = 5 * 60_000;
/** Lotus `heightTolerance`: ready only while the head is fewer epochs than this behind the clock. */
export const READY_MAX_EPOCHS_BEHIND = 5;

export interface HealthStatus {
  readonly ok: boolean;
  /** `ok`, or why not, in a few words. */
  readonly reason: string;
}

export interface HealthSources {
  readonly chain?: HeadChangeSource | undefined;
  readonly blockDelaySecs: number;
  /** The node's sync manager; absent on a node without libp2p (a devnet alone is its own chain's source). */
  readonly sync?: Pick<SyncManager, 'isSynced'> | undefined;
  /** Milliseconds since the Unix epoch (tests move time). */
  readonly clock?: () => number;
}

const OK: HealthStatus = { ok: true, reason: 'ok' };

export class NodeHealth {
  readonly #sources: HealthSources;
  readonly #clock: () => number;
  readonly #unsubscribe: () => void;
  /** When the head last changed; the start counts, as Lotus's first `current`. */
  #lastHeadChange: number;

  constructor(sources: HealthSources) {
    this.#sources = sources;
    this.#clock = sources.clock ?? Date.now;
    this.#lastHeadChange = this.#clock();
    this.#unsubscribe =
      sources.chain?.subscribeHeadChanges(() => {
        this.#lastHeadChange = this.#clock();
      }) ?? (() => undefined);
  }

  live(): HealthStatus {
    if (this.#sources.chain === undefined) return OK;
    const quietMs = this.#clock() - this.#lastHeadChange;
    if (quietMs < LIVENESS_WINDOW_MS) return OK;
    return { ok: false, reason: `no new head for ${Math.floor(quietMs / 1000)} s` };
  }

  ready(): HealthStatus {
    const { chain, sync, blockDelaySecs } = this.#sources;
    if (chain === undefined) return { ok: false, reason: 'this node has no chain' };
    const head = chain.head();
    const behind = Math.floor((this.#clock() / 1000 - Number(head.timestamp)) / blockDelaySecs);
    if (behind >= READY_MAX_EPOCHS_BEHIND) {
      return { ok: false, reason: `not synced: the head (epoch ${head.height}) is ${behind} epochs old` };
    }
    if (sync !== undefined && !sync.isSynced()) return { ok: false, reason: 'syncing' };
    return OK;
  }

  /** Stops following head changes. */
  close(): void {
    this.#unsubscribe();
  }
}
