/**
 * The circulating supply the VM reports to actors (pledge, daily fees). Lotus computes
 * `FilVested + FilMined + FilReserveDisbursed − FilBurnt − FilLocked` from mainnet's vesting
 * schedules; a ledger network has no pre-launch vesting, so we count every token outside the
 * protocol's own holdings: the total supply less what the reward actor has not paid yet, the burnt
 * funds, the undistributed reserve (f090) and the pledge locked by miners.
 */

import { getBlock } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import {
  BURNT_FUNDS_ACTOR_ID,
  RESERVE_ACTOR_ID,
  REWARD_ACTOR_ID,
  STORAGE_POWER_ACTOR_ID,
  type StateTree,
} from '../state/index.js';
import { powerStateCodec } from './actors/power-state.js';

export function circulatingSupply(tree: StateTree, params: NetworkParams): bigint {
  const balance = (id: bigint) => tree.getActor(id)?.balance ?? 0n;
  const power = tree.getActor(STORAGE_POWER_ACTOR_ID);
  const pledge =
    power === undefined
      ? 0n
      : powerStateCodec.decode(getBlock(tree.store, power.head, 'power state')).totalPledgeCollateral;
  const supply =
    params.totalFilecoin -
    balance(REWARD_ACTOR_ID) -
    balance(BURNT_FUNDS_ACTOR_ID) -
    balance(RESERVE_ACTOR_ID) -
    pledge;
  return supply > 0n ? supply : 0n;
}
