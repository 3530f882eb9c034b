/**
 * Bringing sectors on chain (builtin-actors v18 `actors/miner/src/lib.rs`): PreCommitSectorBatch2
 * locks a deposit for each sector's sealed CID, ProveCommitSectors3 verifies each PoRep and turns
 * the pre-commits into sectors with pledge in a deadline, unproven and without power until the
 * deadline's first window PoSt, and InternalSectorSetupForPreseal does the same at genesis without
 * proofs. Committed-capacity sectors only: deals, verified allocations and data notifications are
 * refused where builtin-actors would send them to the market or the verified registry (this chain
 * has neither actor).
 */
import type { CID } from 'multiformats/cid';
import { DomainSeparationTag } from '../../../crypto/index.js';
import { BitField } from '../../../ipld/index.js';
import { FIL_COMMITMENT_SEALED, FIL_COMMITMENT_UNSEALED, zeroCommDCid } from '../../../proofs/index.js';
import { SYSTEM_ACTOR_ID } from '../../../state/index.js';
import { Address, declareStruct, encodeCbor, kinds } from '../../../types/index.js';
import { ExitCode } from '../../exit-code.js';
import type { Runtime, SealVerifyInfo } from '../../runtime.js';
import { decodeParams } from '../actor.js';
import { filterEstimateStruct } from '../cbor.js';
import { repayDebtsOrAbort } from './funds.js';
import { dailyProofFee, initialPledgeForPower, type PledgeInputs, preCommitDepositForPower } from './monies.js';
import {
  type BatchReturn,
  batchReturnStruct,
  CronEventType,
  preCommitSectorBatch2Params,
  proveCommitSectors3Params,
  type SectorPreCommitInfo,
} from './params.js';
import {
  EXPIRED_PRE_COMMIT_CLEAN_UP_DELAY,
  MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK,
  MAX_SECTOR_EXPIRATION_EXTENSION,
  MIN_SECTOR_EXPIRATION,
  maxProveCommitDuration,
  PRE_COMMIT_SECTOR_BATCH_MAX_SIZE,
  qaPowerForWeight,
  qaPowerMax,
  sealProofSectorMaximumLifetime,
  sealProofSize,
  windowPoStProofOfSealProof,
} from './policy.js';
import {
  addPreCommitCleanUps,
  allocateSectorNumbers,
  deletePrecommittedSectors,
  findPrecommittedSectors,
  getPrecommittedSectors,
  putPrecommittedSectors,
  type SectorPreCommitOnChainInfo,
} from './precommits.js';
import { assignSectorsToDeadlines, deadlineInfoNow } from './proving-state.js';
import { MAX_SECTOR_NUMBER, Sectors } from './sectors.js';
import {
  burnFunds,
  checkBalanceInvariants,
  currentPledgeInputs,
  enrollCronEvent,
  minerInfo,
  notifyPledgeChanged,
  validateCallerIsControl,
} from './sends.js';
import {
  type MinerInfo,
  minerStateCodec,
  SECTOR_FLAG_SIMPLE_QA_POWER,
  type SectorOnChainInfo,
  unlockedBalance,
} from './state.js';

/** builtin-actors `InternalSectorSetupForPresealParams`: pre-committed sectors genesis activates. */
export const internalSectorSetupForPresealParams = declareStruct('InternalSectorSetupForPresealParams', [
  { key: 'sectors', json: 'Sectors', kind: kinds.array(kinds.uint64) },
  { key: 'rewardSmoothed', json: 'RewardSmoothed', kind: filterEstimateStruct.kind },
  { key: 'rewardBaselinePower', json: 'RewardBaselinePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qualityAdjPowerSmoothed', json: 'QualityAdjPowerSmoothed', kind: filterEstimateStruct.kind },
]);

/** The miner's ID address as randomness entropy: its CBOR (builtin-actors `serialize(&receiver)`). */
export function receiverEntropy(rt: Runtime): Uint8Array {
  return encodeCbor(Address.newId(rt.receiver).bytes);
}

function isSealedSectorCid(cid: CID): boolean {
  return cid.version === 1 && cid.code === FIL_COMMITMENT_SEALED && cid.multihash.digest.length === 32;
}

function isUnsealedSectorCid(cid: CID): boolean {
  return cid.version === 1 && cid.code === FIL_COMMITMENT_UNSEALED && cid.multihash.digest.length === 32;
}

