/**
 * Storage miner actor (builtin-actors `actors/miner`), for what this node supports: creation with
 * the FIP-0077 deposit, owner/worker/control addresses, pre-sealed genesis sectors with their
 * pledge and power, block rewards (75% vesting over 180 days, penalties burnt), withdrawals and
 * worker key changes. Window PoSt, faults, terminations and sealing new sectors are out of scope;
 * see `miner-state.ts` for the state this leaves.
 */
import { Amt, getBlock } from '../../ipld/index.js';
import {
  BURNT_FUNDS_ACTOR_ID,
  INIT_ACTOR_ID,
  putCborBytes,
  REWARD_ACTOR_ID,
  STORAGE_POWER_ACTOR_ID,
  SYSTEM_ACTOR_ID,
} from '../../state/index.js';
import {
  Address,
  AddressProtocol,
  addressKind,
  declareStruct,
  encodeCbor,
  kinds,
  type StructValue,
} from '../../types/index.js';
import { ExitCode } from '../exit-code.js';
import { AccountMethod, METHOD_SEND, MinerMethod, PowerMethod, RewardMethod } from '../methods.js';
import type { Runtime } from '../runtime.js';
import { callForReturn, decodeParams, defineActor, encodeReturn, extractSendResult } from './actor.js';
import { addressListKind, bigInt, filterEstimateStruct } from './cbor.js';
import { bigMin } from './math.js';
import {
  applyRewardParams,
  currentTotalPowerReturn,
  minerConstructorParams,
  thisEpochRewardReturn,
  updateClaimedPowerParams,
} from './method-params.js';
import {
  createMinerDeposit,
  dailyProofFee,
  initialPledgeForPower,
  lockedRewardFromReward,
  type PledgeInputs,
} from './miner-monies.js';
import {
  currentProvingPeriodStart,
  EPOCH_UNDEFINED,
  MAX_CONTROL_ADDRESSES,
  MAX_MULTIADDR_DATA,
  MAX_PEER_ID_LENGTH,
  provingPeriodOffset,
  qaPowerForWeight,
  REWARD_VESTING_SPEC,
  sectorSizeOfSealProof,
  sectorSizeOfWindowPoStProof,
  windowPoStPartitionSectors,
} from './miner-policy.js';
import {
  availableBalance,
  balanceInvariantViolation,
  decodeMinerInfo,
  type MinerInfo,
  type MinerState,
  minerInfoStruct,
  minerStateCodec,
  SECTOR_FLAG_SIMPLE_QA_POWER,
  SECTORS_AMT_BITWIDTH,
  type SectorOnChainInfo,
  sectorOnChainInfoStruct,
  unlockedBalance,
} from './miner-state.js';
import { addLockedFunds, unlockVestedAndUnvestedFunds, unlockVestedFunds } from './vesting-funds.js';

/** The miner's balance no longer covers what it has locked (builtin-actors ERR_BALANCE_INVARIANTS_BROKEN). */
const ERR_BALANCE_INVARIANTS_BROKEN = 1000;

/**
 * A pre-sealed sector as genesis hands it to `InternalSectorSetupForPreseal`; `verifiedDeal`: whether
 * its data counts as verified deals (Lotus genesis marks pre-seal deals verified).
 */
const preSealedSectorStruct = declareStruct('PreSealedSector', [
  { key: 'sectorNumber', json: 'SectorNumber', kind: kinds.uint64 },
  { key: 'sealProof', json: 'SealProof', kind: kinds.int64 },
  { key: 'sealedCid', json: 'SealedCID', kind: kinds.cid },
  { key: 'expiration', json: 'Expiration', kind: kinds.int64, description: 'epoch' },
  { key: 'verifiedDeal', json: 'VerifiedDeal', kind: kinds.bool },
]);
export type PreSealedSector = StructValue<typeof preSealedSectorStruct>;

/**
 * Our `InternalSectorSetupForPreseal` (method 17) params. builtin-actors' version lists sector
 * numbers of pre-commits; with no pre-commit step here, it carries the sectors themselves.
 */
const presealSetupParams = declareStruct('InternalSectorSetupForPresealParams', [
  { key: 'sectors', json: 'Sectors', kind: kinds.array(preSealedSectorStruct.kind) },
  { key: 'rewardSmoothed', json: 'RewardSmoothed', kind: filterEstimateStruct.kind },
  { key: 'rewardBaselinePower', json: 'RewardBaselinePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qualityAdjPowerSmoothed', json: 'QualityAdjPowerSmoothed', kind: filterEstimateStruct.kind },
]);
export type PresealSetupParams = StructValue<typeof presealSetupParams>;
export const encodePresealSetupParams = presealSetupParams.encode;

