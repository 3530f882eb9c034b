/**
 * The circulating supply (filecoin-project/lotus `api/api_full.go`, `chain/stmgr/supply.go`), in
 * Lotus's two forms: the exact sum over every actor's balance (StateCirculatingSupply) and the
 * parts the VM's figure is made of (StateVMCirculatingSupplyInternal).
 */
import { getBlock } from '../../ipld/index.js';
import {
  actorNameOf,
  BURNT_FUNDS_ACTOR_ID,
  CRON_ACTOR_ID,
  DATACAP_TOKEN_ACTOR_ID,
  EAM_ACTOR_ID,
  INIT_ACTOR_ID,
  RESERVE_ACTOR_ID,
  REWARD_ACTOR_ID,
  STORAGE_POWER_ACTOR_ID,
  StateTree,
  SYSTEM_ACTOR_ID,
  VERIFIED_REGISTRY_ACTOR_ID,
} from '../../state/index.js';
import { bigIntSchema, bigIntToLotusJson } from '../../types/index.js';
import {
  amountLocked,
  availableBalance,
  circulatingSupply,
  minerStateCodec,
  multisigStateCodec,
  powerStateCodec,
  unlockedBalance,
} from '../../vm/index.js';
import { bigIntResult, tipSetKeyParam } from '../chain-codecs.js';
import type { ChainContext } from '../context.js';
import { jsonResult } from '../results.js';
import { declareChainMethod } from './chain.js';
import { failCall, parentStateOf } from './state-miner-common.js';

/** The protocol's own actors: their balances never circulate (Lotus's list; SAFT f0122 has no actor here). */
const PROTOCOL_ACTOR_IDS = new Set([
  INIT_ACTOR_ID,
  REWARD_ACTOR_ID,
  VERIFIED_REGISTRY_ACTOR_ID,
  STORAGE_POWER_ACTOR_ID,
  SYSTEM_ACTOR_ID,
  CRON_ACTOR_ID,
  BURNT_FUNDS_ACTOR_ID,
  RESERVE_ACTOR_ID,
  EAM_ACTOR_ID,
  DATACAP_TOKEN_ACTOR_ID,
]);

/**
 * Lotus `GetCirculatingSupply`: every actor's balance is circulating or not — the protocol's
 * actors' not, accounts' entirely, a miner's except what is locked (vesting, pre-commit deposits,
 * pledge, fee debt), a multisig's except what its vesting still locks at `height` — and the two
 * sums must make the total supply.
 */
function exactCirculatingSupply(tree: StateTree, height: bigint, totalFilecoin: bigint): bigint {
  let circulating = 0n;
  let locked = 0n;
  for (const [id, actor] of tree.actors()) {
    const balance = actor.balance;
    if (balance === 0n) continue;
    if (PROTOCOL_ACTOR_IDS.has(id)) {
      locked += balance;
      continue;
    }
    const name = actorNameOf(actor.code);
    if (name === 'account' || name === 'placeholder' || name === 'ethaccount') {
      circulating += balance;
    } else if (name === 'storageminer') {
      const state = minerStateCodec.decode(getBlock(tree.store, actor.head, 'miner state'));
      // A miner whose balance is below what it must hold: Lotus counts all of it as locked.
      const available = unlockedBalance(state, balance) < 0n ? 0n : availableBalance(state, balance);
      circulating += available;
      locked += balance - available;
    } else if (name === 'multisig') {
      const state = multisigStateCodec.decode(getBlock(tree.store, actor.head, 'multisig state'));
      const vesting = amountLocked(state, height - state.startEpoch);
      const free = balance > vesting ? balance - vesting : 0n;
      circulating += free;
      locked += balance - free;
    } else {
      failCall(`unexpected actor: f0${id}`);
    }
  }
  if (circulating + locked !== totalFilecoin) {
    failCall(`total filecoin didn't add to expected amount: ${circulating + locked} != ${totalFilecoin}`);
  }
  return circulating;
}

