/**
 * Read-only views of actor state for the rest of the node (consensus, mining, RPC): key addresses,
 * miner info, sectors, pre-commits, deadlines and partitions, the pledge inputs Lotus's estimators
 * read, power and mining eligibility. They charge no gas and change nothing.
 */
import { Amt, BitField, bitFieldKind, getBlock } from '../ipld/index.js';
import type { MinerPolicy, NetworkParams } from '../params/index.js';
import {
  actorNameOf,
  REWARD_ACTOR_ID,
  STORAGE_POWER_ACTOR_ID,
  StateError,
  StateErrorCode,
  type StateTree,
} from '../state/index.js';
import type { CborNode } from '../types/cbor-node.js';
import { Address, AddressProtocol, decodeCbor } from '../types/index.js';
import { accountStateCodec } from './actors/account.js';
import type { Deadline } from './actors/miner/deadline.js';
import { quantSpecForDeadline } from './actors/miner/deadline-info.js';
import { Deadlines } from './actors/miner/deadlines.js';
import { ExpirationQueue } from './actors/miner/expiration-queue.js';
import type { PledgeInputs } from './actors/miner/monies.js';
import type { Partition } from './actors/miner/partition.js';
import { getPrecommittedSector, type SectorPreCommitOnChainInfo } from './actors/miner/precommits.js';
import { Sectors } from './actors/miner/sectors.js';
import {
  decodeMinerInfo,
  type MinerInfo,
  type MinerState,
  minerStateCodec,
  type SectorOnChainInfo,
  sectorOnChainInfoStruct,
} from './actors/miner/state.js';
import { type MultisigState, multisigStateCodec } from './actors/multisig.js';
import {
  type Claim,
  getClaim,
  loadClaims,
  meetsConsensusMinimum,
  type PowerState,
  powerStateCodec,
} from './actors/power-state.js';
import { rewardStateCodec } from './actors/reward-state.js';
import { loadVestingFunds } from './actors/vesting-funds.js';
import { circulatingSupply } from './circulating-supply.js';
import { VmError, VmErrorCode } from './errors.js';

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