/** builtin-actors `validate_expiration`: a sector's lifetime from `activation` to `expiration`. */
export function validateExpiration(rt: Runtime, activation: bigint, expiration: bigint, sealProof: number): void {
  if (expiration <= activation)
    rt.abort(ExitCode.UsrIllegalArgument, `sector expiration ${expiration} must be after activation ${activation}`);
  const lifetime = expiration - activation;
  if (lifetime < MIN_SECTOR_EXPIRATION) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `invalid expiration ${expiration}, total sector lifetime (${lifetime}) must exceed ${MIN_SECTOR_EXPIRATION} after activation ${activation}`,
    );
  }
  if (expiration > rt.epoch + MAX_SECTOR_EXPIRATION_EXTENSION) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `invalid expiration ${expiration}, cannot be more than ${MAX_SECTOR_EXPIRATION_EXTENSION} past current epoch ${rt.epoch}`,
    );
  }
  const maxLifetime = sealProofSectorMaximumLifetime(sealProof);
  if (maxLifetime === undefined) rt.abort(ExitCode.UsrIllegalArgument, `unrecognized seal proof type ${sealProof}`);
  if (lifetime > maxLifetime) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `invalid expiration ${expiration}, total sector lifetime (${lifetime}) cannot exceed ${maxLifetime} after activation ${activation}`,
    );
  }
}

function proveCommitDuration(rt: Runtime, sealProof: number): bigint | undefined {
  return maxProveCommitDuration(sealProof, rt.networkParams.minerPolicy.preCommitChallengeDelay);
}

/** Consensus faults bar a miner from new pre-commits and recoveries until `consensusFaultElapsed`. */
export function consensusFaultActive(info: MinerInfo, epoch: bigint): boolean {
  return epoch <= info.consensusFaultElapsed;
}

function checkPreCommit(rt: Runtime, precommit: SectorPreCommitInfo): void {
  const sealProof = Number(precommit.sealProof);
  if (!rt.networkParams.minerPolicy.preCommitProofTypes.includes(sealProof))
    rt.abort(ExitCode.UsrIllegalArgument, `unsupported seal proof type ${sealProof}`);
  if (precommit.sectorNumber > MAX_SECTOR_NUMBER) {
    rt.abort(ExitCode.UsrIllegalArgument, `sector number ${precommit.sectorNumber} out of range 0..(2^63-1)`);
  }
  if (!isSealedSectorCid(precommit.sealedCid)) rt.abort(ExitCode.UsrIllegalArgument, 'sealed CID had wrong prefix');
  if (precommit.sealRandEpoch >= rt.epoch) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `seal challenge epoch ${precommit.sealRandEpoch} must be before now ${rt.epoch}`,
    );
  }
  const earliest = rt.epoch - MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK;
  if (precommit.sealRandEpoch < earliest) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `seal challenge epoch ${precommit.sealRandEpoch} too old, must be after ${earliest}`,
    );
  }
  if (precommit.unsealedCid !== null && !isUnsealedSectorCid(precommit.unsealedCid))
    rt.abort(ExitCode.UsrIllegalArgument, 'unsealed CID had wrong prefix');
  // The lifetime must hold even if activation comes at the last epoch the seal proof allows.
  const maxActivation = rt.epoch + (proveCommitDuration(rt, sealProof) ?? 0n);
  validateExpiration(rt, maxActivation, precommit.expiration, sealProof);
  // builtin-actors asks the market to verify deals here; with no market, a deal cannot be valid.
  if (precommit.dealIds.length > 0) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `sector ${precommit.sectorNumber}: deals are not supported (no market actor)`,
    );
  }
}

