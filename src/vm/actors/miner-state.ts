/**
 * Storage miner state. `MinerInfo`, `SectorOnChainInfo` and the vesting table have builtin-actors'
 * exact CBOR shapes (v18). The miner state itself is ledger-node's own, smaller tuple:
 *
 *   [Info, LockedFunds, VestingFunds, FeeDebt, InitialPledge, Sectors, ProvingPeriodStart]
 *
 * builtin-actors' state also holds pre-commits, deadlines, partitions and termination queues;
 * those serve window PoSt, faults, pre-commit/prove-commit and terminations, which this node does
 * not implement, so they are absent rather than kept empty. Every sector is in the proving set.
 */
import { CborDecodeError } from '../../types/cbor.js';
import {
  addressKind,
  declareStruct,
  type FieldKind,
  JsonDecodeError,
  kinds,
  type StructValue,
} from '../../types/index.js';
import type { Mutable, StateCodec } from '../runtime.js';
import { addressListKind, bytesListKind } from './cbor.js';
import { vestingFundsKind } from './vesting-funds.js';

/** The sectors AMT's bit width (builtin-actors SECTORS_AMT_BITWIDTH). */
export const SECTORS_AMT_BITWIDTH = 5;

/** builtin-actors `WorkerKeyChange`. */
export const workerKeyChangeStruct = declareStruct('WorkerKeyChange', [
  { key: 'newWorker', json: 'NewWorker', kind: addressKind },
  { key: 'effectiveAt', json: 'EffectiveAt', kind: kinds.int64, description: 'epoch' },
]);

/** builtin-actors `BeneficiaryTerm`. */
export const beneficiaryTermStruct = declareStruct('BeneficiaryTerm', [
  { key: 'quota', json: 'Quota', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'usedQuota', json: 'UsedQuota', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'expiration', json: 'Expiration', kind: kinds.int64, description: 'epoch' },
]);

/**
 * Always null: beneficiary changes are not implemented, so a pending term (builtin-actors
 * `PendingBeneficiaryChange`) is refused on input rather than half-understood. Kept for the tuple's shape.
 */
const noPendingBeneficiaryTerm: FieldKind<null, null> = {
  toCbor: () => null,
  fromCbor: (node, path) => {
    if (node !== null) throw new CborDecodeError(`${path}: beneficiary changes are not supported`);
    return null;
  },
  toJson: () => null,
  fromJson: (json, path) => {
    if (json !== undefined && json !== null)
      throw new JsonDecodeError(`${path}: beneficiary changes are not supported`);
    return null;
  },
  schema: { type: 'null' },
};

/**
 * builtin-actors `actors/miner/src/types.rs` `MinerInfo` (14 fields; JSON names as go-state-types
 * `builtin/v16/miner` `MinerInfo`). Addresses are ID addresses.
 */
export const minerInfoStruct = declareStruct('MinerInfo', [
  { key: 'owner', json: 'Owner', kind: addressKind },
  { key: 'worker', json: 'Worker', kind: addressKind },
  { key: 'controlAddresses', json: 'ControlAddresses', kind: addressListKind },
  { key: 'pendingWorkerKey', json: 'PendingWorkerKey', kind: kinds.nullable(workerKeyChangeStruct.kind) },
  { key: 'peerId', json: 'PeerId', kind: kinds.bytes },
  { key: 'multiaddrs', json: 'Multiaddrs', kind: bytesListKind },
  { key: 'windowPoStProofType', json: 'WindowPoStProofType', kind: kinds.int64 },
  { key: 'sectorSize', json: 'SectorSize', kind: kinds.uint64, description: 'bytes' },
  { key: 'windowPoStPartitionSectors', json: 'WindowPoStPartitionSectors', kind: kinds.uint64 },
  { key: 'consensusFaultElapsed', json: 'ConsensusFaultElapsed', kind: kinds.int64, description: 'epoch' },
  { key: 'pendingOwnerAddress', json: 'PendingOwnerAddress', kind: kinds.nullable(addressKind) },
  { key: 'beneficiary', json: 'Beneficiary', kind: addressKind },
  { key: 'beneficiaryTerm', json: 'BeneficiaryTerm', kind: beneficiaryTermStruct.kind },
  { key: 'pendingBeneficiaryTerm', json: 'PendingBeneficiaryTerm', kind: noPendingBeneficiaryTerm },
]);
export type MinerInfo = Mutable<StructValue<typeof minerInfoStruct>>;

export const decodeMinerInfo: (bytes: Uint8Array) => MinerInfo = minerInfoStruct.decode;

