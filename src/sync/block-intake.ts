/**
 * The one way blocks enter the chain, whoever brings them: the mining loop, chain sync, gossip and
 * SyncSubmitBlock. A block is refused when the bad-block cache holds it, validated by Expected
 * Consensus (a failure that cannot heal with time goes to the bad-block cache), stored, joined with
 * the blocks already accepted on the same parents at its height, and offered to fork choice
 * (`ChainStore.addBlocks`, one transaction; the head moves once it is committed). Lotus spreads
 * this over filecoin-project/lotus `chain/sync.go` (`InformNewBlock`, `ValidateBlock`),
 * `chain/sub/incoming.go` and `chain/store/store.go` (`AddToTipSetTracker`, `expandTipset`).
 */
import type { Logger } from 'pino';
import type { ChainStore } from '../chain/index.js';
import { type BlockHeader, blockCid, type FullBlock, type TipSet } from '../types/index.js';
import { BadBlockCache } from './bad-blocks.js';
import { SyncError, SyncErrorCode } from './errors.js';

/** Where a block came from: it only labels logs; every origin passes the same checks. */
export type BlockOrigin = 'mined' | 'gossip' | 'sync' | 'rpc';

/**
 * The origins whose blocks are announced to `onIncoming` (Lotus `SyncIncomingBlocks`): blocks
 * offered as new heads. Lotus publishes gossiped blocks, its own included (they come back through
 * its pubsub subscription), and not the old tipsets a catch-up sync fetches.
 */
const ANNOUNCED_ORIGINS: ReadonlySet<BlockOrigin> = new Set(['mined', 'gossip', 'rpc']);

/** What blocks are validated with: the consensus `BlockValidator` provides it. */
export interface TipSetValidator {
  validateTipSet(blocks: readonly FullBlock[]): Promise<TipSet>;
}

export interface BlockIntakeOptions {
  readonly chain: ChainStore;
  readonly validator: TipSetValidator;
  readonly logger?: Logger | undefined;
}

export interface SubmitOptions {
  /**
   * Written in the transaction that stores the blocks, before them; throwing refuses the blocks
   * with nothing written (the mining loop's slash filter, Lotus `miner/miner.go` step 6).
   */
  readonly alongside?: (() => void) | undefined;
}

/** A validation failure that is not only about time (Lotus `ErrTemporal` blocks may become valid). */
export function isLastingValidationFailure(error: unknown): boolean {
  const { name, temporal } = error as { name?: string; temporal?: boolean };
  return name === 'BlockValidationError' && temporal !== true;
}

export class BlockIntake {
  readonly badBlocks = new BadBlockCache();
  readonly #chain: ChainStore;
  readonly #validator: TipSetValidator;
  readonly #logger: Logger | undefined;
  readonly #incoming = new Set<(header: BlockHeader) => void>();

  constructor(options: BlockIntakeOptions) {
    this.#chain = options.chain;
    this.#validator = options.validator;
    this.#logger = options.logger;
  }

  /**
   * Calls `listener` with the header of every block offered as a new head (mined, gossiped,
   * submitted) once it passed the bad-block cache and before it is validated: Lotus's "incoming,
   * potentially not yet synced" blocks (filecoin-project/lotus chain/sync.go, InformNewHead).
   * Returns the unsubscribe.
   */
  onIncoming(listener: (header: BlockHeader) => void): () => void {
    this.#incoming.add(listener);
    return () => this.#incoming.delete(listener);
  }

  /** One block; returns the tipset it joined (with its siblings on the same parents). */
  submit(block: FullBlock, origin: BlockOrigin, options: SubmitOptions = {}): Promise<TipSet> {
    return this.submitTipSet([block], origin, options);
  }

  /** The blocks of one tipset (sync validates a peer's tipsets whole); returns the tipset they joined. */
  async submitTipSet(blocks: readonly FullBlock[], origin: BlockOrigin, options: SubmitOptions = {}): Promise<TipSet> {
    for (const block of blocks) {
      const cid = blockCid(block.header);
      if (this.badBlocks.has(cid)) {
        throw new SyncError(SyncErrorCode.BadChain, `block ${cid} is marked bad: ${this.badBlocks.describe(cid)}`);
      }
    }
    if (ANNOUNCED_ORIGINS.has(origin)) {
      for (const listener of [...this.#incoming]) for (const block of blocks) listener(block.header);
    }
    await this.validate(blocks, origin);
    const { tipSet, becameHead } = this.#chain.addBlocks(blocks, options.alongside);
    this.#logger?.debug(
      { origin, height: Number(tipSet.height), blocks: tipSet.cids.length, head: becameHead },
      'blocks added',
    );
    return tipSet;
  }

  /**
   * Validates the blocks of one tipset without adding them (SyncValidateTipset, and the first step
   * of `submitTipSet`); a failure that cannot heal with time puts them in the bad-block cache, as
   * Lotus's `Syncer.ValidateTipSet` does.
   */
  async validate(blocks: readonly FullBlock[], origin: BlockOrigin): Promise<TipSet> {
    try {
      return await this.#validator.validateTipSet(blocks);
    } catch (error) {
      if (isLastingValidationFailure(error)) {
        const reason = (error as Error).message;
        const cids = blocks.map((block) => blockCid(block.header));
        for (const cid of cids) this.badBlocks.add(cid, { reason });
        this.#logger?.warn({ origin, blocks: cids.map(String), reason }, 'invalid block refused');
      }
      throw error;
    }
  }
}