export function preCommitSectorBatch2(rt: Runtime, params: Uint8Array | null): null {
  const { sectors } = decodeParams(params, preCommitSectorBatch2Params);
  if (sectors.length === 0) rt.abort(ExitCode.UsrIllegalArgument, 'batch empty');
  if (sectors.length > PRE_COMMIT_SECTOR_BATCH_MAX_SIZE) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `batch of ${sectors.length} too large, max ${PRE_COMMIT_SECTOR_BATCH_MAX_SIZE}`,
    );
  }
  const numbers = new Set<bigint>();
  for (const precommit of sectors) {
    if (numbers.has(precommit.sectorNumber))
      rt.abort(ExitCode.UsrIllegalArgument, `duplicate sector number ${precommit.sectorNumber}`);
    numbers.add(precommit.sectorNumber);
    checkPreCommit(rt, precommit);
  }
  const sectorNumbers = BitField.of(numbers);
  const inputs = currentPledgeInputs(rt);
  const policy = rt.networkParams.minerPolicy;
  const { feeToBurn, needsCron } = rt.transaction(minerStateCodec, (state) => {
    // Available balance already nets out the fee debt, so it is read before the debt is repaid.
    const available = unlockedBalance(state, rt.currentBalance()) - state.feeDebt;
    const feeToBurn = repayDebtsOrAbort(rt, state);
    const info = minerInfo(rt, state);
    validateCallerIsControl(rt, info);
    if (consensusFaultActive(info, rt.epoch))
      rt.abort(ExitCode.UsrForbidden, 'pre-commit not allowed during active consensus fault');
    const deposit = preCommitDepositForPower(
      inputs.rewardEstimate,
      inputs.networkQaPowerEstimate,
      qaPowerMax(info.sectorSize),
    );
    const onChain: SectorPreCommitOnChainInfo[] = [];
    const cleanUps: Array<[bigint, bigint]> = [];
    for (const precommit of sectors) {
      const sealProof = Number(precommit.sealProof);
      const postProof = windowPoStProofOfSealProof(sealProof);
      if (BigInt(postProof) !== info.windowPoStProofType) {
        rt.abort(
          ExitCode.UsrIllegalArgument,
          `sector Window PoSt proof type ${postProof} must match miner Window PoSt proof type ${info.windowPoStProofType} (seal proof type ${sealProof})`,
        );
      }
      onChain.push({ info: precommit, preCommitDeposit: deposit, preCommitEpoch: rt.epoch });
      const duration = proveCommitDuration(rt, sealProof);
      if (duration === undefined)
        rt.abort(ExitCode.UsrIllegalArgument, `no max seal duration set for proof type: ${sealProof}`);
      cleanUps.push([rt.epoch + duration + EXPIRED_PRE_COMMIT_CLEAN_UP_DELAY, precommit.sectorNumber]);
    }
    const totalDeposit = deposit * BigInt(sectors.length);
    if (available < totalDeposit) {
      rt.abort(
        ExitCode.UsrInsufficientFunds,
        `insufficient funds ${available} for pre-commit deposit: ${totalDeposit}`,
      );
    }
    state.preCommitDeposits += totalDeposit;
    allocateSectorNumbers(rt.store, state, sectorNumbers);
    putPrecommittedSectors(rt.store, state, onChain);
    addPreCommitCleanUps(rt.store, state, policy, cleanUps);
    const needsCron = !state.deadlineCronActive;
    state.deadlineCronActive = true;
    return { feeToBurn, needsCron };
  });
  burnFunds(rt, feeToBurn);
  const state = rt.state(minerStateCodec);
  checkBalanceInvariants(rt, state);
  if (needsCron) {
    enrollCronEvent(rt, deadlineInfoNow(rt, state).last(), CronEventType.ProvingDeadline);
  }
  return null;
}

/** One item of a batch: what the proof of a pre-commit is checked against. */
interface SealProofInput {
  readonly precommit: SectorPreCommitOnChainInfo;
  readonly ticket: Uint8Array;
  readonly seed: Uint8Array;
  readonly unsealedCid: CID;
}

/**
 * builtin-actors `validate_precommits`: which pre-commits may be proven now (a late one fails on
 * its own, or the whole message with `allOrNothing`), and the randomness each proof answers.
 */
function validatePrecommits(
  rt: Runtime,
  precommits: readonly SectorPreCommitOnChainInfo[],
  allOrNothing: boolean,
): { valid: boolean[]; inputs: SealProofInput[] } {
  const entropy = receiverEntropy(rt);
  const delay = rt.networkParams.minerPolicy.preCommitChallengeDelay;
  const valid: boolean[] = [];
  const inputs: SealProofInput[] = [];
  precommits.forEach((precommit, i) => {
    const sealProof = Number(precommit.info.sealProof);
    let ok = precommit.info.dealIds.length === 0;
    const duration = proveCommitDuration(rt, sealProof);
    if (duration === undefined) rt.abort(ExitCode.UsrIllegalState, `no max seal duration for proof type: ${sealProof}`);
    if (rt.epoch > precommit.preCommitEpoch + duration) ok = false;
    const previous = precommits[i - 1];
    if (previous !== undefined && previous.info.sealProof !== precommit.info.sealProof) {
      rt.abort(
        ExitCode.UsrIllegalState,
        `seal proof group for verification contains mismatched seal proofs ${previous.info.sealProof} and ${sealProof}`,
      );
    }
    const interactiveEpoch = precommit.preCommitEpoch + delay;
    if (rt.epoch <= interactiveEpoch) rt.abort(ExitCode.UsrForbidden, 'too early to prove sector');
    inputs.push({
      precommit,
      ticket: rt.getRandomnessFromTickets(DomainSeparationTag.SealRandomness, precommit.info.sealRandEpoch, entropy),
      seed: rt.getRandomnessFromBeacon(DomainSeparationTag.InteractiveSealChallengeSeed, interactiveEpoch, entropy),
      unsealedCid: precommit.info.unsealedCid ?? zeroCommDCid(sealProof),
    });
    if (!ok && allOrNothing)
      rt.abort(ExitCode.UsrIllegalArgument, `invalid pre-commit ${i} while requiring activation success`);
    valid.push(ok);
  });
  return { valid, inputs };
}

