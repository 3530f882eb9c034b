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
import type { CID } from 'multiformats/cid';
import { CborDecodeError } from '../../types/cbor.js';
import { decodeChainCbor } from '../../types/cbor-node.js';
import { type Address, encodeCbor } from '../../types/index.js';
import type { StateCodec } from '../runtime.js';
import {
  bigInt,
  type CborNode,
  readAddress,
  readArray,
  readBigInt,
  readBytes,
  readCid,
  readInt64,
  readTuple,
  readUint64,
} from './cbor.js';
import { readVestingFunds, type VestingFunds, vestingFundsToCborNode } from './vesting-funds.js';

/** The sectors AMT's bit width (builtin-actors SECTORS_AMT_BITWIDTH). */
export const SECTORS_AMT_BITWIDTH = 5;

export interface WorkerKeyChange {
  readonly newWorker: Address;
  readonly effectiveAt: bigint;
}

export interface BeneficiaryTerm {
  readonly quota: bigint;
  readonly usedQuota: bigint;
  readonly expiration: bigint;
}

/** builtin-actors `MinerInfo` (14 fields). Addresses are ID addresses. */
export interface MinerInfo {
  owner: Address;
  worker: Address;
  controlAddresses: Address[];
  pendingWorkerKey: WorkerKeyChange | null;
  peerId: Uint8Array;
  multiaddrs: Uint8Array[];
  windowPoStProofType: bigint;
  sectorSize: bigint;
  windowPoStPartitionSectors: bigint;
  consensusFaultElapsed: bigint;
  pendingOwnerAddress: Address | null;
  beneficiary: Address;
  beneficiaryTerm: BeneficiaryTerm;
  /** Always null: beneficiary changes are not implemented. Kept for the tuple's shape. */
  pendingBeneficiaryTerm: null;
}

function readNullableAddress(node: CborNode, path: string): Address | null {
  return node === null ? null : readAddress(node, path);
}

export function encodeMinerInfo(info: MinerInfo): Uint8Array {
  return encodeCbor([
    info.owner.bytes,
    info.worker.bytes,
    info.controlAddresses.map((a) => a.bytes),
    info.pendingWorkerKey === null ? null : [info.pendingWorkerKey.newWorker.bytes, info.pendingWorkerKey.effectiveAt],
    info.peerId,
    info.multiaddrs,
    info.windowPoStProofType,
    info.sectorSize,
    info.windowPoStPartitionSectors,
    info.consensusFaultElapsed,
    info.pendingOwnerAddress?.bytes ?? null,
    info.beneficiary.bytes,
    [bigInt(info.beneficiaryTerm.quota), bigInt(info.beneficiaryTerm.usedQuota), info.beneficiaryTerm.expiration],
    null,
  ]);
}

export function decodeMinerInfo(bytes: Uint8Array): MinerInfo {
  const p = 'MinerInfo';
  const f = readTuple(decodeChainCbor(bytes, p), p, 14);
  const pending = f[3] === null ? null : readTuple(f[3], `${p}.PendingWorkerKey`, 2);
  const term = readTuple(f[12], `${p}.BeneficiaryTerm`, 3);
  if (f[13] !== null) throw new CborDecodeError(`${p}.PendingBeneficiaryTerm: beneficiary changes are not supported`);
  return {
    owner: readAddress(f[0], `${p}.Owner`),
    worker: readAddress(f[1], `${p}.Worker`),
    controlAddresses: readArray(f[2], `${p}.ControlAddresses`, readAddress),
    pendingWorkerKey:
      pending === null
        ? null
        : {
            newWorker: readAddress(pending[0], `${p}.PendingWorkerKey.NewWorker`),
            effectiveAt: readInt64(pending[1], `${p}.PendingWorkerKey.EffectiveAt`),
          },
    peerId: readBytes(f[4], `${p}.PeerId`),
    multiaddrs: readArray(f[5], `${p}.Multiaddrs`, readBytes),
    windowPoStProofType: readInt64(f[6], `${p}.WindowPoStProofType`),
    sectorSize: readUint64(f[7], `${p}.SectorSize`),
    windowPoStPartitionSectors: readUint64(f[8], `${p}.WindowPoStPartitionSectors`),
    consensusFaultElapsed: readInt64(f[9], `${p}.ConsensusFaultElapsed`),
    pendingOwnerAddress: readNullableAddress(f[10], `${p}.PendingOwnerAddress`),
    beneficiary: readAddress(f[11], `${p}.Beneficiary`),
    beneficiaryTerm: {
      quota: readBigInt(term[0], `${p}.BeneficiaryTerm.Quota`),
      usedQuota: readBigInt(term[1], `${p}.BeneficiaryTerm.UsedQuota`),
      expiration: readInt64(term[2], `${p}.BeneficiaryTerm.Expiration`),
    },
    pendingBeneficiaryTerm: null,
  };
}

