/**
 * The node's Prometheus metrics (docs/operations.md, "Health and metrics"), on a prom-client
 * registry of its own so that two nodes in one process keep separate counts. Where Lotus has a
 * metric for the same thing its name is kept (`lotus_chain_node_height`, `lotus_api_request_duration_ms`
 * …: filecoin-project/lotus `metrics/metrics.go` under the exporter's `lotus` namespace), with
 * Lotus's unit (milliseconds), so operators' Lotus dashboards work; the rest are `ledger_…`, in
 * Prometheus's base units. Values of the node's state (head, peers, pool, database) are read
 * when scraped; events (calls, validations, proofs) are counted as they happen, through the
 * observers the lower modules take (the dispatcher's CallObserver, the validator's onValidated,
 * src/proofs' onProofTiming), so none of them knows about prom-client.
 */
import { statSync } from 'node:fs';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ChainStore } from '../chain/index.js';
import { onProofTiming, type ProofTiming } from '../proofs/index.js';
import type { CallObserver, RpcMethod } from '../rpc/index.js';
import { type SyncManager, syncStageName } from '../sync/index.js';
import { LedgerError } from '../utils/errors.js';

/** What the scrape-time gauges read; each absent part leaves its gauges out. */
export interface MetricSources {
  readonly chain?: Pick<ChainStore, 'head' | 'genesis'> | undefined;
  /** Seconds per epoch: the expected height and the lag. */
  readonly blockDelaySecs: number;
  readonly sync?: Pick<SyncManager, 'isSynced' | 'state'> | undefined;
  readonly peerCount?: (() => number) | undefined;
  readonly mpoolSize?: (() => number) | undefined;
  /** The SQLite file (its `-wal` file is counted too); absent or `:memory:` for none. */
  readonly databasePath?: string | undefined;
}

export interface NodeMetricsOptions {
  /** `<version>+<network>`, as Version reports it. */
  readonly version: string;
  readonly network: string;
  /** Milliseconds since the Unix epoch (tests move time). */
  readonly clock?: () => number;
}

/**
 * Lotus's millisecond bounds (`defaultMillisecondsDistribution`), thinned to about three per decade:
 * a histogram per API method at Lotus's 90 buckets would be most of a scrape.
 */
const MILLISECOND_BUCKETS = [0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000, 300_000];
/** Proofs take from a millisecond (a 2 KiB seal verify) to minutes (a 32 GiB window PoSt). */
const PROOF_SECOND_BUCKETS = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000];
/** The endpoint label of a call to a method no declaration has: one series, whatever names clients send. */
const UNKNOWN_METHOD = 'unknown';

/** The counters of one method's calls, made once per method (prom-client hashes label values on every `labels()`). */
interface MethodSeries {
  readonly ok: Counter.Internal;
  readonly error: Counter.Internal;
  readonly duration: Histogram.Internal<'endpoint'>;
}

export class NodeMetrics {
  readonly registry = new Registry();
  readonly #clock: () => number;
  readonly #requests: Counter<'endpoint' | 'outcome'>;
  readonly #requestDuration: Histogram<'endpoint'>;
  readonly #methodSeries = new Map<string, MethodSeries>();
  readonly #blockValidation: Histogram;
  readonly #blockSuccess: Counter;
  readonly #blockFailure: Counter<'failure_type'>;
  readonly #proofDuration: Histogram<'proof' | 'operation' | 'outcome'>;
  readonly #stopProofTimings: () => void;
  #watching = false;