function sealVerifyInfo(rt: Runtime, input: SealProofInput, proof: Uint8Array): SealVerifyInfo {
  return {
    sealProof: Number(input.precommit.info.sealProof),
    minerId: rt.receiver,
    sectorNumber: input.precommit.info.sectorNumber,
    ticket: input.ticket,
    seed: input.seed,
    sealedCid: input.precommit.info.sealedCid,
    unsealedCid: input.unsealedCid,
    proof,
  };
}

/** Stacks the outcomes of successive filters, each over the successes of the one before (builtin-actors `util::stack`). */
function stackBatches(batches: readonly boolean[][]): BatchReturn {
  let indices = batches[0]?.map((_, i) => i) ?? [];
  const failCodes: Array<{ idx: bigint; code: bigint }> = [];
  for (const batch of batches) {
    const next: number[] = [];
    batch.forEach((ok, j) => {
      const original = indices[j] as number;
      if (ok) next.push(original);
      else failCodes.push({ idx: BigInt(original), code: BigInt(ExitCode.UsrIllegalArgument) });
    });
    indices = next;
  }
  failCodes.sort((a, b) => (a.idx < b.idx ? -1 : 1));
  return { successCount: BigInt(indices.length), failCodes };
}

export function proveCommitSectors3(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const p = decodeParams(params, proveCommitSectors3Params);
  const state = rt.state(minerStateCodec);
  const info = minerInfo(rt, state);
  validateCallerIsControl(rt, info);
  const precommits = getPrecommittedSectors(
    rt.store,
    state,
    p.sectorActivations.map((a) => a.sectorNumber),
  );
  if (precommits.length === 0) rt.abort(ExitCode.UsrIllegalArgument, 'no sectors to prove');
  if ((p.sectorProofs.length === 0) === (p.aggregateProof.length === 0)) {
    rt.abort(ExitCode.UsrIllegalArgument, 'exactly one of sector proofs or aggregate proof must be non-empty');
  }
  if (p.sectorProofs.length === 0) {
    // SnarkPack needs its structured reference string, which this node does not ship.
    rt.abort(ExitCode.UsrIllegalArgument, 'aggregate proofs are not supported by this node');
  }
  if (p.aggregateProofType !== null)
    rt.abort(ExitCode.UsrIllegalArgument, 'aggregate proof type must be null with batched proofs');
  if (p.sectorActivations.length !== p.sectorProofs.length) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `mismatched lengths: ${p.sectorActivations.length} sector activations, ${p.sectorProofs.length} proofs`,
    );
  }
  const firstProof = Number((precommits[0] as SectorPreCommitOnChainInfo).info.sealProof);
  const maxProofSize = sealProofSize(firstProof);
  if (maxProofSize === undefined)
    rt.abort(ExitCode.UsrIllegalState, `failed to determine max proof size for type ${firstProof}`);
  for (const proof of p.sectorProofs) {
    if (proof.length > maxProofSize)
      rt.abort(ExitCode.UsrIllegalArgument, `sector proof size ${proof.length} exceeds max ${maxProofSize}`);
  }
  const { valid, inputs } = validatePrecommits(rt, precommits, p.requireActivationSuccess);
  const validIndices = valid.flatMap((ok, i) => (ok ? [i] : []));
  if (validIndices.length === 0) rt.abort(ExitCode.UsrIllegalArgument, 'no valid precommits specified');

  const verified = rt.batchVerifySeals(
    validIndices.map((i) => sealVerifyInfo(rt, inputs[i] as SealProofInput, p.sectorProofs[i] as Uint8Array)),
  );
  const proven: SectorPreCommitOnChainInfo[] = [];
  verified.forEach((ok, j) => {
    const precommit = precommits[validIndices[j] as number] as SectorPreCommitOnChainInfo;
    if (ok) proven.push(precommit);
    else if (p.requireActivationSuccess) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `invalid proof for sector ${precommit.info.sectorNumber} while requiring activation success`,
      );
    }
  });
  if (proven.length === 0) rt.abort(ExitCode.UsrIllegalArgument, 'no valid proofs specified');
  // Pieces go to the market and the verified registry, neither of which this chain has.
  for (const activation of p.sectorActivations) {
    if (activation.pieces.length > 0) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `sector ${activation.sectorNumber}: pieces are not supported (no market actor); prove committed-capacity sectors`,
      );
    }
  }
  activateNewSectorInfos(rt, proven, currentPledgeInputs(rt), info);
  return batchReturnStruct.encode(stackBatches([valid, verified, proven.map(() => true)]));
}

