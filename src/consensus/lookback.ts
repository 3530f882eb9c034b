/**
 * The lookback state of a round (Lotus `GetLookbackTipSetForRound`, filecoin-project/lotus
 * `chain/stmgr/utils.go`): the state a miner's worker key, power and winning PoSt sectors are read
 * from when it mines `round` — the state after the tipset ChainFinality epochs back. Any round on
 * top of genesis looks back to genesis; elsewhere the lookback must lie below the base.
 */
import type { CID } from 'multiformats/cid';
import { ChainError, ChainErrorCode, type ChainStore, type TipSetStates } from '../chain/index.js';
import type { TipSet } from '../types/index.js';

export interface Lookback {
  readonly tipSet: TipSet;
  /** The state after executing `tipSet`. */
  readonly stateRoot: CID;
}

export async function lookbackForRound(
  chain: ChainStore,
  states: TipSetStates,
  base: TipSet,
  round: bigint,
): Promise<Lookback> {
  const distance = chain.params.chainFinality;
  const lookbackRound = round > distance ? round - distance : 0n;
  if (lookbackRound >= base.height) {
    if (base.height === 0n) return { tipSet: base, stateRoot: (await states.stateOf(base)).stateRoot };
    throw new ChainError(
      ChainErrorCode.InvalidHeight,
      `lookback height ${lookbackRound} is at or after base height ${base.height}`,
    );
  }
  // The first tipset above the lookback round carries the state after it as its parent state.
  const next = chain.getTipSetByHeight(lookbackRound + 1n, base, false);
  return { tipSet: chain.loadTipSet(next.parents), stateRoot: next.parentStateRoot };
}

/** The highest round a miner may mine on `base`: beyond it the lookback would reach above the base. */
export function latestMineableRound(base: TipSet, chainFinality: bigint): bigint | undefined {
  return base.height === 0n ? undefined : base.height + chainFinality - 1n;
}