  constructor(options: NodeMetricsOptions) {
    const registers = [this.registry];
    this.#clock = options.clock ?? Date.now;
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'lotus_info',
      help: 'The node: version, node type and network (always 1)',
      labelNames: ['version', 'node_type', 'network'],
      registers,
    })
      .labels(options.version, 'full', options.network)
      .set(1);
    this.#requests = new Counter({
      name: 'ledger_api_requests_total',
      help: 'JSON-RPC calls answered, by method (endpoint) and outcome (ok: a result, error: an error answer)',
      labelNames: ['endpoint', 'outcome'],
      registers,
    });
    this.#requestDuration = new Histogram({
      name: 'lotus_api_request_duration_ms',
      help: 'Duration of API requests in milliseconds, by method (endpoint)',
      labelNames: ['endpoint'],
      buckets: MILLISECOND_BUCKETS,
      registers,
    });
    this.#blockValidation = new Histogram({
      name: 'lotus_block_validation_ms',
      help: 'Duration of block validation in milliseconds',
      buckets: MILLISECOND_BUCKETS,
      registers,
    });
    this.#blockSuccess = new Counter({
      name: 'lotus_block_success',
      help: 'Blocks validated and found valid',
      registers,
    });
    this.#blockFailure = new Counter({
      name: 'lotus_block_failure',
      help: 'Blocks validated and found invalid, by the first failed check (failure_type)',
      labelNames: ['failure_type'],
      registers,
    });
    this.#proofDuration = new Histogram({
      name: 'ledger_proof_duration_seconds',
      help: 'Duration of proof generation and verification in seconds, by proof (winning_post, window_post, seal), operation (generate, verify, batch_verify) and outcome (ok, or error when the call threw); every proof of the process',
      labelNames: ['proof', 'operation', 'outcome'],
      buckets: PROOF_SECOND_BUCKETS,
      registers,
    });
    this.#stopProofTimings = onProofTiming(this.#proofTimed);
  }

  /** Reads the node's state at each scrape from these sources (once; the node calls it when its services exist). */
  watch(sources: MetricSources): void {
    if (this.#watching) throw new Error('NodeMetrics.watch: already watching');
    this.#watching = true;
    const registers = [this.registry];
    const sampled = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    const { chain, sync, peerCount, mpoolSize, databasePath } = sources;
    if (chain !== undefined) {
      const expectedHeight = () =>
        Math.floor((this.#clock() / 1000 - Number(chain.genesis.timestamp)) / sources.blockDelaySecs);
      sampled('lotus_chain_node_height', "The epoch of the node's head", () => Number(chain.head().height));
      sampled(
        'lotus_chain_node_height_expected',
        'The epoch the clock says it is: seconds since genesis divided by the block delay',
        expectedHeight,
      );
      sampled(
        'ledger_chain_epoch_lag',
        "Expected epoch minus the head's epoch: how far the head is behind the clock (negative: the clock is behind the chain)",
        () => expectedHeight() - Number(chain.head().height),
      );
    }
    if (sync !== undefined) {
      sampled(
        'ledger_sync_synced',
        '1 when the node is synced (no sync running, no heavier chain announced by peers), else 0',
        () => (sync.isSynced() ? 1 : 0),
      );
      sampled('lotus_chain_node_worker_height', 'The highest epoch a sync worker has reached', () =>
        Math.max(0, ...sync.state().ActiveSyncs.map((worker) => worker.Height)),
      );
      new Gauge({
        name: 'ledger_sync_workers',
        help: "Sync workers by stage (Lotus's stage names, as `ledger sync status` prints them)",
        labelNames: ['stage'],
        registers,
        collect() {
          this.reset();
          for (const worker of sync.state().ActiveSyncs) this.inc({ stage: syncStageName(worker.Stage) });
        },
      });
    }
    if (peerCount !== undefined) sampled('lotus_peer_count', 'Connected libp2p peers', peerCount);
    if (mpoolSize !== undefined) sampled('lotus_mpool_message_count', 'Messages in the message pool', mpoolSize);
    if (databasePath !== undefined && databasePath !== ':memory:') {
      sampled('ledger_database_size_bytes', 'Size of the SQLite database on disk, its write-ahead log included', () =>
        [databasePath, `${databasePath}-wal`].reduce(
          (total, path) => total + (statSync(path, { throwIfNoEntry: false })?.size ?? 0),
          0,
        ),
      );
    }
  }

  /** The dispatcher's observer: counts each call and its duration under the declared method's name. */
  readonly rpcCall: CallObserver = (method: RpcMethod | undefined, ok: boolean, seconds: number) => {
    const series = this.#seriesOf(method?.name ?? UNKNOWN_METHOD);
    (ok ? series.ok : series.error).inc();
    series.duration.observe(seconds * 1000);
  };

  /** The block validator's observer. */
  readonly blockValidated = (seconds: number, error: unknown): void => {
    this.#blockValidation.observe(seconds * 1000);
    if (error === undefined) this.#blockSuccess.inc();
    // A BlockValidationError's code is its first failed check (consensus/errors.ts).
    else this.#blockFailure.inc({ failure_type: error instanceof LedgerError ? error.code : 'error' });
  };

  /** The content type of `render()`'s text (Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in Prometheus's text format; the scrape-time gauges read the node now. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Stops listening to proof timings (the process's, shared by every node in it). */
  close(): void {
    this.#stopProofTimings();
  }

  readonly #proofTimed = (timing: ProofTiming): void => {
    this.#proofDuration
      .labels(timing.proof, timing.operation, timing.completed ? 'ok' : 'error')
      .observe(timing.seconds);
  };

  #seriesOf(endpoint: string): MethodSeries {
    let series = this.#methodSeries.get(endpoint);
    if (series === undefined) {
      series = {
        ok: this.#requests.labels(endpoint, 'ok'),
        error: this.#requests.labels(endpoint, 'error'),
        duration: this.#requestDuration.labels(endpoint),
      };
      this.#methodSeries.set(endpoint, series);
    }
    return series;
  }
}
