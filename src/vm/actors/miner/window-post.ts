/**
 * Window PoSt on chain (builtin-actors v18 `actors/miner/src/lib.rs` `submit_windowed_post`,
 * `dispute_windowed_post`, `verify_windowed_post`). A submission is accepted optimistically and
 * kept for dispute; it is verified at once only when it recovers faulty power (FIP-0010). A
 * dispute re-verifies a kept proof against the deadline's snapshot and succeeds only if it fails,
 * marking the snapshot's sectors faulty and fining the miner.
 */
import { DomainSeparationTag } from '../../../crypto/index.js';
import { Address } from '../../../types/index.js';
import { bytesEqual } from '../../../utils/bytes.js';
import { ExitCode } from '../../exit-code.js';
import { METHOD_SEND } from '../../methods.js';
import type { Runtime } from '../../runtime.js';
import { decodeParams, extractSendResult } from '../actor.js';
import { bigMin } from '../math.js';
import { loadPartitionsSectorsMax } from './compaction.js';
import { deadlineAvailableForOptimisticPoStDispute, newDeadlineInfo } from './deadline-info.js';
import { Deadlines } from './deadlines.js';
import { repayPartialDebt } from './funds.js';
import { BASE_REWARD_FOR_DISPUTED_WINDOW_POST, pledgePenaltyForInvalidWindowPoSt } from './monies.js';
import { receiverEntropy } from './onboarding.js';
import { disputeWindowedPoStParams, type PoStProof, submitWindowedPoStParams } from './params.js';
import { POSTED_PARTITIONS_MAX } from './policy.js';
import { deadlineInfoNow } from './proving-state.js';
import { Sectors } from './sectors.js';
import {
  burnFunds,
  checkBalanceInvariants,
  currentPledgeInputs,
  minerInfo,
  notifyPledgeChanged,
  requestUpdatePower,
  validateCallerIsControl,
} from './sends.js';
import { minerStateCodec, type SectorOnChainInfo } from './state.js';

/** The window PoSt proof size per partition (192 bytes for every size this node seals). */
const WINDOW_POST_PROOF_SIZE = 192;
/** The most partitions one proof may cover: builtin-actors `load_partitions_sectors_max` capped by POSTED_PARTITIONS_MAX. */
function submissionPartitionLimit(partitionSectors: bigint): bigint {
  return bigMin(loadPartitionsSectorsMax(partitionSectors), POSTED_PARTITIONS_MAX);
}

/**
 * Whether `proofs` prove `sectors` against the challenge drawn at `challengeEpoch` (the runtime masks
 * the randomness and collapses duplicate stand-ins, as the FVM's `verify_post` does).
 */
function verifyWindowedPoSt(
  rt: Runtime,
  challengeEpoch: bigint,
  sectors: readonly SectorOnChainInfo[],
  proofs: readonly PoStProof[],
): boolean {
  const randomness = rt.getRandomnessFromBeacon(
    DomainSeparationTag.WindowedPoStChallengeSeed,
    challengeEpoch,
    receiverEntropy(rt),
  );
  return rt.verifyPoSt({
    randomness,
    proofs: proofs.map((p) => ({ postProof: Number(p.postProof), proofBytes: p.proofBytes })),
    challengedSectors: sectors.map((s) => ({
      sealProof: Number(s.sealProof),
      sectorNumber: s.sectorNumber,
      sealedCid: s.sealedCid,
    })),
    prover: rt.receiver,
  });
}

export function submitWindowedPoSt(rt: Runtime, params: Uint8Array | null): null {
  const p = decodeParams(params, submitWindowedPoStParams);
  const policy = rt.networkParams.minerPolicy;
  if (p.proofs.length !== 1)
    rt.abort(ExitCode.UsrIllegalArgument, `expected exactly one proof, got ${p.proofs.length}`);
  const proof = p.proofs[0] as PoStProof;
  if (!rt.networkParams.windowPoStProofTypes.includes(Number(proof.postProof)))
    rt.abort(ExitCode.UsrIllegalArgument, `proof type ${proof.postProof} not allowed`);
  if (p.deadline >= policy.wPoStPeriodDeadlines)
    rt.abort(ExitCode.UsrIllegalArgument, `invalid deadline ${p.deadline} of ${policy.wPoStPeriodDeadlines}`);
  if (p.chainCommitRand.length > 32) {
    rt.abort(ExitCode.UsrIllegalArgument, `expected at most 32 bytes of randomness, got ${p.chainCommitRand.length}`);
  }
  const powerDelta = rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    validateCallerIsControl(rt, info);
    if (proof.postProof !== info.windowPoStProofType) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `expected proof of type ${info.windowPoStProofType}, got ${proof.postProof}`,
      );
    }
    const maxSize = WINDOW_POST_PROOF_SIZE * p.partitions.length;
    if (proof.proofBytes.length > maxSize)
      rt.abort(ExitCode.UsrIllegalArgument, `expected proof to be smaller than ${maxSize} bytes`);
    const limit = submissionPartitionLimit(info.windowPoStPartitionSectors);
    if (BigInt(p.partitions.length) > limit)
      rt.abort(ExitCode.UsrIllegalArgument, `too many partitions ${p.partitions.length}, limit ${limit}`);
    const current = deadlineInfoNow(rt, state);
    if (!current.isOpen()) {
      rt.abort(ExitCode.UsrIllegalState, `proving period ${current.periodStart} not yet open at ${rt.epoch}`);
    }
    if (p.deadline !== current.index) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `invalid deadline ${p.deadline} at epoch ${rt.epoch}, expected ${current.index}`,
      );
    }
    if (p.chainCommitEpoch < current.challenge) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `expected chain commit epoch ${p.chainCommitEpoch} to be after ${current.challenge}`,
      );
    }
    if (p.chainCommitEpoch >= rt.epoch) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `chain commit epoch ${p.chainCommitEpoch} must be less than the current epoch ${rt.epoch}`,
      );
    }
    const commitRand = rt.getRandomnessFromTickets(
      DomainSeparationTag.PoStChainCommit,
      p.chainCommitEpoch,
      new Uint8Array(),
    );
    if (!bytesEqual(commitRand, p.chainCommitRand))
      rt.abort(ExitCode.UsrIllegalArgument, 'post commit randomness mismatched');

    const sectors = Sectors.load(rt.store, state.sectors);
    const deadlines = Deadlines.load(rt.store, state.deadlines);
    const deadline = deadlines.loadDeadline(rt.store, p.deadline);
    const faultExpiration = current.last() + policy.faultMaxAge;
    const result = deadline.recordProvenSectors(
      rt.store,
      sectors,
      info.sectorSize,
      current.quantSpec(),
      faultExpiration,
      p.partitions,
    );
    if (result.sectors.subtract(result.ignoredSectors).isEmpty())
      rt.abort(ExitCode.UsrIllegalArgument, 'cannot prove partitions with no active sectors');
    if (result.recoveredPower.raw === 0n && result.recoveredPower.qa === 0n) {
      deadline.recordPoStProofs(rt.store, result.partitions, p.proofs);
    } else {
      const infos = sectors.loadForProof(result.sectors, result.ignoredSectors);
      if (!verifyWindowedPoSt(rt, current.challenge, infos, p.proofs))
        rt.abort(ExitCode.UsrIllegalArgument, 'invalid post was submitted');
    }
    deadlines.updateDeadline(rt.store, p.deadline, deadline);
    state.deadlines = deadlines.flush(rt.store);
    return result.powerDelta;
  });
  requestUpdatePower(rt, powerDelta);
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  return null;
}

