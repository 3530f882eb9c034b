/**
 * Online pruning (issue 23): a non-archival node prunes in the background whenever the head has
 * moved `intervalEpochs` past the oldest epoch it keeps plus its window — decided from the
 * recorded window, so a restart neither prunes again at once nor forgets to. The prune runs beside
 * sync, RPC and mining (it hands the event loop back between steps); head changes never wait for it.
 */
import type { Logger } from 'pino';
import type { ChainStore } from './chain-store.js';
import type { ChainPruner, PruneSummary } from './prune.js';

export interface PruneScheduleOptions {
  readonly window: bigint;
  readonly intervalEpochs: bigint;
  readonly logger?: Logger | undefined;
  /** Told of each background prune's outcome (tests; the log says it too). */
  readonly onPruned?: ((summary: PruneSummary) => void) | undefined;
}

export class PruneSchedule {
  readonly #chain: ChainStore;
  readonly #pruner: ChainPruner;
  readonly #options: PruneScheduleOptions;
  readonly #abort = new AbortController();
  readonly #unsubscribe: () => void;
  #running: Promise<void> | undefined;

  constructor(chain: ChainStore, pruner: ChainPruner, options: PruneScheduleOptions) {
    this.#chain = chain;
    this.#pruner = pruner;
    this.#options = options;
    this.#unsubscribe = chain.subscribeHeadChanges(() => this.#maybePrune());
    this.#maybePrune();
  }

  /** Whether the head is far enough past the recorded window for the next prune. */
  due(): boolean {
    const oldest = this.#chain.oldestStateEpoch() ?? 1n;
    return this.#chain.head().height - this.#options.window >= oldest + this.#options.intervalEpochs;
  }

  /** Stops scheduling, ends a prune in flight between two of its steps, and waits for it. */
  async stop(): Promise<void> {
    this.#unsubscribe();
    this.#abort.abort(new Error('the node is stopping'));
    await this.#running;
  }

  #maybePrune(): void {
    if (this.#running !== undefined || this.#pruner.running || this.#abort.signal.aborted || !this.due()) return;
    const { logger, onPruned } = this.#options;
    this.#running = this.#pruner
      .prune({ window: this.#options.window, signal: this.#abort.signal })
      .then(
        (summary) => onPruned?.(summary),
        (error: unknown) => {
          if (!this.#abort.signal.aborted) logger?.error({ err: error }, 'background prune failed');
        },
      )
      .finally(() => {
        this.#running = undefined;
      });
  }
}