/** A multisig's balance and state (Lotus `multisig.Load`); an error for any other actor. */
export function multisigBalanceAndState(tree: StateTree, msig: Address): { balance: bigint; state: MultisigState } {
  const actor = requireActorOfType(tree, resolve(tree, msig), 'multisig');
  return {
    balance: actor.balance,
    state: multisigStateCodec.decode(getBlock(tree.store, actor.head, 'multisig state')),
  };
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

/**
 * The miner's active sectors by number: proven, not faulty, not terminated — the set winning PoSt
 * draws from (Lotus `GetSectorsForWinningPoSt`, `miner.AllPartSectors(mas, Partition.ActiveSectors)`).
 */
export function minerSectors(tree: StateTree, miner: Address): SectorOnChainInfo[] {
  const active = BitField.unionAll(minerAllPartitions(tree, miner).map((partition) => partition.activeSectors()));
  return active.isEmpty() ? [] : minerAllSectors(tree, miner, active);
}

/**
 * Every sector of the miner in number order, or those numbered in `selection` (Lotus
 * `chain/actors/builtin/miner/v18.go` LoadSectors): a selected number with no sector is an error.
 */
export function minerAllSectors(tree: StateTree, miner: Address, selection?: BitField): SectorOnChainInfo[] {
  const root = minerState(tree, miner).sectors;
  if (selection === undefined) {
    return Array.from(Amt.load(tree.store, root).values(), (value) =>
      sectorOnChainInfoStruct.fromCborNode(value as CborNode),
    );
  }
  const sectors = Sectors.load(tree.store, root);
  return Array.from(selection.values(), (sectorNumber) => {
    const info = sectors.get(sectorNumber);
    if (info === undefined) {
      throw new VmError(VmErrorCode.InvalidInput, `failed to load sectors: can't find sector ${sectorNumber}`);
    }
    return info;
  });
}

/** One sector of the miner, or undefined when it has none of that number. */
export function minerSector(tree: StateTree, miner: Address, sectorNumber: bigint): SectorOnChainInfo | undefined {
  return Sectors.load(tree.store, minerState(tree, miner).sectors).get(sectorNumber);
}

/** The pre-commit of a sector number, or undefined when none is pending. */
export function minerPreCommit(
  tree: StateTree,
  miner: Address,
  sectorNumber: bigint,
): SectorPreCommitOnChainInfo | undefined {
  return getPrecommittedSector(tree.store, minerState(tree, miner), sectorNumber);
}

/** The sector numbers the miner has used up (pre-committed once, whatever became of them). */
export function minerAllocatedSectors(tree: StateTree, miner: Address): BitField {
  const root = minerState(tree, miner).allocatedSectors;
  return bitFieldKind.fromCbor(
    decodeCbor(getBlock(tree.store, root, 'allocated sectors')) as CborNode,
    'AllocatedSectors',
  );
}

function loadDeadlines(tree: StateTree, state: MinerState): Deadlines {
  return Deadlines.load(tree.store, state.deadlines);
}

/** The miner's deadlines, in index order. */
export function minerDeadlines(tree: StateTree, miner: Address): Deadline[] {
  return Array.from(loadDeadlines(tree, minerState(tree, miner)).entries(tree.store), ([, deadline]) => deadline);
}

/** How many window PoSts of a deadline's previous window may still be disputed (Lotus `DisputableProofCount`). */
export function disputableProofCount(tree: StateTree, deadline: Deadline): number {
  return Amt.load(tree.store, deadline.optimisticPoStSubmissionsSnapshot).count;
}

/** The partitions of deadline `index`, in order; an index past the last deadline is an error. */
export function minerPartitions(tree: StateTree, miner: Address, index: bigint): Partition[] {
  const deadline = loadDeadlines(tree, minerState(tree, miner)).loadDeadline(tree.store, index);
  return Array.from(deadline.forEachPartition(tree.store), ([, partition]) => partition);
}

/** Every partition of the miner, deadline by deadline. */
export function minerAllPartitions(tree: StateTree, miner: Address): Partition[] {
  return minerDeadlines(tree, miner).flatMap((deadline) =>
    Array.from(deadline.forEachPartition(tree.store), ([, partition]) => partition),
  );
}

/** The deadline and partition holding a sector (terminated ones included); an error when none does. */
export function minerSectorLocation(
  tree: StateTree,
  miner: Address,
  sectorNumber: bigint,
): { deadline: bigint; partition: bigint } {
  return loadDeadlines(tree, minerState(tree, miner)).findSector(tree.store, sectorNumber);
}

/**
 * When a sector leaves its partition's expiration queue (Lotus `chain/actors/builtin/miner/v18.go`
 * GetSectorExpiration): `onTime` at its scheduled expiration, `early` at the termination a fault
 * scheduled (0 when none); undefined when no partition holds the sector live in its queue.
 */
export function minerSectorExpiration(
  tree: StateTree,
  miner: Address,
  sectorNumber: bigint,
  policy: MinerPolicy,
): { onTime: bigint; early: bigint } | undefined {
  const state = minerState(tree, miner);
  for (const [deadlineIndex, deadline] of loadDeadlines(tree, state).entries(tree.store)) {
    for (const [, partition] of deadline.forEachPartition(tree.store)) {
      if (!partition.sectors.has(sectorNumber)) continue;
      if (partition.terminated.has(sectorNumber)) return undefined;
      const quant = quantSpecForDeadline(policy, state.provingPeriodStart, deadlineIndex);
      const found = { onTime: 0n, early: 0n };
      for (const [epoch, set] of ExpirationQueue.load(tree.store, partition.expirationsEpochs, quant).entries()) {
        if (set.earlySectors.has(sectorNumber)) found.early = epoch;
        else if (set.onTimeSectors.has(sectorNumber)) {
          found.onTime = epoch;
          break;
        }
      }
      return found.onTime === 0n && found.early === 0n ? undefined : found;
    }
  }
  return undefined;
}

/**
 * The miner's vesting entries due before `epoch` that its state has not unlocked yet (go-state-types
 * `builtin/v18/miner` CheckVestedFunds): Lotus adds them to the available balance.
 */
export function minerVestedFunds(tree: StateTree, state: MinerState, epoch: bigint): bigint {
  let vested = 0n;
  for (const fund of loadVestingFunds(tree.store, state.vestingFunds)) {
    if (fund.epoch >= epoch) break;
    vested += fund.amount;
  }
  return vested;
}

/**
 * What Lotus's pledge and deposit estimators read from the state at a tipset of height `height`
 * (filecoin-project/lotus `node/impl/full/state.go` pledgeCalculationInputs, getPledgeRampParams):
 * the reward actor's smoothed reward and baseline, the power actor's smoothed QA power, the
 * circulating supply, and the pledge ramp counted from `height`, or 0 of 0 before a ramp starts.
 */
export function estimatorPledgeInputs(tree: StateTree, height: bigint, params: NetworkParams): PledgeInputs {
  const rewardActor = requireActorOfType(tree, REWARD_ACTOR_ID, 'reward');
  const reward = rewardStateCodec.decode(getBlock(tree.store, rewardActor.head, 'reward state'));
  const power = powerState(tree);
  const rampStarted = power.rampStartEpoch > 0n;
  return {
    rewardEstimate: reward.thisEpochRewardSmoothed,
    baselinePower: reward.thisEpochBaselinePower,
    networkQaPowerEstimate: power.thisEpochQaPowerSmoothed,
    circulatingSupply: circulatingSupply(tree, params),
    epochsSinceRampStart: rampStarted ? height - power.rampStartEpoch : 0n,
    rampDurationEpochs: rampStarted ? power.rampDurationEpochs : 0n,
  };
}

/** The miners with a power claim, in the claims HAMT's order (Lotus `StateListMiners`). */
export function listMiners(tree: StateTree): Address[] {
  return Array.from(loadClaims(tree.store, powerState(tree)).entries(), ([key]) => Address.fromBytes(key));
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