/** An empty list, written where builtin-actors has a field this node never fills (a sector's deal IDs). */
const emptyList: FieldKind<void, null> = {
  toCbor: () => [],
  fromCbor: () => undefined,
  toJson: () => null,
  fromJson: () => undefined,
  schema: { type: ['array', 'null'], maxItems: 0 },
};

/** A null, written where builtin-actors has an optional field this node never fills. */
const alwaysNull: FieldKind<void, null> = {
  toCbor: () => null,
  fromCbor: () => undefined,
  toJson: () => null,
  fromJson: () => undefined,
  schema: { type: 'null' },
};

/**
 * builtin-actors `SectorOnChainInfo` as new sectors are written since FIP-0100 (16 fields; JSON
 * names as go-state-types `builtin/v16/miner`). DealIDs, ExpectedDayReward, ExpectedStoragePledge,
 * ReplacedDayReward and SectorKeyCID are written empty (no deals, no upgrades here) and not read.
 */
export const sectorOnChainInfoStruct = declareStruct('SectorOnChainInfo', [
  { key: 'sectorNumber', json: 'SectorNumber', kind: kinds.uint64 },
  { key: 'sealProof', json: 'SealProof', kind: kinds.int64 },
  { key: 'sealedCid', json: 'SealedCID', kind: kinds.cid },
  { json: 'DealIDs', kind: emptyList },
  { key: 'activation', json: 'Activation', kind: kinds.int64, description: 'epoch' },
  { key: 'expiration', json: 'Expiration', kind: kinds.int64, description: 'epoch' },
  { key: 'dealWeight', json: 'DealWeight', kind: kinds.bigInt, description: 'byte-epochs' },
  { key: 'verifiedDealWeight', json: 'VerifiedDealWeight', kind: kinds.bigInt, description: 'byte-epochs' },
  { key: 'initialPledge', json: 'InitialPledge', kind: kinds.bigInt, description: 'attoFIL' },
  { json: 'ExpectedDayReward', kind: alwaysNull },
  { json: 'ExpectedStoragePledge', kind: alwaysNull },
  { key: 'powerBaseEpoch', json: 'PowerBaseEpoch', kind: kinds.int64, description: 'epoch' },
  { json: 'ReplacedDayReward', kind: alwaysNull },
  { json: 'SectorKeyCID', kind: alwaysNull },
  { key: 'flags', json: 'Flags', kind: kinds.uint64 },
  { key: 'dailyFee', json: 'DailyFee', kind: kinds.bigInt, description: 'attoFIL' },
]);
export type SectorOnChainInfo = StructValue<typeof sectorOnChainInfoStruct>;

/** SectorOnChainInfoFlags::SIMPLE_QA_POWER (FIP-0045). */
export const SECTOR_FLAG_SIMPLE_QA_POWER = 1n;

/**
 * The miner state: ledger-node's own tuple (see the header), in the JSON style of the others.
 * Sectors: AMT (bit width 5) of SectorOnChainInfo by sector number.
 */
export const minerStateStruct = declareStruct('MinerState', [
  { key: 'info', json: 'Info', kind: kinds.cid },
  { key: 'lockedFunds', json: 'LockedFunds', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'vestingFunds', json: 'VestingFunds', kind: vestingFundsKind },
  { key: 'feeDebt', json: 'FeeDebt', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'initialPledge', json: 'InitialPledge', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'sectors', json: 'Sectors', kind: kinds.cid },
  { key: 'provingPeriodStart', json: 'ProvingPeriodStart', kind: kinds.int64, description: 'epoch' },
]);
export type MinerState = Mutable<StructValue<typeof minerStateStruct>>;

export const minerStateCodec: StateCodec<MinerState> = minerStateStruct;

/** Balance not locked in vesting or pledge (builtin-actors `get_unlocked_balance`). */
export function unlockedBalance(state: MinerState, balance: bigint): bigint {
  return balance - state.lockedFunds - state.initialPledge;
}

/** Unlocked balance less fee debt: what the owner may withdraw. */
export function availableBalance(state: MinerState, balance: bigint): bigint {
  return unlockedBalance(state, balance) - state.feeDebt;
}

/** The reason the balance invariants are broken, or undefined when they hold. */
export function balanceInvariantViolation(state: MinerState, balance: bigint): string | undefined {
  if (state.lockedFunds < 0n) return `locked funds is negative: ${state.lockedFunds}`;
  if (state.initialPledge < 0n) return `initial pledge is negative: ${state.initialPledge}`;
  if (state.feeDebt < 0n) return `fee debt is negative: ${state.feeDebt}`;
  const minimum = state.lockedFunds + state.initialPledge;
  return balance < minimum ? `balance ${balance} below minimum ${minimum}` : undefined;
}
