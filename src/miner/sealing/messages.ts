/**
 * The two messages that put a committed-capacity sector on chain, and its expiration
 * (filecoin-project/lotus `storage/pipeline/states_sealing.go`, `precommit_policy.go`). Their
 * values — the deposit and the pledge — come from the chain when they are sent.
 */
import type { MinerPolicy } from '../../params/index.js';
import { sealedCid } from '../../proofs/index.js';
import {
  preCommitSectorBatch2Params,
  proveCommitSectors3Params,
  type SectorPreCommitInfo,
} from '../../vm/actors/miner/params.js';
import {
  MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK,
  MAX_SECTOR_EXPIRATION_EXTENSION,
  MIN_SECTOR_EXPIRATION,
  maxProveCommitDuration,
} from '../../vm/actors/miner/policy.js';
import { MinerMethod } from '../../vm/methods.js';
import type { SealingMessage, SealingMinerInfo } from './chain-api.js';

/**
 * When a new committed-capacity sector expires: `lifetime` less Lotus's proving buffer (two proving
 * periods), at least the minimum sector life plus a proving period ahead (`BasicPreCommitPolicy`),
 * then clamped as `handlePreCommitting` clamps it so the actor accepts it however late the
 * prove-commit lands: at most the longest extension past the seed, at least the minimum life past
 * the latest possible activation.
 */
export function committedCapacityExpiration(input: {
  head: bigint;
  ticketEpoch: bigint;
  sealProof: number;
  lifetime: bigint;
  policy: MinerPolicy;
}): bigint {
  const { head, ticketEpoch, policy } = input;
  let expiration = head + input.lifetime - 2n * policy.wPoStProvingPeriod;
  const policyMinimum = head + MIN_SECTOR_EXPIRATION + policy.wPoStProvingPeriod;
  if (expiration < policyMinimum) expiration = policyMinimum;
  const maximum = head + policy.preCommitChallengeDelay + MAX_SECTOR_EXPIRATION_EXTENSION;
  if (expiration > maximum) expiration = maximum;
  const proveCommitDuration = maxProveCommitDuration(input.sealProof, policy.preCommitChallengeDelay) ?? 0n;
  const minimum = ticketEpoch + MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK + proveCommitDuration + MIN_SECTOR_EXPIRATION;
  return expiration < minimum ? minimum : expiration;
}

/** PreCommitSectorBatch2 of one committed-capacity sector: no deals, and a null unsealed CID (the zero CommD). */
export function preCommitMessage(input: {
  miner: SealingMinerInfo;
  sectorNumber: bigint;
  sealProof: number;
  commR: Uint8Array;
  ticketEpoch: bigint;
  expiration: bigint;
}): { info: SectorPreCommitInfo; message: Omit<SealingMessage, 'value'> } {
  const info: SectorPreCommitInfo = {
    sealProof: BigInt(input.sealProof),
    sectorNumber: input.sectorNumber,
    sealedCid: sealedCid(input.commR),
    sealRandEpoch: input.ticketEpoch,
    dealIds: [],
    expiration: input.expiration,
    unsealedCid: null,
  };
  return {
    info,
    message: {
      from: input.miner.worker,
      to: input.miner.id,
      method: MinerMethod.PreCommitSectorBatch2,
      params: preCommitSectorBatch2Params.encode({ sectors: [info] }),
    },
  };
}

/**
 * ProveCommitSectors3 of one committed-capacity sector: no pieces, its own proof (an aggregate needs
 * at least four sectors), and every activation required to succeed, as Lotus's defaults ask
 * (`Sealing.RequireActivationSuccess`, `RequireNotificationSuccess`).
 */
export function proveCommitMessage(input: {
  miner: SealingMinerInfo;
  sectorNumber: bigint;
  proof: Uint8Array;
}): Omit<SealingMessage, 'value'> {
  return {
    from: input.miner.worker,
    to: input.miner.id,
    method: MinerMethod.ProveCommitSectors3,
    params: proveCommitSectors3Params.encode({
      sectorActivations: [{ sectorNumber: input.sectorNumber, pieces: [] }],
      sectorProofs: [input.proof],
      aggregateProof: new Uint8Array(0),
      aggregateProofType: null,
      requireActivationSuccess: true,
      requireNotificationSuccess: true,
    }),
  };
}