export function internalSectorSetupForPreseal(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, internalSectorSetupForPresealParams);
  rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
  const state = rt.state(minerStateCodec);
  const precommits = findPrecommittedSectors(rt.store, state, p.sectors);
  const inputs: PledgeInputs = {
    networkQaPowerEstimate: p.qualityAdjPowerSmoothed,
    baselinePower: p.rewardBaselinePower,
    rewardEstimate: p.rewardSmoothed,
    circulatingSupply: rt.totalFilCirculatingSupply(),
    epochsSinceRampStart: 0n,
    rampDurationEpochs: 0n,
  };
  activateNewSectorInfos(rt, precommits, inputs, minerInfo(rt, state));
  return null;
}

/**
 * builtin-actors `activate_new_sector_infos`: pre-commits become sectors with their pledge, in
 * deadlines, unproven; the deposits are released towards the pledge.
 */
function activateNewSectorInfos(
  rt: Runtime,
  precommits: readonly SectorPreCommitOnChainInfo[],
  inputs: PledgeInputs,
  info: MinerInfo,
): void {
  const policy = rt.networkParams.minerPolicy;
  const totalPledge = rt.transaction(minerStateCodec, (state) => {
    let depositToUnlock = 0n;
    let totalPledge = 0n;
    const newSectors: SectorOnChainInfo[] = precommits.map((precommit) => {
      const duration = precommit.info.expiration - rt.epoch;
      if (duration < MIN_SECTOR_EXPIRATION) {
        rt.abort(
          ExitCode.UsrIllegalArgument,
          `precommit ${precommit.info.sectorNumber} has lifetime ${duration} less than minimum ${MIN_SECTOR_EXPIRATION}. ignoring`,
        );
      }
      const power = qaPowerForWeight(info.sectorSize, duration, 0n);
      const initialPledge = initialPledgeForPower(power, inputs);
      depositToUnlock += precommit.preCommitDeposit;
      totalPledge += initialPledge;
      return {
        sectorNumber: precommit.info.sectorNumber,
        sealProof: precommit.info.sealProof,
        sealedCid: precommit.info.sealedCid,
        deprecatedDealIds: [],
        activation: rt.epoch,
        expiration: precommit.info.expiration,
        dealWeight: 0n,
        verifiedDealWeight: 0n,
        initialPledge,
        expectedDayReward: null,
        expectedStoragePledge: null,
        powerBaseEpoch: rt.epoch,
        replacedDayReward: null,
        sectorKeyCid: null,
        flags: SECTOR_FLAG_SIMPLE_QA_POWER,
        dailyFee: dailyProofFee(inputs.circulatingSupply, power),
      };
    });
    const sectors = Sectors.load(rt.store, state.sectors);
    sectors.store(newSectors);
    state.sectors = sectors.flush();
    deletePrecommittedSectors(
      rt.store,
      state,
      newSectors.map((s) => s.sectorNumber),
    );
    assignSectorsToDeadlines(rt.store, state, policy, rt.epoch, newSectors, info);
    state.preCommitDeposits -= depositToUnlock;
    if (state.preCommitDeposits < 0n)
      rt.abort(ExitCode.UsrIllegalState, `negative pre-commit deposit ${state.preCommitDeposits}`);
    const unlocked = unlockedBalance(state, rt.currentBalance());
    if (unlocked < totalPledge) {
      rt.abort(
        ExitCode.UsrInsufficientFunds,
        `insufficient funds for aggregate initial pledge requirement ${totalPledge}, available: ${unlocked}`,
      );
    }
    state.initialPledge += totalPledge;
    checkBalanceInvariants(rt, state);
    return totalPledge;
  });
  // Power waits for the deadline's first window PoSt.
  notifyPledgeChanged(rt, totalPledge);
}
