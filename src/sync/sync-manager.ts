/**
 * The sync manager (filecoin-project/lotus `chain/sync_manager.go` + `chain/sync.go`): peers report
 * heads (hello, gossip); the heaviest head not yet ours becomes a worker's target; the worker walks
 * headers back from the target to a tipset we have (chain exchange, windows of 500), persists them,
 * then fetches messages in batches and hands tipset by tipset from the oldest to the block intake
 * (full Expected Consensus validation, which executes the parent state, then the chain store) — so
 * a crash mid-sync resumes from the last validated tipset. Blocks that fail go to the bad-block
 * cache with their descendants, and their peer is penalised; the next heaviest peer is tried.
 */
import type { Logger } from 'pino';
import type { ChainStore } from '../chain/index.js';
import type { ChainExchangeClient, FullTipSet } from '../net/index.js';
import type { NetworkParams } from '../params/index.js';
import { type BlockHeader, encodeBlockHeader, type FullBlock, TipSet, type TipSetKey } from '../types/index.js';
import type { BadBlockCache } from './bad-blocks.js';
import { type BlockIntake, isLastingValidationFailure } from './block-intake.js';
import { SyncError, SyncErrorCode } from './errors.js';
import { SyncStage, type SyncStateJson, SyncWorkerState, workerStateToLotusJson } from './sync-state.js';

/** Lotus's window for GetBlocks during sync. */
const HEADER_WINDOW = 500;
/** Tipsets per GetChainMessages request (Lotus: 8; larger batches suit our single-worker pace). */
const MESSAGE_BATCH = 32;
/** Lotus `MaxHeightDrift`: heads further ahead of the clock are dropped. */
const MAX_HEIGHT_DRIFT = 5n;
/** Workers kept in SyncState (Lotus `MaxSyncWorkers`). */
const MAX_WORKERS_SHOWN = 5;

/** Where penalties go: the network's peer scores. */
export interface PeerPenalizer {
  penalize(peer: string, points: number, reason: string): void;
}

export interface SyncManagerOptions {
  readonly chain: ChainStore;
  /** Where validated tipsets go, shared with the mining loop, gossip and SyncSubmitBlock. */
  readonly intake: BlockIntake;
  readonly exchange: Pick<ChainExchangeClient, 'getBlocks' | 'getChainMessages' | 'getFullTipSet'>;
  readonly params: NetworkParams;
  readonly logger: Logger;
  readonly penalizer?: PeerPenalizer;
  /** Peers currently connected, to fall back on when the announcing peer fails. */
  readonly connectedPeers?: () => string[];
  readonly clock?: () => number;
}

interface PeerHead {
  readonly peer: string;
  readonly tipSet: TipSet;
}

export class SyncManager {
  readonly intake: BlockIntake;
  readonly #chain: ChainStore;
  readonly #exchange: SyncManagerOptions['exchange'];
  readonly #params: NetworkParams;
  readonly #logger: Logger;
  readonly #penalizer: PeerPenalizer | undefined;
  readonly #connectedPeers: () => string[];
  readonly #clock: () => number;
  readonly #peerHeads = new Map<string, PeerHead>();
  readonly #workers: SyncWorkerState[] = [];
  #nextWorkerId = 1;
  #running: Promise<void> | undefined;
  #rerun = false;
  #stopped = false;
  #vmApplied = 0;

  constructor(options: SyncManagerOptions) {
    this.#chain = options.chain;
    this.intake = options.intake;
    this.#exchange = options.exchange;
    this.#params = options.params;
    this.#logger = options.logger;
    this.#penalizer = options.penalizer;
    this.#connectedPeers = options.connectedPeers ?? (() => [...this.#peerHeads.keys()]);
    this.#clock = options.clock ?? Date.now;
  }

  /** The intake's bad-block cache (SyncCheckBad, SyncMarkBad, SyncUnmarkBad). */
  get badBlocks(): BadBlockCache {
    return this.intake.badBlocks;
  }

