/**
 * The lookback state of a round (Lotus `GetLookbackTipSetForRound`, filecoin-project/lotus
 * `chain/stmgr/utils.go`): the state a miner's worker key, power and winning PoSt sectors are read
 * from when it mines `round` — the state after the tipset `winningPoStLookback` epochs back. When
 * more null rounds than the lookback follow the base, the lookback is the base and its computed state.
 */
import type { CID } from 'multiformats/cid';
import type { ChainStore, TipSetStates } from '../chain/index.js';
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
  const distance = chain.params.winningPoStLookback;
  const lookbackRound = round > distance ? round - distance : 0n;
  if (lookbackRound >= base.height) return { tipSet: base, stateRoot: (await states.stateOf(base)).stateRoot };
  // The first tipset above the lookback round carries the state after it as its parent state.
  const next = chain.getTipSetByHeight(lookbackRound + 1n, base, false);
  return { tipSet: chain.loadTipSet(next.parents), stateRoot: next.parentStateRoot };
}
