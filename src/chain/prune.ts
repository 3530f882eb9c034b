/**
 * Pruning old state (issue 23, "a bounded database"): a non-archival node keeps every block
 * header and its messages, but the state trees and receipts (and the events below them) only of
 * the tipsets within `window` epochs of the head, plus genesis's — what a minimal snapshot holds
 * (snapshot/export.ts). Lotus does this with a hot/cold splitstore (filecoin-project/lotus
 * `blockstore/splitstore`), Forest with a mark-and-sweep by epoch (ChainSafe/forest `src/db/gc`);
 * in one SQLite table it is a plain mark and sweep:
 *
 * 1. The oldest epoch with state is raised to `head − window` first, so from then on every state
 *    query below it answers ERR_STATE_NOT_AVAILABLE (snapshot/state-window.ts) whatever the sweep
 *    has deleted yet: a crash at any point leaves a consistent database, and the next prune
 *    finishes the job.
 * 2. Mark: every block reachable from what is kept, into one on-disk CID set (a shared subtree is
 *    walked once).
 * 3. Candidates: what the state trees and receipts of the tipsets below the window reach, outside
 *    the mark. Only these are ever deleted: a block no tipset links yet (one sync fetched and has not
 *    added, a ChainPutObj object) is never a candidate, whenever it was written.
 * 4. Sweep: the blocks table in CID order, a bounded batch per transaction, deleting candidates, the
 *    event loop handed back between batches so sync, RPC and mining go on.
 *
 * Blocks written while a prune runs are kept: the blockstore tells the pruner every write, into a
 * second set the sweep also consults. It is a set apart from the mark, because a written block that
 * already existed may sit in a kept tree whose walk must still go below it.
 */
import type { Logger } from 'pino';
import { type DatabaseSize, DiskCidSet, type LedgerDatabase } from '../db/index.js';
import { blockLinks } from '../state/index.js';
import type { CID } from '../types/cid.js';
import { DAG_CBOR_CODE, type TipSet } from '../types/index.js';
import { nextTurn } from '../utils/abort.js';
import type { ChainStore } from './chain-store.js';
import { ChainError, ChainErrorCode } from './errors.js';
import { DEFAULT_RECENT_STATE_ROOTS } from './snapshot/export.js';
import { recordOldestStateEpoch } from './snapshot/state-window.js';

/** What a minimal snapshot holds: the default window of a pruned node. */
export const DEFAULT_PRUNE_WINDOW = DEFAULT_RECENT_STATE_ROOTS;
/** Blocks looked at per sweep transaction: small enough that a batch takes milliseconds. */
const SWEEP_BATCH = 4096;
/** Blocks marked between two turns of the event loop. */
const MARK_TURN = 4096;
const IDENTITY_CODE = 0x00;
const emptySweep = { marked: 0, candidates: 0, writtenMeanwhile: 0, scanned: 0, deleted: 0, deletedBytes: 0 };

export interface PruneOptions {
  /** Epochs below the head whose state is kept (the state of tipsets at `head − window` and above). */
  readonly window: bigint;
  readonly batchSize?: number | undefined;
  /** Ends the prune between two steps (the node stopping; tests simulating a crash). */
  readonly signal?: AbortSignal | undefined;
}

export interface PruneSummary {
  readonly head: bigint;
  /** The oldest epoch above genesis whose state the node now holds. */
  readonly oldestStateEpoch: bigint;
  readonly marked: number;
  /** Blocks the dropped states and receipts reach outside the mark: what the sweep may delete. */
  readonly candidates: number;
  /** Blocks written while the prune ran, kept whatever they are. */
  readonly writtenMeanwhile: number;
  readonly scanned: number;
  readonly deleted: number;
  readonly deletedBytes: number;
  readonly before: DatabaseSize;
  readonly after: DatabaseSize;
  readonly ms: number;
}

/** Runs prunes of one chain, one at a time (the background schedule and `ChainPrune` share it). */
export class ChainPruner {
  readonly #chain: ChainStore;
  readonly #db: LedgerDatabase;
  readonly #logger: Logger | undefined;
  /** The window a prune asked for without one keeps (the node's `[Chainstore.Prune] Window`). */
  readonly window: bigint;
  #running: Promise<PruneSummary> | undefined;

  constructor(chain: ChainStore, db: LedgerDatabase, options: { logger?: Logger; window?: bigint } = {}) {
    this.#chain = chain;
    this.#db = db;
    this.#logger = options.logger;
    this.window = options.window ?? DEFAULT_PRUNE_WINDOW;
  }

  get running(): boolean {
    return this.#running !== undefined;
  }

