/**
 * Keeps the Ethereum hash index (src/db `EthIndex`) up to date, as Lotus's chain indexer fills its
 * `eth_tx_hash` table (filecoin-project/lotus `chain/index/indexer.go`): each tipset the head moves
 * onto is indexed by its block hash, with the Ethereum hash of each delegated-signed message in
 * it, so a node finds transactions it only synced, and the EVM logs of the tipset it executed (its
 * parent) with their bloom (Lotus indexes events the same way, `chain/index/events.go`); delegated messages entering the message pool
 * are indexed as they arrive. At start the chain below the head is indexed in the background back
 * to the first tipset already known (all of it on a fresh repo) or the first whose messages the node
 * does not hold (a snapshot's or pruned chain), a chunk at a time.
 */
import type { Logger } from 'pino';
import type { EthIndex, LedgerDatabase } from '../db/index.js';
import { SignatureType, type SignedMessage, type TipSet } from '../types/index.js';
import { nextTurn } from '../utils/abort.js';
import { signedChainMessage } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { ethBlockHash, ethTxHashOf } from './eth-hashes.js';
import { indexTipSetLogs } from './eth-logs.js';

/** Tipsets indexed per turn of the event loop while catching up at start. */
const CATCH_UP_CHUNK = 200;

export interface EthIndexerOptions {
  readonly chain: ChainStore;
  /** The node database: its `eth` index is kept up to date. */
  readonly db: LedgerDatabase;
  readonly chainId: number;
  readonly logger?: Logger | undefined;
}

export class EthIndexer {
  readonly #chain: ChainStore;
  readonly #db: LedgerDatabase;
  readonly #index: EthIndex;
  readonly #chainId: number;
  readonly #logger: Logger | undefined;
  readonly #abort = new AbortController();
  #unsubscribe: (() => void) | undefined;

  constructor(options: EthIndexerOptions) {
    this.#chain = options.chain;
    this.#db = options.db;
    this.#index = options.db.eth;
    this.#chainId = options.chainId;
    this.#logger = options.logger;
  }

  /**
   * Follows head changes from now on and indexes the chain below the head in the background; the
   * promise (which never rejects) resolves once caught up.
   */
  async start(): Promise<void> {
    this.#unsubscribe = this.#chain.subscribeHeadChanges((change) => {
      for (const tipSet of change.apply) this.indexTipSet(tipSet);
    });
    await this.#catchUp(this.#chain.head()).catch((error: unknown) => {
      if (!this.#abort.signal.aborted) this.#logger?.warn({ err: error }, 'Ethereum hash index: catch-up failed');
    });
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#abort.abort();
  }

  /** Indexes a delegated-signed message by its Ethereum hash (others need no row). */
  indexMessage(signed: SignedMessage): void {
    if (signed.signature.type !== SignatureType.Delegated) return;
    try {
      this.#index.putTransaction(ethTxHashOf(signed, this.#chainId), signedChainMessage(signed).cid);
    } catch (error) {
      // A message the pool or consensus accepted converts; one that does not is not an Ethereum transaction.
      this.#logger?.warn(
        { err: error, from: signed.message.from.toString() },
        'a delegated message has no Ethereum form',
      );
    }
  }

  /**
   * Indexes a tipset's block hash and its delegated messages' transaction hashes, and the logs of
   * its parent, which it executed.
   */
  indexTipSet(tipSet: TipSet): void {
    this.#db.transaction(() => {
      this.#index.putTipSet(ethBlockHash(tipSet), tipSet.key);
      for (const header of tipSet.blocks) {
        for (const signed of this.#chain.blockMessages(header).secpMessages) this.indexMessage(signed);
      }
    });
    if (tipSet.height === 0n) return;
    try {
      indexTipSetLogs(this.#chain, this.#index, this.#chain.loadTipSet(tipSet.parents), tipSet, this.#chainId);
    } catch (error) {
      // The parent's messages are not held (a snapshot's first tipset): eth_getLogs cannot reach it either.
      this.#logger?.debug({ err: error, height: tipSet.height.toString() }, 'Ethereum log index: parent not indexed');
    }
  }

  async #catchUp(from: TipSet): Promise<void> {
    let tipSet: TipSet | undefined = from;
    let indexed = 0;
    while (tipSet !== undefined && this.#index.tipSetOf(ethBlockHash(tipSet)) === undefined) {
      try {
        this.indexTipSet(tipSet);
      } catch (error) {
        // Below a snapshot's or a pruned chain's window the node holds headers without messages.
        this.#logger?.info(
          { err: error, height: tipSet.height.toString(), tipSets: indexed },
          'Ethereum hash index: catch-up ends where the messages are not held',
        );
        return;
      }
      indexed++;
      tipSet = tipSet.height === 0n ? undefined : this.#chain.loadTipSet(tipSet.parents);
      if (indexed % CATCH_UP_CHUNK === 0) {
        await nextTurn(this.#abort.signal).catch(() => undefined);
        if (this.#abort.signal.aborted) return;
      }
    }
    if (indexed > 0) this.#logger?.debug({ tipSets: indexed }, 'Ethereum hash index caught up');
  }
}