/** Lotus `api.CirculatingSupply`. */
export interface CirculatingSupplyJson {
  FilVested: string;
  FilMined: string;
  FilBurnt: string;
  FilLocked: string;
  FilCirculating: string;
  FilReserveDisbursed: string;
}

/**
 * The parts of the VM's circulating supply (vm/circulating-supply.ts), named as Lotus's
 * `GetVMCirculatingSupplyDetailed` names them: the genesis allocations outside the reward actor
 * and the reserve (vested from genesis: a ledger network has no vesting schedules), what the
 * reward actor has paid since genesis, what the reserve has paid, the burnt funds and the pledge.
 * Lotus reads FilMined from the reward state's TotalStoragePowerReward and the reserve's start
 * from a constant; taking both from the genesis state makes the parts add up to the VM's figure.
 */
function vmCirculatingSupply(chain: ChainContext, tree: StateTree): CirculatingSupplyJson {
  const genesis = StateTree.load(chain.store.blockstore, chain.store.genesis.parentStateRoot);
  const balance = (state: StateTree, id: bigint) => state.getActor(id)?.balance ?? 0n;
  const power = tree.getActor(STORAGE_POWER_ACTOR_ID);
  const pledge =
    power === undefined
      ? 0n
      : powerStateCodec.decode(getBlock(tree.store, power.head, 'power state')).totalPledgeCollateral;
  const json = bigIntToLotusJson;
  return {
    FilVested: json(
      chain.params.totalFilecoin - balance(genesis, REWARD_ACTOR_ID) - balance(genesis, RESERVE_ACTOR_ID),
    ),
    FilMined: json(balance(genesis, REWARD_ACTOR_ID) - balance(tree, REWARD_ACTOR_ID)),
    FilBurnt: json(balance(tree, BURNT_FUNDS_ACTOR_ID)),
    FilLocked: json(pledge),
    FilCirculating: json(circulatingSupply(tree, chain.params)),
    FilReserveDisbursed: json(balance(genesis, RESERVE_ACTOR_ID) - balance(tree, RESERVE_ACTOR_ID)),
  };
}

const tipSetParam = tipSetKeyParam('tsk', 'the tipset; null or [] for the head');

export const stateCirculatingSupply = declareChainMethod({
  name: 'StateCirculatingSupply',
  description:
    "Returns the exact circulating supply in the parent state of a tipset: every actor's balance less what the protocol holds and what miners and vesting multisigs have locked (for external use; the VM uses StateVMCirculatingSupplyInternal's figure).",
  permission: 'read',
  expensive: true,
  params: [tipSetParam],
  result: bigIntResult('attoFIL'),
  handler: ([key], { chain }) => {
    const { tipSet, tree } = parentStateOf(chain, key);
    return exactCirculatingSupply(tree, tipSet.height, chain.params.totalFilecoin);
  },
});

export const stateVmCirculatingSupplyInternal = declareChainMethod({
  name: 'StateVMCirculatingSupplyInternal',
  description:
    'Returns the circulating supply the VM reports to actors at a tipset (FilCirculating) and its parts: FilVested + FilMined + FilReserveDisbursed − FilBurnt − FilLocked. FilMined is what the reward actor has paid since genesis.',
  permission: 'read',
  params: [tipSetParam],
  result: jsonResult<CirculatingSupplyJson>('circulatingSupply', 'Lotus CirculatingSupply', {
    title: 'CirculatingSupply',
    type: 'object',
    properties: Object.fromEntries(
      ['FilVested', 'FilMined', 'FilBurnt', 'FilLocked', 'FilCirculating', 'FilReserveDisbursed'].map((name) => [
        name,
        bigIntSchema,
      ]),
    ),
  }),
  handler: ([key], { chain }) => vmCirculatingSupply(chain, parentStateOf(chain, key).tree),
});

export const stateSupplyMethods = [stateCirculatingSupply, stateVmCirculatingSupplyInternal];