  prune(options: PruneOptions): Promise<PruneSummary> {
    if (this.#running !== undefined) {
      return Promise.reject(new ChainError(ChainErrorCode.Prune, 'a prune is already running; wait for it to finish'));
    }
    if (options.window < 1n) {
      return Promise.reject(
        new ChainError(ChainErrorCode.Prune, `prune window must be at least 1 epoch, got ${options.window}`),
      );
    }
    const running = this.#prune(options).finally(() => {
      this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  async #prune(options: PruneOptions): Promise<PruneSummary> {
    const started = performance.now();
    const chain = this.#chain;
    const db = this.#db;
    const head = chain.head();
    const before = db.blockSweep.size();
    const previous = chain.oldestStateEpoch() ?? 1n;
    const cutoff = head.height - options.window;
    const oldest = cutoff > previous ? cutoff : previous;
    if (oldest <= 1n) {
      // The window reaches genesis: no state to drop.
      return { ...emptySweep, head: head.height, oldestStateEpoch: 1n, before, after: before, ms: 0 };
    }
    const marked = new DiskCidSet();
    const candidates = new DiskCidSet();
    const written = new DiskCidSet();
    const stopWatching = db.blockstore.onWrite((cid) => written.visit(cid));
    try {
      // Before anything is deleted: from here on, state below `oldest` is refused.
      recordOldestStateEpoch(db, oldest, 'prune');
      const mark = new Mark(db, marked, options.signal);
      const top = db.chainIndex.maxTipSetHeight() ?? head.height;
      for (let height = 0n; height <= top; height++) {
        for (const key of db.chainIndex.tipSetKeysAt(height)) {
          await mark.tipSet(chain.loadTipSet(key), height === 0n || height >= oldest);
        }
      }
      // From height 1 each time: a tree an earlier prune deleted ends at its missing root, and one a
      // crash left half deleted is collected again.
      const collect = new Mark(db, candidates, options.signal, marked);
      for (let height = 1n; height < oldest; height++) {
        for (const key of db.chainIndex.tipSetKeysAt(height)) await collect.states(chain.loadTipSet(key));
      }
      let { scanned, deleted, deletedBytes } = emptySweep;
      const keep = (cid: Uint8Array) => !candidates.hasBytes(cid) || written.hasBytes(cid);
      let after: Uint8Array | undefined;
      do {
        const batch = db.blockSweep.sweepBatch(after, options.batchSize ?? SWEEP_BATCH, keep);
        scanned += batch.scanned;
        deleted += batch.deleted;
        deletedBytes += batch.deletedBytes;
        after = batch.next;
        await nextTurn(options.signal);
      } while (after !== undefined);
      const summary: PruneSummary = {
        head: head.height,
        oldestStateEpoch: oldest,
        marked: marked.size,
        candidates: candidates.size,
        writtenMeanwhile: written.size,
        scanned,
        deleted,
        deletedBytes,
        before,
        after: db.blockSweep.size(),
        ms: Math.round(performance.now() - started),
      };
      this.#logger?.info(
        {
          ...summary,
          head: Number(summary.head),
          oldestStateEpoch: Number(oldest),
          before: before.usedBytes,
          after: summary.after.usedBytes,
        },
        'chain pruned',
      );
      return summary;
    } finally {
      stopWatching();
      marked.close();
      candidates.close();
      written.close();
    }
  }
}

/**
 * A walk of chain DAGs into `marked`: the mark phase (what a pruned node keeps) and, with `except`
 * (the mark), the candidates phase (what the dropped states reach outside it).
 */
class Mark {
  readonly #db: LedgerDatabase;
  readonly #marked: DiskCidSet;
  readonly #signal: AbortSignal | undefined;
  readonly #except: DiskCidSet | undefined;
  #sinceTurn = 0;

  constructor(db: LedgerDatabase, marked: DiskCidSet, signal: AbortSignal | undefined, except?: DiskCidSet) {
    this.#db = db;
    this.#marked = marked;
    this.#signal = signal;
    this.#except = except;
  }

  /** A tipset's parent state and receipts and its own computed ones. */
  async states(tipSet: TipSet): Promise<void> {
    for (const header of tipSet.blocks) {
      await this.#dag(header.parentStateRoot);
      await this.#dag(header.parentMessageReceipts);
    }
    const computed = this.#db.chainIndex.getTipSetState(tipSet.key);
    if (computed !== undefined) {
      await this.#dag(computed.stateRoot);
      await this.#dag(computed.receiptsRoot);
    }
  }

  /** A tipset's headers and messages; with `withState`, its parent state and receipts and its own computed ones. */
  async tipSet(tipSet: TipSet, withState: boolean): Promise<void> {
    for (const [index, header] of tipSet.blocks.entries()) {
      this.#marked.visit(tipSet.cids[index]!);
      await this.#dag(header.messages);
      // Genesis's parent is a block of its own (Lotus's genesis ticket block).
      if (tipSet.height === 0n) for (const parent of header.parents) await this.#dag(parent);
    }
    if (withState) await this.states(tipSet);
  }

  /** `root` and every block below it not marked yet; a block the store lacks has nothing to keep. */
  async #dag(root: CID): Promise<void> {
    const pending = [root];
    for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
      if (this.#except?.hasBytes(cid.bytes) || !this.#marked.visit(cid)) continue;
      if (++this.#sinceTurn >= MARK_TURN) {
        this.#sinceTurn = 0;
        await nextTurn(this.#signal);
      }
      // An identity CID holds its data; marked anyway, in case a writer stored it as a block.
      if (cid.code !== DAG_CBOR_CODE || cid.multihash.code === IDENTITY_CODE) continue;
      const bytes = this.#db.blockstore.get(cid);
      if (bytes !== undefined) pending.push(...blockLinks(cid, bytes));
    }
  }
}