/** builtin-actors `SectorOnChainInfo` as new sectors are written since FIP-0100 (16 fields). */
export interface SectorOnChainInfo {
  readonly sectorNumber: bigint;
  readonly sealProof: bigint;
  readonly sealedCid: CID;
  readonly activation: bigint;
  readonly expiration: bigint;
  readonly dealWeight: bigint;
  readonly verifiedDealWeight: bigint;
  readonly initialPledge: bigint;
  readonly powerBaseEpoch: bigint;
  readonly flags: bigint;
  readonly dailyFee: bigint;
}

/** SectorOnChainInfoFlags::SIMPLE_QA_POWER (FIP-0045). */
export const SECTOR_FLAG_SIMPLE_QA_POWER = 1n;

export function sectorOnChainInfoToCborNode(sector: SectorOnChainInfo): CborNode[] {
  return [
    sector.sectorNumber,
    sector.sealProof,
    sector.sealedCid,
    [],
    sector.activation,
    sector.expiration,
    bigInt(sector.dealWeight),
    bigInt(sector.verifiedDealWeight),
    bigInt(sector.initialPledge),
    null,
    null,
    sector.powerBaseEpoch,
    null,
    null,
    sector.flags,
    bigInt(sector.dailyFee),
  ];
}

export function sectorOnChainInfoFromCborNode(node: CborNode, path = 'SectorOnChainInfo'): SectorOnChainInfo {
  const f = readTuple(node, path, 16);
  return {
    sectorNumber: readUint64(f[0], `${path}.SectorNumber`),
    sealProof: readInt64(f[1], `${path}.SealProof`),
    sealedCid: readCid(f[2], `${path}.SealedCID`),
    activation: readInt64(f[4], `${path}.Activation`),
    expiration: readInt64(f[5], `${path}.Expiration`),
    dealWeight: readBigInt(f[6], `${path}.DealWeight`),
    verifiedDealWeight: readBigInt(f[7], `${path}.VerifiedDealWeight`),
    initialPledge: readBigInt(f[8], `${path}.InitialPledge`),
    powerBaseEpoch: readInt64(f[11], `${path}.PowerBaseEpoch`),
    flags: readUint64(f[14], `${path}.Flags`),
    dailyFee: readBigInt(f[15], `${path}.DailyFee`),
  };
}

export interface MinerState {
  info: CID;
  lockedFunds: bigint;
  vestingFunds: VestingFunds;
  feeDebt: bigint;
  initialPledge: bigint;
  /** AMT (bit width 5) of SectorOnChainInfo by sector number. */
  sectors: CID;
  provingPeriodStart: bigint;
}

export const minerStateCodec: StateCodec<MinerState> = {
  decode(bytes) {
    const p = 'MinerState';
    const f = readTuple(decodeChainCbor(bytes, p), p, 7);
    return {
      info: readCid(f[0], `${p}.Info`),
      lockedFunds: readBigInt(f[1], `${p}.LockedFunds`),
      vestingFunds: readVestingFunds(f[2], `${p}.VestingFunds`),
      feeDebt: readBigInt(f[3], `${p}.FeeDebt`),
      initialPledge: readBigInt(f[4], `${p}.InitialPledge`),
      sectors: readCid(f[5], `${p}.Sectors`),
      provingPeriodStart: readInt64(f[6], `${p}.ProvingPeriodStart`),
    };
  },
  encode: (s) =>
    encodeCbor([
      s.info,
      bigInt(s.lockedFunds),
      vestingFundsToCborNode(s.vestingFunds),
      bigInt(s.feeDebt),
      bigInt(s.initialPledge),
      s.sectors,
      s.provingPeriodStart,
    ]),
};

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