export function disputeWindowedPoSt(rt: Runtime, params: Uint8Array | null): null {
  rt.validateImmediateCallerAcceptAny();
  const p = decodeParams(params, disputeWindowedPoStParams);
  const policy = rt.networkParams.minerPolicy;
  const reporter = Address.newId(rt.caller);
  if (p.deadline >= policy.wPoStPeriodDeadlines)
    rt.abort(ExitCode.UsrIllegalArgument, `invalid deadline ${p.deadline} of ${policy.wPoStPeriodDeadlines}`);
  const inputs = currentPledgeInputs(rt);
  const outcome = rt.transaction(minerStateCodec, (state) => {
    const now = deadlineInfoNow(rt, state);
    if (!deadlineAvailableForOptimisticPoStDispute(policy, now.periodStart, p.deadline, rt.epoch)) {
      rt.abort(
        ExitCode.UsrForbidden,
        `can only dispute window posts during the dispute window (${policy.wPoStDisputeWindow} epochs after the challenge window closes)`,
      );
    }
    const info = minerInfo(rt, state);
    const periodStart = now.index < p.deadline ? now.periodStart - policy.wPoStProvingPeriod : now.periodStart;
    const target = newDeadlineInfo(policy, periodStart, p.deadline, rt.epoch);
    const deadlines = Deadlines.load(rt.store, state.deadlines);
    const deadline = deadlines.loadDeadline(rt.store, p.deadline);
    const { partitions, proofs } = deadline.takePoStProofs(rt.store, p.poStIndex);
    const dispute = deadline.loadPartitionsForDispute(rt.store, partitions);
    const sectors = Sectors.load(rt.store, deadline.sectorsSnapshot);
    const infos = sectors.loadForProof(dispute.allSectorNos, dispute.ignoredSectorNos);
    if (verifyWindowedPoSt(rt, target.challenge, infos, proofs))
      rt.abort(ExitCode.UsrIllegalArgument, 'failed to dispute valid post');
    const powerDelta = deadline.recordFaults(
      rt.store,
      sectors,
      info.sectorSize,
      target.quantSpec(),
      target.last() + policy.faultMaxAge,
      dispute.disputedSectors,
    );
    deadlines.updateDeadline(rt.store, p.deadline, deadline);
    state.deadlines = deadlines.flush(rt.store);

    const penalised = dispute.disputedPower;
    // builtin-actors `reward_for_disputed_window_post`: a flat reward, whatever the proof or power.
    const rewardTarget = BASE_REWARD_FOR_DISPUTED_WINDOW_POST;
    state.feeDebt +=
      pledgePenaltyForInvalidWindowPoSt(inputs.rewardEstimate, inputs.networkQaPowerEstimate, penalised.qa) +
      rewardTarget;
    const { toBurn, totalUnlocked } = repayPartialDebt(rt, state);
    const toReward = bigMin(toBurn, rewardTarget);
    return { powerDelta, toBurn: toBurn - toReward, toReward, pledgeDelta: -totalUnlocked };
  });
  requestUpdatePower(rt, outcome.powerDelta);
  let toBurn = outcome.toBurn;
  if (outcome.toReward > 0n) {
    // A reporter that cannot take the reward does not stop the dispute: the reward is burnt instead.
    const sent = rt.send(reporter, METHOD_SEND, null, outcome.toReward);
    if (sent.exitCode !== ExitCode.Ok) toBurn += outcome.toReward;
    else extractSendResult(sent, 'sending the dispute reward');
  }
  burnFunds(rt, toBurn);
  notifyPledgeChanged(rt, outcome.pledgeDelta);
  checkBalanceInvariants(rt, rt.state(minerStateCodec));
  return null;
}