  /** Lotus SyncState. */
  state(): SyncStateJson {
    return { ActiveSyncs: this.#workers.map(workerStateToLotusJson), VMApplied: this.#vmApplied };
  }

  /**
   * False while a worker is catching up or a peer has announced a heavier chain we have not
   * synced yet: the head is then behind the network and answers built on it would be stale.
   */
  isSynced(): boolean {
    if (this.#running !== undefined) return false;
    const head = this.#chain.head();
    return ![...this.#peerHeads.values()].some(
      (h) => h.tipSet.parentWeight > head.parentWeight && !this.#known(h.tipSet),
    );
  }

  /** Throws `ERR_NOT_SYNCED` for RPC calls that need a synced head. */
  requireSynced(what: string): void {
    if (!this.isSynced()) {
      const head = this.#chain.head();
      throw new SyncError(
        SyncErrorCode.NotSynced,
        `${what}: the node is not synced yet (head at height ${head.height}); see \`ledger sync status\` or wait with \`ledger sync wait\``,
      );
    }
  }

  /**
   * A peer's head (Lotus `InformNewHead`): dropped when outside the consensus range, linked to a
   * bad block or lighter than our head; otherwise a sync toward it is scheduled.
   */
  informNewHead(peer: string, tipSet: TipSet): boolean {
    const head = this.#chain.head();
    if (tipSet.height + this.#params.chainFinality < head.height) return false;
    if (tipSet.height > this.#expectedHeight() + MAX_HEIGHT_DRIFT) {
      this.#logger.debug({ peer, height: Number(tipSet.height) }, 'head from the future dropped');
      return false;
    }
    const bad =
      tipSet.cids.find((cid) => this.badBlocks.has(cid)) ?? tipSet.parents.cids.find((cid) => this.badBlocks.has(cid));
    if (bad !== undefined) {
      for (const cid of tipSet.cids)
        this.badBlocks.add(cid, { reason: 'linked to a bad block', origin: bad.toString() });
      this.#penalizer?.penalize(peer, 100, `announced a chain linked to bad block ${bad}`);
      return false;
    }
    if (tipSet.parentWeight < head.parentWeight) return false;
    const previous = this.#peerHeads.get(peer);
    if (previous === undefined || tipSet.height >= previous.tipSet.height) this.#peerHeads.set(peer, { peer, tipSet });
    this.#schedule();
    return true;
  }

  forgetPeer(peer: string): void {
    this.#peerHeads.delete(peer);
  }

  /**
   * A block handed over whole (gossip, SyncSubmitBlock): into the block intake, shown as a sync
   * worker while it is validated; returns the tipset it joined.
   */
  async submitBlock(block: FullBlock, origin: 'gossip' | 'rpc'): Promise<TipSet> {
    const worker = this.#newWorker();
    worker.init(this.#chain.head(), TipSet.fromHeaders([block.header]));
    worker.setStage(SyncStage.Messages);
    try {
      const tipSet = await this.intake.submit(block, origin);
      this.#countApplied([block]);
      worker.advance(tipSet);
      worker.setStage(SyncStage.Complete);
      return tipSet;
    } catch (error) {
      worker.error(error);
      throw error;
    }
  }

  /** Waits for the current sync run, if any (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  stop(): void {
    this.#stopped = true;
  }

  #expectedHeight(): bigint {
    const elapsed = BigInt(Math.floor(this.#clock() / 1000)) - this.#chain.genesis.timestamp;
    return elapsed < 0n ? 0n : elapsed / this.#params.blockDelaySecs;
  }

  #known(tipSet: TipSet): boolean {
    return this.#chain.tipSetsAt(tipSet.height).some((t) => t.key.equals(tipSet.key));
  }

  #schedule(): void {
    if (this.#running !== undefined) {
      this.#rerun = true;
      return;
    }
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      if (this.#rerun && !this.#stopped) {
        this.#rerun = false;
        this.#schedule();
      }
    });
  }

  /** Syncs toward the heaviest announced head until none is heavier than ours. */
  async #run(): Promise<void> {
    const failed = new Set<string>();
    while (!this.#stopped) {
      const head = this.#chain.head();
      const candidates = [...this.#peerHeads.values()]
        .filter((h) => !failed.has(h.tipSet.key.toString()) && !this.#known(h.tipSet))
        .filter((h) => h.tipSet.parentWeight >= head.parentWeight)
        .sort((a, b) =>
          b.tipSet.parentWeight > a.tipSet.parentWeight
            ? 1
            : b.tipSet.parentWeight < a.tipSet.parentWeight
              ? -1
              : Number(b.tipSet.height - a.tipSet.height),
        );
      const best = candidates[0];
      if (best === undefined) return;
      const worker = this.#newWorker();
      worker.init(head, best.tipSet);
      try {
        await this.#sync(worker, best);
        worker.setStage(SyncStage.Complete);
      } catch (error) {
        worker.error(error);
        failed.add(best.tipSet.key.toString());
        // A head we could not sync to no longer counts as the network being ahead of us.
        if (this.#peerHeads.get(best.peer)?.tipSet.key.equals(best.tipSet.key)) this.#peerHeads.delete(best.peer);
        this.#logger.warn({ peer: best.peer, target: Number(best.tipSet.height), err: error }, 'sync failed');
      }
    }
  }

  #newWorker(): SyncWorkerState {
    const worker = new SyncWorkerState(this.#nextWorkerId++);
    this.#workers.push(worker);
    if (this.#workers.length > MAX_WORKERS_SHOWN) this.#workers.shift();
    return worker;
  }

  /** Peers to ask, the announcing one first. */
  #peersFor(announcer: string): string[] {
    return [announcer, ...this.#connectedPeers().filter((p) => p !== announcer)];
  }

  async #withPeers<T>(announcer: string, what: string, request: (peer: string) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (const peer of this.#peersFor(announcer)) {
      try {
        return await request(peer);
      } catch (error) {
        lastError = error;
        this.#logger.debug({ peer, err: error }, `${what} failed; trying another peer`);
      }
    }
    throw new SyncError(SyncErrorCode.NoPeers, `${what}: no peer could provide it: ${(lastError as Error)?.message}`, {
      cause: lastError,
    });
  }

  async #sync(worker: SyncWorkerState, target: PeerHead): Promise<void> {
    const headers = await this.#collectHeaders(worker, target);
    worker.setStage(SyncStage.PersistHeaders);
    for (const tipSet of headers) {
      tipSet.blocks.forEach((header, i) => {
        const cid = tipSet.cids[i]!;
        if (!this.#chain.hasBlock(cid)) this.#chain.blockstore.put(cid, encodeBlockHeader(header));
      });
    }
    worker.setStage(SyncStage.Messages);
    // Oldest first, in batches; each batch is asked newest-first as chain exchange walks back.
    const oldestFirst = [...headers].reverse();
    for (let start = 0; start < oldestFirst.length && !this.#stopped; start += MESSAGE_BATCH) {
      const batch = oldestFirst.slice(start, start + MESSAGE_BATCH);
      worker.setStage(SyncStage.FetchingMessages);
      const full = await this.#fetchMessages(target.peer, batch);
      worker.setStage(SyncStage.Messages);
      for (const tipSet of full) await this.#validateAndAdd(worker, target.peer, tipSet, headers);
    }
  }

  /** Headers from the target back to (not including) a tipset we already have, newest first. */
  async #collectHeaders(worker: SyncWorkerState, target: PeerHead): Promise<TipSet[]> {
    const collected: TipSet[] = [];
    let cursor: TipSet = target.tipSet;
    const floor = this.#chain.head().height - this.#params.chainFinality;
    for (;;) {
      if (this.#known(cursor)) break;
      this.#checkNotBad(target.peer, cursor, collected);
      collected.push(cursor);
      worker.setHeight(cursor.height);
      if (cursor.height === 0n) throw new SyncError(SyncErrorCode.BadChain, 'reached a genesis that is not ours');
      if (cursor.height < floor) {
        throw new SyncError(
          SyncErrorCode.ForkTooLong,
          `the fork from ${target.peer} goes back past finality (height ${cursor.height})`,
        );
      }
      const parentKey: TipSetKey = cursor.parents;
      const local = this.#localTipSet(parentKey);
      if (local !== undefined) {
        cursor = local;
        continue;
      }
      const window = Number(
        BigInt(HEADER_WINDOW) < cursor.height ? BigInt(HEADER_WINDOW) : cursor.height > 0n ? cursor.height : 1n,
      );
      const fetched = await this.#withPeers(target.peer, `headers before height ${cursor.height}`, (peer) =>
        this.#exchange.getBlocks(peer, parentKey, window),
      );
      // All but the last go straight in; the last becomes the cursor and is checked next round.
      for (const tipSet of fetched.slice(0, -1)) {
        if (this.#known(tipSet)) {
          cursor = tipSet;
          break;
        }
        this.#checkNotBad(target.peer, tipSet, collected);
        collected.push(tipSet);
        worker.setHeight(tipSet.height);
        cursor = tipSet;
      }
      const last = fetched[fetched.length - 1]!;
      if (this.#known(cursor)) break;
      cursor = last;
    }
    return collected;
  }

  #localTipSet(key: TipSetKey): TipSet | undefined {
    if (!key.cids.every((cid) => this.#chain.hasBlock(cid))) return undefined;
    const tipSet = this.#chain.loadTipSet(key);
    return this.#known(tipSet) ? tipSet : undefined;
  }

  #checkNotBad(peer: string, tipSet: TipSet, descendants: readonly TipSet[]): void {
    const bad = tipSet.cids.find((cid) => this.badBlocks.has(cid));
    if (bad === undefined) return;
    const origin = bad.toString();
    for (const child of descendants) {
      for (const cid of child.cids) this.badBlocks.add(cid, { reason: 'linked to a bad block', origin });
    }
    this.#penalizer?.penalize(peer, 100, `served a chain linked to bad block ${origin}`);
    throw new SyncError(SyncErrorCode.BadChain, `chain linked to bad block ${origin}: ${this.badBlocks.describe(bad)}`);
  }

  async #fetchMessages(announcer: string, oldestFirst: readonly TipSet[]): Promise<FullTipSet[]> {
    const local: FullTipSet[] = [];
    const newestFirst = [...oldestFirst].reverse();
    if (newestFirst.every((tipSet) => tipSet.blocks.every((header) => this.#hasMessages(header)))) {
      for (const tipSet of oldestFirst) {
        local.push({ tipSet, blocks: tipSet.blocks.map((header) => this.#localFullBlock(header)) });
      }
      return local;
    }
    const fetched = await this.#withPeers(announcer, `messages up to height ${newestFirst[0]!.height}`, (peer) =>
      this.#exchange.getChainMessages(peer, newestFirst),
    );
    if (fetched.length !== newestFirst.length) {
      throw new SyncError(
        SyncErrorCode.NoPeers,
        `asked messages of ${newestFirst.length} tipsets, got ${fetched.length}`,
      );
    }
    return fetched.reverse();
  }

  #hasMessages(header: BlockHeader): boolean {
    try {
      this.#chain.blockMessages(header);
      return true;
    } catch {
      return false;
    }
  }

  #localFullBlock(header: BlockHeader): FullBlock {
    const { blsMessages, secpMessages } = this.#chain.blockMessages(header);
    return { header, blsMessages, secpkMessages: secpMessages };
  }

  async #validateAndAdd(
    worker: SyncWorkerState,
    peer: string,
    full: FullTipSet,
    chainAbove: readonly TipSet[],
  ): Promise<void> {
    try {
      await this.intake.submitTipSet(full.blocks, 'sync');
    } catch (error) {
      // The intake cached the tipset's own blocks as bad; what links to them is bad too.
      if (isLastingValidationFailure(error)) {
        const reason = (error as Error).message;
        const origin = full.tipSet.cids[0]!.toString();
        for (const above of chainAbove) {
          if (above.height > full.tipSet.height) {
            for (const cid of above.cids) this.badBlocks.add(cid, { reason: 'linked to a bad block', origin });
          }
        }
        this.#penalizer?.penalize(peer, 100, `served invalid block at height ${full.tipSet.height}: ${reason}`);
      }
      throw error;
    }
    this.#countApplied(full.blocks);
    worker.advance(full.tipSet);
  }

  #countApplied(blocks: readonly FullBlock[]): void {
    this.#vmApplied += blocks.reduce((n, b) => n + b.blsMessages.length + b.secpkMessages.length, 0);
  }
}
