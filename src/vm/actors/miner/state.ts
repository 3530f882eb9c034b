/**
 * Storage miner state with builtin-actors v18's exact CBOR shapes: the `State` tuple, `MinerInfo`,
 * `SectorOnChainInfo`, pre-commits, and the balance rules over them. Deadlines and partitions are
 * in `deadline.ts` and `partition.ts`.
 */
import { bitFieldKind } from '../../../ipld/index.js';
import { addressKind, declareStruct, kinds, type StructValue } from '../../../types/index.js';
import type { Mutable, StateCodec } from '../../runtime.js';
import { addressListKind, bytesListKind } from '../cbor.js';
import { vestingFundsKind } from '../vesting-funds.js';

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

/** builtin-actors `PendingBeneficiaryChange`: a beneficiary change both sides must approve. */
export const pendingBeneficiaryChangeStruct = declareStruct('PendingBeneficiaryChange', [
  { key: 'newBeneficiary', json: 'NewBeneficiary', kind: addressKind },
  { key: 'newQuota', json: 'NewQuota', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'newExpiration', json: 'NewExpiration', kind: kinds.int64, description: 'epoch' },
  { key: 'approvedByBeneficiary', json: 'ApprovedByBeneficiary', kind: kinds.bool },
  { key: 'approvedByNominee', json: 'ApprovedByNominee', kind: kinds.bool },
]);

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
  {
    key: 'pendingBeneficiaryTerm',
    json: 'PendingBeneficiaryTerm',
    kind: kinds.nullable(pendingBeneficiaryChangeStruct.kind),
  },
]);
export type MinerInfo = Mutable<StructValue<typeof minerInfoStruct>>;

export const decodeMinerInfo: (bytes: Uint8Array) => MinerInfo = minerInfoStruct.decode;

/**
 * builtin-actors `SectorOnChainInfo` (16 fields since FIP-0100). JSON names as go-state-types `builtin/v18/miner`. New sectors have no deal IDs and null for the three
 * deprecated reward fields; older ones keep what they hold.
 */
export const sectorOnChainInfoStruct = declareStruct('SectorOnChainInfo', [
  { key: 'sectorNumber', json: 'SectorNumber', kind: kinds.uint64 },
  { key: 'sealProof', json: 'SealProof', kind: kinds.int64 },
  { key: 'sealedCid', json: 'SealedCID', kind: kinds.cid },
  { key: 'deprecatedDealIds', json: 'DeprecatedDealIDs', kind: kinds.array(kinds.uint64) },
  { key: 'activation', json: 'Activation', kind: kinds.int64, description: 'epoch' },
  { key: 'expiration', json: 'Expiration', kind: kinds.int64, description: 'epoch' },
  { key: 'dealWeight', json: 'DealWeight', kind: kinds.bigInt, description: 'byte-epochs' },
  { key: 'verifiedDealWeight', json: 'VerifiedDealWeight', kind: kinds.bigInt, description: 'byte-epochs' },
  { key: 'initialPledge', json: 'InitialPledge', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'expectedDayReward', json: 'ExpectedDayReward', kind: kinds.nullable(kinds.bigInt) },
  { key: 'expectedStoragePledge', json: 'ExpectedStoragePledge', kind: kinds.nullable(kinds.bigInt) },
  { key: 'powerBaseEpoch', json: 'PowerBaseEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'replacedDayReward', json: 'ReplacedDayReward', kind: kinds.nullable(kinds.bigInt) },
  { key: 'sectorKeyCid', json: 'SectorKeyCID', kind: kinds.nullable(kinds.cid) },
  { key: 'flags', json: 'Flags', kind: kinds.uint64 },
  { key: 'dailyFee', json: 'DailyFee', kind: kinds.bigInt, description: 'attoFIL' },
]);
export type SectorOnChainInfo = StructValue<typeof sectorOnChainInfoStruct>;

/** SectorOnChainInfoFlags::SIMPLE_QA_POWER (FIP-0045). */
export const SECTOR_FLAG_SIMPLE_QA_POWER = 1n;

/**
 * builtin-actors v18 `actors/miner/src/state.rs` `State` (15 fields; JSON names as go-state-types
 * `builtin/v18/miner`). Collections behind the CIDs: pre-commits (HAMT, bit width 5, keyed by the
 * sector number's varint), their clean-up queue (AMT, bit width 6, quantized epoch → BitField), the
 * allocated sector numbers (one BitField block), sectors (AMT, bit width 5) and the 48 deadlines.
 */
export const minerStateStruct = declareStruct('MinerState', [
  { key: 'info', json: 'Info', kind: kinds.cid },
  { key: 'preCommitDeposits', json: 'PreCommitDeposits', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'lockedFunds', json: 'LockedFunds', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'vestingFunds', json: 'VestingFunds', kind: vestingFundsKind },
  { key: 'feeDebt', json: 'FeeDebt', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'initialPledge', json: 'InitialPledge', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'preCommittedSectors', json: 'PreCommittedSectors', kind: kinds.cid },
  { key: 'preCommittedSectorsCleanUp', json: 'PreCommittedSectorsCleanUp', kind: kinds.cid },
  { key: 'allocatedSectors', json: 'AllocatedSectors', kind: kinds.cid },
  { key: 'sectors', json: 'Sectors', kind: kinds.cid },
  { key: 'provingPeriodStart', json: 'ProvingPeriodStart', kind: kinds.int64, description: 'epoch' },
  { key: 'currentDeadline', json: 'CurrentDeadline', kind: kinds.uint64 },
  { key: 'deadlines', json: 'Deadlines', kind: kinds.cid },
  { key: 'earlyTerminations', json: 'EarlyTerminations', kind: bitFieldKind },
  { key: 'deadlineCronActive', json: 'DeadlineCronActive', kind: kinds.bool },
]);
export type MinerState = Mutable<StructValue<typeof minerStateStruct>>;

export const minerStateCodec: StateCodec<MinerState> = minerStateStruct;

/** Balance not locked in vesting, pre-commit deposits or pledge (builtin-actors `get_unlocked_balance`). */
export function unlockedBalance(state: MinerState, balance: bigint): bigint {
  return balance - state.lockedFunds - state.preCommitDeposits - state.initialPledge;
}

/** Unlocked balance less fee debt: what the owner may withdraw. */
export function availableBalance(state: MinerState, balance: bigint): bigint {
  return unlockedBalance(state, balance) - state.feeDebt;
}

/** The reason the balance invariants are broken, or undefined when they hold. */
export function balanceInvariantViolation(state: MinerState, balance: bigint): string | undefined {
  if (state.lockedFunds < 0n) return `locked funds is negative: ${state.lockedFunds}`;
  if (state.preCommitDeposits < 0n) return `pre-commit deposits are negative: ${state.preCommitDeposits}`;
  if (state.initialPledge < 0n) return `initial pledge is negative: ${state.initialPledge}`;
  if (state.feeDebt < 0n) return `fee debt is negative: ${state.feeDebt}`;
  const minimum = state.lockedFunds + state.preCommitDeposits + state.initialPledge;
  return balance < minimum ? `balance ${balance} below minimum ${minimum}` : undefined;
}
