/**
 * The local slash filter (Lotus `chain/gen/slashfilter`): before a miner publishes a block it
 * checks that the block would not be a consensus fault of its own making, and remembers it.
 *
 * - double-fork mining: another block by the same miner at the same height;
 * - time-offset mining: another block by the same miner on the same parents;
 * - parent grinding: a block after null rounds that leaves out the miner's own block in the round
 *   after the parent.
 *
 * Records live in the chain index's mined-blocks table, so a restarted miner still refuses. The
 * mining loop records a block in the same transaction that adds it to the chain as a tipset of its
 * own, so a record means the block landed. Only a record whose block's tipset is in the chain index
 * counts: one without (left by older versions, which recorded the block before separate writes of
 * the block and its tipset that could fail) was never published — we publish only blocks that
 * landed — so it is no fault and is replaced.
 */
import type { ChainIndex, MinedBlockRecord } from '../db/index.js';
import { type BlockHeader, blockCid, TipSetKey } from '../types/index.js';
import { BlockErrorCode, BlockValidationError } from './errors.js';

type MinedBlocks = Pick<
  ChainIndex,
  'minedBlockAt' | 'minedBlockOn' | 'putMinedBlock' | 'deleteMinedBlock' | 'getTipSet'
>;

export class SlashFilter {
  readonly #store: MinedBlocks;

  /** `store` is the chain index: the records, and the tipsets that say whether a block landed. */
  constructor(store: MinedBlocks) {
    this.#store = store;
  }

  /**
   * Throws `ERR_DOUBLE_SIGN` when `header` would be a fault together with a block this miner
   * already produced; otherwise records it. `parentEpoch` is the height of the block's parents.
   */
  minedBlock(header: BlockHeader, parentEpoch: bigint): void {
    const cid = blockCid(header);
    const miner = header.miner;
    const parents = TipSetKey.fromCids(header.parents);
    const refuse = (reason: string): never => {
      throw new BlockValidationError(cid.toString(), [{ code: BlockErrorCode.DoubleSign, reason }]);
    };
    const sameHeight = this.#landed(miner.bytes, this.#store.minedBlockAt(miner.bytes, header.height));
    if (sameHeight !== undefined && !sameHeight.block.equals(cid)) {
      refuse(
        `produced block would trigger double-fork mining faults consensus fault; miner: ${miner}; other block: ${sameHeight.block}`,
      );
    }
    const sameParents = this.#landedOn(miner.bytes, parents);
    if (sameParents !== undefined && !sameParents.block.equals(cid)) {
      refuse(
        `produced block would trigger time-offset mining faults consensus fault; miner: ${miner}; other block: ${sameParents.block}`,
      );
    }
    if (parentEpoch + 1n !== header.height) {
      const skipped = this.#landed(miner.bytes, this.#store.minedBlockAt(miner.bytes, parentEpoch + 1n));
      if (skipped !== undefined && !header.parents.some((parent) => parent.equals(skipped.block))) {
        refuse(
          `produced block would trigger consensus fault; miner: ${miner}; parent-grinding: it leaves out ${skipped.block}`,
        );
      }
    }
    this.#store.putMinedBlock(miner.bytes, { height: header.height, parents, block: cid });
  }

  /** `record` if its block landed; a record of a block that never did is deleted. */
  #landed(miner: Uint8Array, record: MinedBlockRecord | undefined): MinedBlockRecord | undefined {
    if (record === undefined || this.#store.getTipSet(TipSetKey.fromCids([record.block])) !== undefined) return record;
    this.#store.deleteMinedBlock(miner, record.height);
    return undefined;
  }

  /** The lowest landed block on `parents`, deleting the records of blocks that never landed. */
  #landedOn(miner: Uint8Array, parents: TipSetKey): MinedBlockRecord | undefined {
    for (;;) {
      const record = this.#store.minedBlockOn(miner, parents);
      if (record === undefined || this.#landed(miner, record) !== undefined) return record;
    }
  }
}
