/**
 * State queries with Lotus's semantics (filecoin-project/lotus `api/api_full.go`,
 * `node/impl/full/state.go`): every one reads the *parent* state of the tipset named (null or []
 * for the head), i.e. the state before that tipset's messages.
 */
import { assertStateAvailable } from '../../chain/snapshot/index.js';
import { StateTree } from '../../state/index.js';
import { type Actor, Address, AddressProtocol, type TipSetKey } from '../../types/index.js';
import { keyAddressOf, minerPower, powerState } from '../../vm/index.js';
import { actorResult, bigIntResult, tipSetKeyParam } from '../chain-codecs.js';
import type { ChainContext } from '../context.js';
import { JsonRpcError } from '../errors.js';
import { addressParam } from '../params.js';
import { addressResult, jsonResult } from '../results.js';
import { stringSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';
import { networkNameOf } from './state-network.js';

/**
 * Lotus's JSON-RPC code for `ErrActorNotFound` (filecoin-project/lotus `api/api_errors.go`,
 * StateLookupID).
 */
export const ACTOR_NOT_FOUND_CODE = 11;

export function actorNotFound(address: Address): JsonRpcError {
  return new JsonRpcError(ACTOR_NOT_FOUND_CODE, `actor not found: ${address}`);
}

/** The parent state of a tipset (null or [] for the head), as every State method reads it. */
export function stateTreeOf(chain: ChainContext, key: TipSetKey): StateTree {
  const tipSet = chain.store.tipSetOrHead(key);
  // A node started from a minimal snapshot lacks old state: say so, naming the oldest epoch it has.
  assertStateAvailable(chain.store, tipSet);
  return StateTree.load(chain.store.blockstore, tipSet.parentStateRoot);
}

export function actorAt(tree: StateTree, address: Address): Actor | undefined {
  const id = tree.lookupId(address);
  return id === undefined ? undefined : tree.getActor(id);
}

export const walletBalance = declareChainMethod({
  name: 'WalletBalance',
  description:
    'Returns an address\'s balance in attoFIL in the parent state of the head; "0" for an address with no actor.',
  permission: 'read',
  params: [addressParam('address', 'any address form')],
  result: bigIntResult('the balance in attoFIL'),
  handler: ([address], { chain }) => {
    return actorAt(StateTree.load(chain.store.blockstore, chain.store.head().parentStateRoot), address)?.balance ?? 0n;
  },
});

export const stateGetActor = declareChainMethod({
  name: 'StateGetActor',
  description: 'Returns the actor of an address in the parent state of a tipset; error code 11 when there is none.',
  permission: 'read',
  params: [addressParam('actor', 'the actor address'), tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: actorResult('the actor: code, state head, nonce, balance, delegated address'),
  handler: ([address, key], { chain }) => {
    const actor = actorAt(stateTreeOf(chain, key), address);
    if (actor === undefined) throw actorNotFound(address);
    return actor;
  },
});

export const stateLookupId = declareChainMethod({
  name: 'StateLookupID',
  description: 'Returns the ID address of an address; error code 11 `actor not found` when it has none.',
  permission: 'read',
  params: [
    addressParam('address', 'the address to resolve'),
    tipSetKeyParam('tsk', 'the tipset; null or [] for the head'),
  ],
  result: addressResult('the ID address (f0…/t0…)'),
  handler: ([address, key], { chain }) => {
    if (address.protocol === AddressProtocol.ID) return address;
    const id = stateTreeOf(chain, key).lookupId(address);
    if (id === undefined) throw new JsonRpcError(ACTOR_NOT_FOUND_CODE, 'actor not found');
    return Address.newId(id);
  },
});

export const stateAccountKey = declareChainMethod({
  name: 'StateAccountKey',
  description: 'Returns the public-key address (f1/f3/f4) of an account actor.',
  permission: 'read',
  params: [
    addressParam('address', 'an ID or key address'),
    tipSetKeyParam('tsk', 'the tipset; null or [] for the head'),
  ],
  result: addressResult('the key address'),
  handler: ([address, key], { chain }) => {
    const tree = stateTreeOf(chain, key);
    if (address.protocol === AddressProtocol.ID && tree.getActor(address.id()) === undefined) {
      throw actorNotFound(address);
    }
    return keyAddressOf(tree, address);
  },
});

export const stateNetworkName = declareChainMethod({
  name: 'StateNetworkName',
  description: "Returns the network's name, as the init actor records it.",
  permission: 'read',
  params: [],
  result: jsonResult<string>('networkName', 'the network name', stringSchema),
  handler: (_params, { chain }) => networkNameOf(chain),
});

export interface PowerPair {
  RawBytePower: string;
  QualityAdjPower: string;
}

const powerPairSchema = {
  type: 'object',
  properties: { RawBytePower: { type: 'string' }, QualityAdjPower: { type: 'string' } },
} as const;

export const stateMinerPower = declareChainMethod({
  name: 'StateMinerPower',
  description:
    "Returns a miner's raw and quality-adjusted power, the network's, and whether the miner meets the consensus minimum; zeros for an address without a power claim.",
  permission: 'read',
  params: [addressParam('miner', 'the miner address'), tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: jsonResult<{ MinerPower: PowerPair; TotalPower: PowerPair; HasMinPower: boolean }>(
    'minerPower',
    'Lotus MinerPower',
    {
      title: 'MinerPower',
      type: 'object',
      properties: { MinerPower: powerPairSchema, TotalPower: powerPairSchema, HasMinPower: { type: 'boolean' } },
    },
  ),
  handler: ([miner, key], { chain }) => {
    const tree = stateTreeOf(chain, key);
    const pair = (raw: bigint, qa: bigint): PowerPair => ({
      RawBytePower: raw.toString(),
      QualityAdjPower: qa.toString(),
    });
    // Lotus reads the claim without resolving the address first: no actor is no claim, not an error.
    const power = tree.lookupId(miner) === undefined ? undefined : minerPower(tree, miner, chain.params);
    if (power === undefined) {
      const state = powerState(tree);
      return {
        MinerPower: pair(0n, 0n),
        TotalPower: pair(state.totalRawBytePower, state.totalQualityAdjPower),
        HasMinPower: false,
      };
    }
    return {
      MinerPower: pair(power.miner.rawBytePower, power.miner.qualityAdjPower),
      TotalPower: pair(power.total.raw, power.total.qa),
      HasMinPower: power.hasMinPower,
    };
  },
});

export const stateMethods = [
  walletBalance,
  stateGetActor,
  stateLookupId,
  stateAccountKey,
  stateNetworkName,
  stateMinerPower,
];
