/**
 * The FVM's proof syscalls over the native core (ref-fvm `fvm/src/kernel/filecoin.rs`,
 * `verify_seal`, `batch_verify_seals`, `verify_post`). builtin-actors (`runtime/src/runtime/fvm.rs`)
 * treats a proof that fails to verify and one the FVM refuses as an illegal argument alike, so both
 * are `false` here. What is the node's own fault — missing parameters, unreadable files — throws:
 * answering `false` for it would fork this node off the chain.
 */
import {
  batchVerifySealsSync,
  commDFromCid,
  commRFromCid,
  type SealVerifyInfo as NativeSealVerifyInfo,
  ProofsError,
  type RegisteredPoStProof,
  type RegisteredSealProof,
  verifySealSync,
  verifyWindowPostSync,
  windowPostProofOf,
} from '../proofs/index.js';
import type { SealVerifyInfo, WindowPoStVerifyInfo } from './runtime.js';

/** The proofs library refusing its input, as opposed to the node failing to run it. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof ProofsError && (error.code === 'ERR_INVALID_PROOF_INPUT' || error.code === 'ERR_PROOF_FAILED')
  );
}

function refusedIsFalse(verify: () => boolean): boolean {
  try {
    return verify();
  } catch (error) {
    if (isRefusal(error)) return false;
    throw error;
  }
}

/** The native form: CIDs become commitments (`cid_to_replica_commitment_v1` / `…data…`); the core refuses unknown seal types. */
function toNative(info: SealVerifyInfo): NativeSealVerifyInfo {
  return {
    sealProof: info.sealProof as RegisteredSealProof,
    minerId: info.minerId,
    sectorNumber: info.sectorNumber,
    ticket: info.ticket,
    seed: info.seed,
    commR: commRFromCid(info.sealedCid),
    commD: commDFromCid(info.unsealedCid),
    proof: info.proof,
  };
}

export function verifySeal(info: SealVerifyInfo): boolean {
  return refusedIsFalse(() => verifySealSync(toNative(info)));
}

/**
 * In parallel inside the native core. One malformed info makes the native batch refuse its
 * arguments; then each is checked alone so only that one is false, as in ref-fvm.
 */
export function batchVerifySeals(infos: readonly SealVerifyInfo[]): boolean[] {
  try {
    return batchVerifySealsSync(infos.map(toNative));
  } catch (error) {
    if (!isRefusal(error)) throw error;
    return infos.map(verifySeal);
  }
}

/**
 * ref-fvm `verify_post`: one PoSt type for all proofs (proofs-api takes exactly one proof), each
 * sector sealed with a type proven by it, sectors keyed by number so a sector listed twice (the
 * miner actor's stand-ins for faulty sectors) is proven once. The native core masks the randomness
 * (`[31] &= 0x3f`).
 */
export function verifyPoSt(info: WindowPoStVerifyInfo): boolean {
  const [proof, ...others] = info.proofs;
  if (proof === undefined || others.length > 0) return false;
  let postProof: RegisteredPoStProof | undefined;
  const sectors = new Map<bigint, Uint8Array>();
  for (const sector of info.challengedSectors) {
    postProof = windowPostProofOf(sector.sealProof);
    if (postProof === undefined || postProof !== Number(proof.postProof)) return false;
    let commR: Uint8Array;
    try {
      commR = commRFromCid(sector.sealedCid);
    } catch (error) {
      if (isRefusal(error)) return false;
      throw error;
    }
    sectors.set(sector.sectorNumber, commR);
  }
  // proofs-api refuses an empty set of replicas.
  if (postProof === undefined) return false;
  const ordered = [...sectors].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return refusedIsFalse(() =>
    verifyWindowPostSync(
      {
        postProof,
        minerId: info.prover,
        randomness: info.randomness,
        sectors: ordered.map(([sectorNumber, commR]) => ({ sectorNumber, commR })),
      },
      proof.proofBytes,
    ),
  );
}
