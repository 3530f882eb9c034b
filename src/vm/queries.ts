/**
 * Read-only views of actor state for the rest of the node (consensus, mining, RPC): key addresses,
 * miner info, sectors, power and mining eligibility. They charge no gas and change nothing.
 */
import { Amt, getBlock } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import { actorNameOf, STORAGE_POWER_ACTOR_ID, StateError, StateErrorCode, type StateTree } from '../state/index.js';
import type { CborNode } from '../types/cbor-node.js';
import { Address, AddressProtocol } from '../types/index.js';
import { accountStateCodec } from './actors/account.js';
import {
  decodeMinerInfo,
  type MinerInfo,
  type MinerState,
  minerStateCodec,
  type SectorOnChainInfo,
  sectorOnChainInfoStruct,
} from './actors/miner-state.js';
import {
  type Claim,
  getClaim,
  loadClaims,
  meetsConsensusMinimum,
  type PowerState,
  powerStateCodec,
} from './actors/power-state.js';

function requireActorOfType(tree: StateTree, id: bigint, type: string) {
  const actor = tree.requireActor(id, `reading ${type} state`);
  if (actorNameOf(actor.code) !== type) {
    throw new StateError(StateErrorCode.InvalidState, `actor f0${id} is not a ${type} (code ${actor.code})`);
  }
  return actor;
}

function resolve(tree: StateTree, address: Address): bigint {
  const id = tree.lookupId(address);
  if (id === undefined) throw new StateError(StateErrorCode.ActorNotFound, `address ${address} not found in the state`);
  return id;
}

/**
 * The key address that signs for `address` (Lotus `ResolveToDeterministicAddress`): key and
 * delegated addresses are their own; an ID address is resolved through its account's state or its
 * delegated address.
 */
export function keyAddressOf(tree: StateTree, address: Address): Address {
  if (address.protocol !== AddressProtocol.ID) return address;
  const actor = tree.requireActor(address.id(), 'resolving a key address');
  if (actorNameOf(actor.code) === 'account') {
    return accountStateCodec.decode(getBlock(tree.store, actor.head, 'account state')).address;
  }
  if (actor.delegatedAddress !== null) return actor.delegatedAddress;
  throw new StateError(StateErrorCode.InvalidState, `${address} is not an account and has no key address`);
}

export function powerState(tree: StateTree): PowerState {
  const actor = requireActorOfType(tree, STORAGE_POWER_ACTOR_ID, 'storagepower');
  return powerStateCodec.decode(getBlock(tree.store, actor.head, 'power state'));
}

export function minerState(tree: StateTree, miner: Address): MinerState {
  const actor = requireActorOfType(tree, resolve(tree, miner), 'storageminer');
  return minerStateCodec.decode(getBlock(tree.store, actor.head, 'miner state'));
}

export function minerInfo(tree: StateTree, miner: Address): MinerInfo {
  return decodeMinerInfo(getBlock(tree.store, minerState(tree, miner).info, 'miner info'));
}

/** The miner's sectors by number; all of them prove (there are no faults here). */
export function minerSectors(tree: StateTree, miner: Address): SectorOnChainInfo[] {
  const sectors = Amt.load(tree.store, minerState(tree, miner).sectors);
  return Array.from(sectors.values(), (value) => sectorOnChainInfoStruct.fromCborNode(value as CborNode));
}

export interface MinerPower {
  readonly miner: Claim;
  /** The network total consensus uses (Lotus `TotalPower`). */
  readonly total: { readonly raw: bigint; readonly qa: bigint };
  /** Lotus `HasMinPower`: the miner's raw power meets the consensus minimum. */
  readonly hasMinPower: boolean;
}

/** A miner's claim and the network's power (Lotus `StateMinerPower`); undefined without a claim. */
export function minerPower(tree: StateTree, miner: Address, params: NetworkParams): MinerPower | undefined {
  const state = powerState(tree);
  const claim = getClaim(loadClaims(tree.store, state), Address.newId(resolve(tree, miner)));
  if (claim === undefined) return undefined;
  return {
    miner: claim,
    total: { raw: state.totalRawBytePower, qa: state.totalQualityAdjPower },
    hasMinPower: meetsConsensusMinimum(state, claim, params.consensusMinerMinPower),
  };
}

/**
 * Lotus `MinerEligibleToMine`: the miner met the consensus minimum in the lookback state, and in the
 * base state it still has quality-adjusted power, owes no fee debt and is past any consensus fault.
 */
export function minerEligibleToMine(
  lookback: StateTree,
  base: StateTree,
  baseEpoch: bigint,
  miner: Address,
  params: NetworkParams,
): boolean {
  if (!minerPower(lookback, miner, params)?.hasMinPower) return false;
  const claim = minerPower(base, miner, params)?.miner;
  if (claim === undefined || claim.qualityAdjPower <= 0n) return false;
  const state = minerState(base, miner);
  if (state.feeDebt !== 0n) return false;
  return baseEpoch > decodeMinerInfo(getBlock(base.store, state.info, 'miner info')).consensusFaultElapsed;
}
