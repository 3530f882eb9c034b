/**
 * Chain weight (filecoin-project/lotus `chain/consensus/filcns/weight.go`):
 *
 *   W(ts) = ParentWeight + (log2P << 8) + ((log2P · wRatioNum) << 8) · ΣWinCount / (E · wRatioDen)
 *
 * where P is the network's quality-adjusted power in the tipset's parent state, E the expected
 * blocks per epoch and wRatio = 1/2. Only the last term is divided, as Lotus does.
 */
import type { Blockstore } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import { StateTree } from '../state/index.js';
import type { TipSet } from '../types/index.js';
import { powerState } from '../vm/index.js';
import { ChainError, ChainErrorCode } from './errors.js';

/** Lotus `WRatioNum` / `WRatioDen`, the same on every network. */
const W_RATIO_NUM = 1n;
const W_RATIO_DEN = 2n;

export function tipSetWeight(store: Blockstore, tipSet: TipSet, params: NetworkParams): bigint {
  const power = powerState(StateTree.load(store, tipSet.parentStateRoot)).totalQualityAdjPower;
  if (power <= 0n) {
    throw new ChainError(
      ChainErrorCode.NoPower,
      `tipset ${tipSet.key} has no weight: its parent state has no power (all power in the network is gone)`,
    );
  }
  const log2P = BigInt(power.toString(2).length - 1);
  const winCounts = tipSet.blocks.reduce((sum, block) => sum + (block.electionProof?.winCount ?? 0n), 0n);
  const electionWeight = (((log2P * W_RATIO_NUM) << 8n) * winCounts) / (params.blocksPerEpoch * W_RATIO_DEN);
  return tipSet.parentWeight + (log2P << 8n) + electionWeight;
}
