/**
 * The local slash filter (Lotus `chain/gen/slashfilter`): before a miner publishes a block it
 * checks that the block would not be a consensus fault of its own making, and remembers it.
 *
 * - double-fork mining: another block by the same miner at the same height;
 * - time-offset mining: another block by the same miner on the same parents;
 * - parent grinding: a block after null rounds that leaves out the miner's own block in the round
 *   after the parent.
 *
 * Records live in the chain index's metadata table, so a restarted miner still refuses.
 */
import { CID } from 'multiformats/cid';
import type { ChainIndex } from '../db/index.js';
import { type BlockHeader, blockCid, TipSetKey } from '../types/index.js';
import { BlockErrorCode, BlockValidationError } from './errors.js';

type MetaStore = Pick<ChainIndex, 'getMeta' | 'setMeta'>;

export class SlashFilter {
  readonly #store: MetaStore;

  constructor(store: MetaStore) {
    this.#store = store;
  }

  /**
   * Throws `ERR_DOUBLE_SIGN` when `header` would be a fault together with a block this miner
   * already produced; otherwise records it. `parentEpoch` is the height of the block's parents.
   */
  minedBlock(header: BlockHeader, parentEpoch: bigint): void {
    const cid = blockCid(header);
    const miner = header.miner.toString();
    const byEpoch = `slash/epoch/${miner}/${header.height}`;
    const byParents = `slash/parents/${miner}/${TipSetKey.fromCids(header.parents).toString()}`;
    const refuse = (reason: string): never => {
      throw new BlockValidationError(cid.toString(), [{ code: BlockErrorCode.DoubleSign, reason }]);
    };
    const other = (key: string): CID | undefined => {
      const bytes = this.#store.getMeta(key);
      if (bytes === undefined) return undefined;
      const recorded = CID.decode(bytes);
      return recorded.equals(cid) ? undefined : recorded;
    };
    const sameHeight = other(byEpoch);
    if (sameHeight !== undefined) {
      refuse(
        `produced block would trigger double-fork mining faults consensus fault; miner: ${miner}; other block: ${sameHeight}`,
      );
    }
    const sameParents = other(byParents);
    if (sameParents !== undefined) {
      refuse(
        `produced block would trigger time-offset mining faults consensus fault; miner: ${miner}; other block: ${sameParents}`,
      );
    }
    if (parentEpoch + 1n !== header.height) {
      const skipped = this.#store.getMeta(`slash/epoch/${miner}/${parentEpoch + 1n}`);
      if (skipped !== undefined) {
        const own = CID.decode(skipped);
        if (!header.parents.some((parent) => parent.equals(own))) {
          refuse(
            `produced block would trigger consensus fault; miner: ${miner}; parent-grinding: it leaves out ${own}`,
          );
        }
      }
    }
    this.#store.setMeta(byEpoch, cid.bytes);
    this.#store.setMeta(byParents, cid.bytes);
  }
}
