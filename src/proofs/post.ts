/**
 * Proofs of spacetime. Randomness is the chain's (32 bytes); it is masked into a field element
 * (`[31] &= 0x3f`) in the native core, as Lotus does. The prover id is the miner's actor id
 * (LEB128, zero-padded to 32 bytes).
 */
import { proofsDirs } from './environment.js';
import { ProofsError } from './errors.js';
import { call, callAsync, native } from './native.js';
import { DEVNET_WINDOW_POST_PROOF, DEVNET_WINNING_POST_PROOF, type RegisteredPoStProof } from './registered-proofs.js';
import { timedProof, timedProofSync } from './timing.js';

export interface PoStSector {
  sectorNumber: bigint;
  commR: Uint8Array;
}

export interface PoStRequest {
  minerId: bigint;
  randomness: Uint8Array;
  /** Winning PoSt: the challenged sectors; window PoSt: the partition's sectors. */
  sectors: readonly PoStSector[];
  /** Default: the devnet's winning (0) or window (10) type. */
  postProof?: RegisteredPoStProof;
}

function toNative(request: PoStRequest, defaultProof: RegisteredPoStProof) {
  proofsDirs();
  return {
    postProof: request.postProof ?? defaultProof,
    minerId: request.minerId,
    randomness: request.randomness,
    sectors: request.sectors.map((s) => ({ sectorNumber: s.sectorNumber, commR: s.commR })),
  };
}

/** Indices into a proving set of `sectorCount` sectors that winning PoSt challenges (Lotus `GenerateWinningPoStSectorChallenge`). */
export function winningPostSectorChallenge(options: {
  minerId: bigint;
  randomness: Uint8Array;
  sectorCount: bigint;
  postProof?: RegisteredPoStProof;
}): Promise<bigint[]> {
  return callAsync(() =>
    native.proofsWinningPostSectorChallengeAsync(
      options.postProof ?? DEVNET_WINNING_POST_PROOF,
      options.minerId,
      options.randomness,
      options.sectorCount,
    ),
  );
}

/**
 * The sectors of a proving set that winning PoSt challenges. The set is ordered by sector number,
 * as the miner actor's bitfields are; both prover and verifier pick the same sectors from it.
 */
export async function challengedSectors(
  request: Omit<PoStRequest, 'sectors'> & { provingSet: readonly PoStSector[] },
): Promise<PoStSector[]> {
  const ordered = [...request.provingSet].sort((a, b) =>
    a.sectorNumber < b.sectorNumber ? -1 : a.sectorNumber > b.sectorNumber ? 1 : 0,
  );
  const indices = await winningPostSectorChallenge({ ...request, sectorCount: BigInt(ordered.length) });
  return indices.map((index) => {
    const sector = ordered[Number(index)];
    if (sector === undefined) {
      throw new ProofsError('ERR_PROOF_FAILED', `challenge index ${index} is outside ${ordered.length} sectors`);
    }
    return sector;
  });
}

/**
 * Reads the winning PoSt proving key into memory now, on a worker thread, so a miner's first proof
 * does not wait for it (about 0.25 s for 2 KiB). Parameters must be in the cache.
 */
export async function preloadWinningPostKey(postProof: RegisteredPoStProof = DEVNET_WINNING_POST_PROOF): Promise<void> {
  proofsDirs();
  await callAsync(() => native.proofsPreloadWinningPostKeyAsync(postProof));
}

/** A winning PoSt (192 bytes) over the challenged sectors, whose replicas are under `dir`. */
export function generateWinningPost(dir: string, request: PoStRequest): Promise<Uint8Array> {
  return timedProof('winning_post', 'generate', () =>
    callAsync(() => native.proofsGenerateWinningPostAsync(dir, toNative(request, DEVNET_WINNING_POST_PROOF))),
  );
}

/** True only for a valid proof of these challenged sectors, randomness and miner. */
export function verifyWinningPost(request: PoStRequest, proof: Uint8Array): Promise<boolean> {
  return timedProof('winning_post', 'verify', () =>
    callAsync(() => native.proofsVerifyWinningPostAsync(toNative(request, DEVNET_WINNING_POST_PROOF), proof)),
  );
}

/** A window PoSt over all the sectors: 192 bytes per partition (2 sectors per partition for 2 KiB). */
export function generateWindowPost(dir: string, request: PoStRequest): Promise<Uint8Array> {
  return timedProof('window_post', 'generate', () =>
    callAsync(() => native.proofsGenerateWindowPostAsync(dir, toNative(request, DEVNET_WINDOW_POST_PROOF))),
  );
}

export function verifyWindowPost(request: PoStRequest, proof: Uint8Array): Promise<boolean> {
  return timedProof('window_post', 'verify', () =>
    callAsync(() => native.proofsVerifyWindowPostAsync(toNative(request, DEVNET_WINDOW_POST_PROOF), proof)),
  );
}

/** `verifyWindowPost` blocking the calling thread: the VM's `verify_post` syscall. */
export function verifyWindowPostSync(request: PoStRequest, proof: Uint8Array): boolean {
  return timedProofSync('window_post', 'verify', () =>
    call(() => native.proofsVerifyWindowPost(toNative(request, DEVNET_WINDOW_POST_PROOF), proof)),
  );
}