/** The account actor's PubkeyAddress return: a bare address. */
const pubkeyAddressReturn = { name: 'PubkeyAddressReturn', fromCborNode: addressKind.fromCbor };

/** builtin-actors `GetControlAddressesReturn`. */
const controlAddressesReturn = declareStruct('GetControlAddressesReturn', [
  { key: 'owner', json: 'Owner', kind: addressKind },
  { key: 'worker', json: 'Worker', kind: addressKind },
  { key: 'controlAddresses', json: 'ControlAddrs', kind: addressListKind },
]);

/** builtin-actors `ChangeWorkerAddressParams`. */
export const changeWorkerAddressParams = declareStruct('ChangeWorkerAddressParams', [
  { key: 'newWorker', json: 'NewWorker', kind: addressKind },
  { key: 'newControlAddresses', json: 'NewControlAddrs', kind: addressListKind },
]);

/** builtin-actors `WithdrawBalanceParams`. */
export const withdrawBalanceParams = declareStruct('WithdrawBalanceParams', [
  { key: 'amountRequested', json: 'AmountRequested', kind: kinds.bigInt, description: 'attoFIL' },
]);

function minerInfo(rt: Runtime, state: MinerState): MinerInfo {
  return decodeMinerInfo(getBlock(rt.store, state.info, 'miner info'));
}

function checkBalanceInvariants(rt: Runtime, state: MinerState): void {
  const violation = balanceInvariantViolation(state, rt.currentBalance());
  if (violation !== undefined) rt.abort(ERR_BALANCE_INVARIANTS_BROKEN, `balance invariants broken: ${violation}`);
}

function burnFunds(rt: Runtime, amount: bigint): void {
  if (amount > 0n)
    extractSendResult(rt.send(Address.newId(BURNT_FUNDS_ACTOR_ID), METHOD_SEND, null, amount), 'burning funds');
}

function notifyPledgeChanged(rt: Runtime, delta: bigint): void {
  if (delta === 0n) return;
  extractSendResult(
    rt.send(Address.newId(STORAGE_POWER_ACTOR_ID), PowerMethod.UpdatePledgeTotal, encodeCbor(bigInt(delta)), 0n),
    'updating pledge total',
  );
}

/** Resolves a worker address: it must be an account with a BLS key (the worker signs VRFs). */
function resolveWorkerAddress(rt: Runtime, raw: Address): bigint {
  const id = rt.resolveAddress(raw);
  if (id === undefined) rt.abort(ExitCode.UsrIllegalArgument, `unable to resolve address: ${raw}`);
  const type = rt.getActorType(id);
  if (type !== 'account') rt.abort(ExitCode.UsrIllegalArgument, `worker actor type must be an account, was ${type}`);
  if (raw.protocol !== AddressProtocol.BLS) {
    const key = callForReturn(rt, id, AccountMethod.PubkeyAddress, pubkeyAddressReturn, 'PubkeyAddress');
    if (key.protocol !== AddressProtocol.BLS) {
      rt.abort(ExitCode.UsrIllegalArgument, `worker account f0${id} must have BLS pubkey, was ${key.protocol}`);
    }
  }
  return id;
}

function resolveControlAddresses(rt: Runtime, addresses: readonly Address[]): Address[] {
  if (addresses.length > MAX_CONTROL_ADDRESSES) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `control addresses length ${addresses.length} exceeds ${MAX_CONTROL_ADDRESSES}`,
    );
  }
  return addresses.map((address) => {
    const id = rt.resolveAddress(address);
    if (id === undefined) rt.abort(ExitCode.UsrIllegalArgument, `unable to resolve control address: ${address}`);
    return Address.newId(id);
  });
}

function checkPeerInfo(rt: Runtime, peerId: Uint8Array, multiaddrs: readonly Uint8Array[]): void {
  if (peerId.length > MAX_PEER_ID_LENGTH) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `peer ID size of ${peerId.length} exceeds maximum size of ${MAX_PEER_ID_LENGTH}`,
    );
  }
  let total = 0;
  for (const multiaddr of multiaddrs) {
    if (multiaddr.length === 0) rt.abort(ExitCode.UsrIllegalArgument, 'invalid empty multiaddr');
    total += multiaddr.length;
  }
  if (total > MAX_MULTIADDR_DATA) {
    rt.abort(ExitCode.UsrIllegalArgument, `multiaddr size of ${total} exceeds maximum of ${MAX_MULTIADDR_DATA}`);
  }
}

