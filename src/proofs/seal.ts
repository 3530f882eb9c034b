/**
 * Sealing sectors: pre-commit (AddPiece, PC1, PC2), commit (C1, C2: the seal proof, which needs
 * the PoRep parameters), finalize, and seal verification. Sector files live under `dir` in
 * lotus-seed's layout (`sealed/s-t0<miner>-<n>`, `cache/s-t0<miner>-<n>/`, `unsealed/…`).
 */
import { proofsDirs } from './environment.js';
import { call, callAsync, native } from './native.js';
import { DEVNET_SEAL_PROOF, type RegisteredSealProof } from './registered-proofs.js';

export interface SectorRef {
  /** The storage root of the sector's files. */
  dir: string;
  minerId: bigint;
  sectorNumber: bigint;
  /** Default StackedDrg2KiBV1_1 (5). */
  sealProof?: RegisteredSealProof;
}

export interface SectorCommitments {
  /** CommR, 32 bytes (a BLS12-381 scalar, little-endian). */
  commR: Uint8Array;
  /** CommD, 32 bytes. */
  commD: Uint8Array;
}

function toNative(sector: SectorRef) {
  proofsDirs();
  return {
    dir: sector.dir,
    sealProof: sector.sealProof ?? DEVNET_SEAL_PROOF,
    minerId: sector.minerId,
    sectorNumber: sector.sectorNumber,
  };
}

/**
 * Pre-seals a genesis sector as lotus-seed does: a full piece of deterministic data (a ChaCha20
 * stream seeded from `ledger-node/preseal-piece`, the miner and the sector number), ticket
 * blake2b-256("lotus is fire"), PC1 and PC2, then finalize. No SNARK, so no parameters.
 */
export function presealSector(sector: SectorRef): Promise<SectorCommitments> {
  return callAsync(() => native.proofsPresealSectorAsync(toNative(sector)));
}

/** AddPiece, PC1 and PC2 of a sector holding `piece` (exactly the sector's unpadded size, 2032 bytes for 2 KiB). */
export function precommitSector(
  sector: SectorRef,
  inputs: { ticket: Uint8Array; piece: Uint8Array },
): Promise<SectorCommitments> {
  return callAsync(() => native.proofsPrecommitSectorAsync(toNative(sector), inputs.ticket, inputs.piece));
}

/** C1 and C2 of a pre-committed sector: its seal proof (192 bytes for 2 KiB). */
export function commitSector(
  sector: SectorRef,
  inputs: SectorCommitments & { ticket: Uint8Array; seed: Uint8Array },
): Promise<Uint8Array> {
  return callAsync(() =>
    native.proofsCommitSectorAsync(toNative(sector), inputs.ticket, inputs.seed, inputs.commR, inputs.commD),
  );
}

/** Keeps only what PoSt reads (replica, tree-r-last, aux files) and removes the unsealed copy. */
export function finalizeSector(sector: SectorRef): Promise<void> {
  return callAsync(() => native.proofsFinalizeSectorAsync(toNative(sector)));
}

export interface SealVerifyInfo extends SectorCommitments {
  minerId: bigint;
  sectorNumber: bigint;
  ticket: Uint8Array;
  seed: Uint8Array;
  proof: Uint8Array;
  /** Default StackedDrg2KiBV1_1 (5). */
  sealProof?: RegisteredSealProof;
}

function sealToNative(info: SealVerifyInfo) {
  proofsDirs();
  return { ...info, sealProof: info.sealProof ?? DEVNET_SEAL_PROOF };
}

/** True only for a valid seal proof; malformed proof bytes are simply invalid. Needs the PoRep verifying key. */
export function verifySeal(info: SealVerifyInfo): Promise<boolean> {
  return callAsync(() => native.proofsVerifySealAsync(sealToNative(info)));
}

/** `verifySeal` blocking the calling thread (a few milliseconds for 2 KiB): the VM's syscall. */
export function verifySealSync(info: SealVerifyInfo): boolean {
  return call(() => native.proofsVerifySeal(sealToNative(info)));
}

/**
 * Verifies seals in parallel inside the native core (ref-fvm `batch_verify_seals`), one answer per
 * info in order. A proof the proofs library refuses is false; missing parameters throw.
 */
export function batchVerifySealsSync(infos: readonly SealVerifyInfo[]): boolean[] {
  return call(() => native.proofsBatchVerifySeals(infos.map(sealToNative)));
}
