/**
 * Tipset application on a genesis state (no chain store) with the 2k parameters, for the state
 * machine tests: blocks of miner t01000 at epochs on GENESIS_TIMESTAMP's grid.
 */
import type { CID } from 'multiformats/cid';
import type { MemoryBlockstore } from '../../src/ipld/index.js';
import type { Message, SignedMessage } from '../../src/types/index.js';
import { applyTipset, type RandomnessSource, type TipsetApplication, type TipsetBlock } from '../../src/vm/index.js';
import { GENESIS_TIMESTAMP, MINER, PARAMS } from './genesis.js';

/** Applies one tipset at `epoch` (parent `epoch − 1`) with the 2k parameters. */
export function applyAt(
  chain: { store: MemoryBlockstore },
  root: CID,
  epoch: bigint,
  blocks: readonly TipsetBlock[],
  options: { baseFee?: bigint; trace?: boolean; parentEpoch?: bigint; randomness?: RandomnessSource } = {},
): Promise<TipsetApplication> {
  return applyTipset(
    chain.store,
    root,
    {
      epoch,
      parentEpoch: options.parentEpoch ?? epoch - 1n,
      baseFee: options.baseFee ?? PARAMS.minimumBaseFee,
      timestamp: GENESIS_TIMESTAMP + epoch * PARAMS.blockDelaySecs,
      genesisTimestamp: GENESIS_TIMESTAMP,
      blocks,
      randomness: options.randomness,
    },
    { networkParams: PARAMS, trace: options.trace ?? false },
  );
}

/** One block from MINER with these secp messages (and BLS messages), WinCount 1. */
export function block(secpMessages: readonly SignedMessage[], blsMessages: readonly Message[] = []): TipsetBlock {
  return { miner: MINER, winCount: 1n, blsMessages, secpMessages };
}