/** The reward and power actors' current estimates, for pledge calculations. */
function currentPledgeInputs(rt: Runtime): PledgeInputs {
  const reward = callForReturn(
    rt,
    REWARD_ACTOR_ID,
    RewardMethod.ThisEpochReward,
    thisEpochRewardReturn,
    'failed to check epoch reward',
  );
  const power = callForReturn(
    rt,
    STORAGE_POWER_ACTOR_ID,
    PowerMethod.CurrentTotalPower,
    currentTotalPowerReturn,
    'failed to check current power',
  );
  return {
    rewardEstimate: reward.thisEpochRewardSmoothed,
    baselinePower: reward.thisEpochBaselinePower,
    networkQaPowerEstimate: power.qualityAdjPowerSmoothed,
    circulatingSupply: rt.totalFilCirculatingSupply(),
    epochsSinceRampStart: rt.epoch - power.rampStartEpoch,
    rampDurationEpochs: power.rampDurationEpochs,
  };
}

function construct(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, minerConstructorParams);
  rt.validateImmediateCallerIs(INIT_ACTOR_ID);
  checkPeerInfo(rt, p.peerId, p.multiaddrs);
  const proof = Number(p.windowPoStProofType);
  const sectorSize = sectorSizeOfWindowPoStProof(proof);
  const partitionSectors = windowPoStPartitionSectors(proof);
  if (
    !rt.networkParams.windowPoStProofTypes.includes(proof) ||
    sectorSize === undefined ||
    partitionSectors === undefined
  ) {
    rt.abort(ExitCode.UsrIllegalArgument, `proof type ${proof} not allowed for new miner actors`);
  }
  const deposit = createMinerDeposit(rt.networkParams.consensusMinerMinPower, currentPledgeInputs(rt));
  const balance = rt.currentBalance();
  if (balance < deposit) {
    rt.abort(
      ExitCode.UsrInsufficientFunds,
      `not enough balance to lock for create miner deposit: sent balance ${balance} < deposit ${deposit}`,
    );
  }
  const owner = rt.resolveAddress(p.owner);
  if (owner === undefined) rt.abort(ExitCode.UsrIllegalArgument, `unable to resolve owner address: ${p.owner}`);
  const worker = resolveWorkerAddress(rt, p.worker);
  const controlAddresses = resolveControlAddresses(rt, p.controlAddresses);

  const offset = provingPeriodOffset(encodeCbor(Address.newId(rt.receiver).bytes), rt.epoch, (data) =>
    rt.hashBlake2b(data),
  );
  const provingPeriodStart = currentProvingPeriodStart(rt.epoch, offset);
  const info: MinerInfo = {
    owner: Address.newId(owner),
    worker: Address.newId(worker),
    controlAddresses,
    pendingWorkerKey: null,
    peerId: p.peerId,
    multiaddrs: p.multiaddrs,
    windowPoStProofType: p.windowPoStProofType,
    sectorSize,
    windowPoStPartitionSectors: partitionSectors,
    consensusFaultElapsed: EPOCH_UNDEFINED,
    pendingOwnerAddress: null,
    beneficiary: Address.newId(owner),
    beneficiaryTerm: { quota: 0n, usedQuota: 0n, expiration: 0n },
    pendingBeneficiaryTerm: null,
  };
  const state: MinerState = {
    info: putCborBytes(rt.store, minerInfoStruct.encode(info)),
    lockedFunds: 0n,
    vestingFunds: null,
    feeDebt: 0n,
    initialPledge: 0n,
    sectors: Amt.create(rt.store, { bitWidth: SECTORS_AMT_BITWIDTH }).flush(),
    provingPeriodStart,
  };
  lockFunds(rt, state, deposit);
  rt.createState(minerStateCodec, state);
  return null;
}

/** Adds `amount` to the vesting table and locked funds; returns what had already vested and was unlocked. */
function lockFunds(rt: Runtime, state: MinerState, amount: bigint): bigint {
  const { funds, unlocked } = addLockedFunds(
    rt.store,
    state.vestingFunds,
    rt.epoch,
    amount,
    state.provingPeriodStart,
    REWARD_VESTING_SPEC,
  );
  state.vestingFunds = funds;
  state.lockedFunds = state.lockedFunds - unlocked + amount;
  return unlocked;
}

