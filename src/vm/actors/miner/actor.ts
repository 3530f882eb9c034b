/**
 * The storage miner actor (builtin-actors v18 `actors/miner`): its method table, and the methods that
 * concern the miner itself — creation with the FIP-0077 deposit, owner, worker and control addresses,
 * block rewards (75% vesting over 180 days, penalties burnt) and withdrawals. The sector lifecycle is in
 * its own modules: `onboarding.ts` (pre-commit, prove-commit, genesis set-up), `window-post.ts`,
 * `faults.ts`, `terminate-sectors.ts`, `extension.ts`, `compaction.ts` and `deadline-cron.ts`; the
 * state they share in `state.ts`, `precommits.ts`, `proving-state.ts`, `deadline.ts` and `partition.ts`.
 */
import { INIT_ACTOR_ID, putCborBytes, REWARD_ACTOR_ID } from '../../../state/index.js';
import { Address, AddressProtocol, addressKind, declareStruct, encodeCbor, kinds } from '../../../types/index.js';
import { ExitCode } from '../../exit-code.js';
import { AccountMethod, METHOD_SEND, MinerMethod } from '../../methods.js';
import type { Runtime } from '../../runtime.js';
import { callForReturn, decodeParams, defineActor, encodeReturn, extractSendResult } from '../actor.js';
import { addressListKind, bigInt } from '../cbor.js';
import { bigMin } from '../math.js';
import { applyRewardParams, minerConstructorParams } from '../method-params.js';
import { compactPartitions } from './compaction.js';
import { onDeferredCronEvent } from './deadline-cron.js';
import { currentDeadlineIndex, currentProvingPeriodStart, provingPeriodOffset } from './deadline-info.js';
import { extendSectorExpiration2 } from './extension.js';
import { declareFaults, declareFaultsRecovered } from './faults.js';
import { lockFunds, repayDebtsOrAbort, repayPartialDebt, unlockVestedFundsNow } from './funds.js';
import { createMinerDeposit, lockedRewardFromReward } from './monies.js';
import { internalSectorSetupForPreseal, preCommitSectorBatch2, proveCommitSectors3 } from './onboarding.js';
import {
  EPOCH_UNDEFINED,
  MAX_CONTROL_ADDRESSES,
  MAX_MULTIADDR_DATA,
  MAX_PEER_ID_LENGTH,
  sectorSizeOfWindowPoStProof,
  windowPoStPartitionSectors,
} from './policy.js';
import { newMinerState } from './proving-state.js';
import { burnFunds, checkBalanceInvariants, currentPledgeInputs, minerInfo, notifyPledgeChanged } from './sends.js';
import { availableBalance, type MinerInfo, minerInfoStruct, minerStateCodec, unlockedBalance } from './state.js';
import { terminateSectors } from './terminate-sectors.js';
import { disputeWindowedPoSt, submitWindowedPoSt } from './window-post.js';

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

  const policy = rt.networkParams.minerPolicy;
  const offset = provingPeriodOffset(policy, encodeCbor(Address.newId(rt.receiver).bytes), rt.epoch, (data) =>
    rt.hashBlake2b(data),
  );
  const provingPeriodStart = currentProvingPeriodStart(policy, rt.epoch, offset);
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
  const periodStartCheck = provingPeriodStart;
  if (periodStartCheck > rt.epoch) {
    rt.abort(
      ExitCode.UsrIllegalState,
      `computed proving period start ${provingPeriodStart} after current epoch ${rt.epoch}`,
    );
  }
  const deadlineIndex = currentDeadlineIndex(policy, rt.epoch, provingPeriodStart);
  if (deadlineIndex >= policy.wPoStPeriodDeadlines) {
    rt.abort(ExitCode.UsrIllegalState, `computed proving deadline index ${deadlineIndex} invalid`);
  }
  const state = newMinerState(
    rt.store,
    policy,
    putCborBytes(rt.store, minerInfoStruct.encode(info)),
    provingPeriodStart,
    deadlineIndex,
  );
  lockFunds(rt, state, deposit);
  rt.createState(minerStateCodec, state);
  return null;
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
    if (!state.earlyTerminations.isEmpty()) {
      rt.abort(
        ExitCode.UsrForbidden,
        `cannot withdraw funds while ${state.earlyTerminations.size} deadlines have terminated sectors with outstanding fees`,
      );
    }
    const newlyVested = unlockVestedFundsNow(rt, state);
    const available = availableBalance(state, rt.currentBalance());
    const feeToBurn = repayDebtsOrAbort(rt, state);
    const withdrawn = bigMin(available, requested);
    if (withdrawn < 0n) rt.abort(ExitCode.UsrIllegalState, `negative amount to withdraw: ${withdrawn}`);
    return { beneficiary: info.beneficiary, withdrawn, newlyVested, feeToBurn };
  });
  if (withdrawn > 0n) extractSendResult(rt.send(beneficiary, METHOD_SEND, null, withdrawn), 'withdrawing balance');
  burnFunds(rt, feeToBurn);
  notifyPledgeChanged(rt, -newlyVested);
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  return encodeReturn(bigInt(withdrawn));
}

export const minerActor = defineActor('storageminer', MinerMethod, {
  Constructor: construct,
  ControlAddresses: controlAddresses,
  ChangeWorkerAddress: changeWorkerAddress,
  ConfirmChangeWorkerAddress: confirmChangeWorkerAddress,
  ApplyRewards: applyRewards,
  WithdrawBalance: withdrawBalance,
  InternalSectorSetupForPreseal: internalSectorSetupForPreseal,
  PreCommitSectorBatch2: preCommitSectorBatch2,
  ProveCommitSectors3: proveCommitSectors3,
  SubmitWindowedPoSt: submitWindowedPoSt,
  DisputeWindowedPoSt: disputeWindowedPoSt,
  DeclareFaults: declareFaults,
  DeclareFaultsRecovered: declareFaultsRecovered,
  TerminateSectors: terminateSectors,
  ExtendSectorExpiration2: extendSectorExpiration2,
  CompactPartitions: compactPartitions,
  OnDeferredCronEvent: onDeferredCronEvent,
});