function controlAddresses(rt: Runtime): Uint8Array {
  rt.validateImmediateCallerAcceptAny();
  const info = minerInfo(rt, rt.state(minerStateCodec));
  return controlAddressesReturn.encode(info);
}

function changeWorkerAddress(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, changeWorkerAddressParams);
  const newWorker = Address.newId(resolveWorkerAddress(rt, p.newWorker));
  const control = resolveControlAddresses(rt, p.newControlAddresses);
  rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    rt.validateImmediateCallerIs(info.owner.id());
    info.controlAddresses = control;
    if (!newWorker.equals(info.worker) && info.pendingWorkerKey === null) {
      info.pendingWorkerKey = { newWorker, effectiveAt: rt.epoch + rt.networkParams.workerKeyChangeDelay };
    }
    state.info = putCborBytes(rt.store, minerInfoStruct.encode(info));
  });
  return null;
}

function confirmChangeWorkerAddress(rt: Runtime): null {
  rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    rt.validateImmediateCallerIs(info.owner.id());
    const pending = info.pendingWorkerKey;
    if (pending === null || rt.epoch < pending.effectiveAt) return;
    info.worker = pending.newWorker;
    info.pendingWorkerKey = null;
    state.info = putCborBytes(rt.store, minerInfoStruct.encode(info));
  });
  return null;
}

/**
 * builtin-actors `repay_partial_debt_in_priority_order`: pays fee debt from locked funds (vested,
 * then soonest-vesting), then from the unlocked balance; what cannot be paid stays as debt.
 */
function repayPartialDebt(rt: Runtime, state: MinerState): { toBurn: bigint; totalUnlocked: bigint } {
  let totalUnlocked = 0n;
  if (state.feeDebt !== 0n && state.lockedFunds !== 0n) {
    const unlocked = unlockVestedAndUnvestedFunds(rt.store, state.vestingFunds, rt.epoch, state.feeDebt);
    state.vestingFunds = unlocked.funds;
    totalUnlocked = unlocked.vested + unlocked.unvested;
    state.lockedFunds -= totalUnlocked;
  }
  const unlocked = unlockedBalance(state, rt.currentBalance());
  const toBurn = bigMin(unlocked, state.feeDebt);
  state.feeDebt -= toBurn;
  return { toBurn, totalUnlocked };
}

function applyRewards(rt: Runtime, params: Uint8Array | null): null {
  const { reward, penalty } = decodeParams(params, applyRewardParams);
  if (reward < 0n) rt.abort(ExitCode.UsrIllegalArgument, 'cannot lock up a negative amount of funds');
  if (penalty < 0n) rt.abort(ExitCode.UsrIllegalArgument, 'cannot penalize a negative amount of funds');
  const { pledgeDelta, toBurn } = rt.transaction(minerStateCodec, (state) => {
    rt.validateImmediateCallerIs(REWARD_ACTOR_ID);
    const toLock = lockedRewardFromReward(reward);
    const unlocked = unlockedBalance(state, rt.currentBalance());
    if (unlocked < toLock) {
      rt.abort(
        ExitCode.UsrInsufficientFunds,
        `insufficient funds to lock, available: ${unlocked}, requested: ${toLock}`,
      );
    }
    const newlyVested = lockFunds(rt, state, toLock);
    state.feeDebt += penalty;
    const { toBurn, totalUnlocked } = repayPartialDebt(rt, state);
    return { pledgeDelta: toLock - newlyVested - totalUnlocked, toBurn };
  });
  notifyPledgeChanged(rt, pledgeDelta);
  burnFunds(rt, toBurn);
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  return null;
}

function withdrawBalance(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const requested = decodeParams(params, withdrawBalanceParams).amountRequested;
  if (requested < 0n) rt.abort(ExitCode.UsrIllegalArgument, `negative fund requested for withdrawal: ${requested}`);
  const { beneficiary, withdrawn, newlyVested, feeToBurn } = rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    rt.validateImmediateCallerIs(info.owner.id(), info.beneficiary.id());
    const vested = unlockVestedFunds(rt.store, state.vestingFunds, rt.epoch);
    state.vestingFunds = vested.funds;
    state.lockedFunds -= vested.unlocked;
    const available = availableBalance(state, rt.currentBalance());
    if (unlockedBalance(state, rt.currentBalance()) < state.feeDebt) {
      rt.abort(ExitCode.UsrInsufficientFunds, `unlocked balance can not repay fee debt (${state.feeDebt})`);
    }
    const feeToBurn = state.feeDebt;
    state.feeDebt = 0n;
    const withdrawn = bigMin(available, requested);
    if (withdrawn < 0n) rt.abort(ExitCode.UsrIllegalState, `negative amount to withdraw: ${withdrawn}`);
    return { beneficiary: info.beneficiary, withdrawn, newlyVested: vested.unlocked, feeToBurn };
  });
  if (withdrawn > 0n) extractSendResult(rt.send(beneficiary, METHOD_SEND, null, withdrawn), 'withdrawing balance');
  burnFunds(rt, feeToBurn);
  notifyPledgeChanged(rt, -newlyVested);
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  return encodeReturn(bigInt(withdrawn));
}

/**
 * Genesis only (the system actor calls it): activates pre-sealed sectors, locks their initial
 * pledge from the miner's balance, and claims their power at once (builtin-actors activates power
 * at the first window PoSt; genesis miners in Lotus get theirs through UpdateClaimedPower too).
 */
function internalSectorSetupForPreseal(rt: Runtime, params: Uint8Array | null): null {
  const setup = decodeParams(params, presealSetupParams);
  rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
  const inputs: PledgeInputs = {
    baselinePower: setup.rewardBaselinePower,
    rewardEstimate: setup.rewardSmoothed,
    networkQaPowerEstimate: setup.qualityAdjPowerSmoothed,
    circulatingSupply: rt.totalFilCirculatingSupply(),
    epochsSinceRampStart: 0n,
    rampDurationEpochs: 0n,
  };
  const { pledge, raw, qa } = rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    const sectors = Amt.load(rt.store, state.sectors);
    let pledge = 0n;
    let qa = 0n;
    for (const sector of setup.sectors) {
      if (sectorSizeOfSealProof(Number(sector.sealProof)) !== info.sectorSize) {
        rt.abort(
          ExitCode.UsrIllegalArgument,
          `sector ${sector.sectorNumber}: seal proof ${sector.sealProof} does not match the miner's sector size`,
        );
      }
      if (sectors.has(sector.sectorNumber))
        rt.abort(ExitCode.UsrIllegalArgument, `sector ${sector.sectorNumber} already exists`);
      const duration = sector.expiration - rt.epoch;
      if (duration <= 0n)
        rt.abort(ExitCode.UsrIllegalArgument, `sector ${sector.sectorNumber} expires at ${sector.expiration}`);
      const spaceTime = info.sectorSize * duration;
      const verifiedDealWeight = sector.verifiedDeal ? spaceTime : 0n;
      const power = qaPowerForWeight(info.sectorSize, duration, verifiedDealWeight);
      const initialPledge = initialPledgeForPower(power, inputs);
      const onChain: SectorOnChainInfo = {
        sectorNumber: sector.sectorNumber,
        sealProof: sector.sealProof,
        sealedCid: sector.sealedCid,
        activation: rt.epoch,
        expiration: sector.expiration,
        dealWeight: sector.verifiedDeal ? 0n : spaceTime,
        verifiedDealWeight,
        initialPledge,
        powerBaseEpoch: rt.epoch,
        flags: SECTOR_FLAG_SIMPLE_QA_POWER,
        dailyFee: dailyProofFee(inputs.circulatingSupply, power),
      };
      sectors.set(sector.sectorNumber, sectorOnChainInfoStruct.toCborNode(onChain));
      pledge += initialPledge;
      qa += power;
    }
    if (unlockedBalance(state, rt.currentBalance()) < pledge) {
      rt.abort(ExitCode.UsrInsufficientFunds, `insufficient funds for aggregate initial pledge requirement ${pledge}`);
    }
    state.initialPledge += pledge;
    state.sectors = sectors.flush();
    return { pledge, raw: info.sectorSize * BigInt(setup.sectors.length), qa };
  });
  notifyPledgeChanged(rt, pledge);
  extractSendResult(
    rt.send(
      Address.newId(STORAGE_POWER_ACTOR_ID),
      PowerMethod.UpdateClaimedPower,
      updateClaimedPowerParams.encode({ rawByteDelta: raw, qualityAdjustedDelta: qa }),
      0n,
    ),
    'claiming pre-sealed power',
  );
  return null;
}

export const minerActor = defineActor('storageminer', MinerMethod, {
  Constructor: construct,
  ControlAddresses: controlAddresses,
  ChangeWorkerAddress: changeWorkerAddress,
  ConfirmChangeWorkerAddress: confirmChangeWorkerAddress,
  ApplyRewards: applyRewards,
  WithdrawBalance: withdrawBalance,
  InternalSectorSetupForPreseal: internalSectorSetupForPreseal,
});
