/**
 * Sealing sectors: pre-commit (AddPiece, PC1, PC2), commit (C1, C2: the seal proof, which needs
 * the PoRep parameters), finalize, and seal verification. Sector files live under `dir` in
 * lotus-seed's layout (`sealed/s-t0<miner>-<n>`, `cache/s-t0<miner>-<n>/`, `unsealed/…`).
 */
import type { ExternalObject } from '@ledger-node/native';
import { proofsDirs } from './environment.js';
import { call, callAsync, native } from './native.js';
import { DEVNET_SEAL_PROOF, type RegisteredSealProof } from './registered-proofs.js';
import { timedProof, timedProofSync } from './timing.js';

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

/** What the commit (C1) needs beside the sector: the commitments, the ticket and the interactive seed. */
export type CommitInputs = SectorCommitments & { ticket: Uint8Array; seed: Uint8Array };

function commitArguments(inputs: CommitInputs) {
  return [inputs.ticket, inputs.seed, inputs.commR, inputs.commD] as const;
}

/** C1 and C2 of a pre-committed sector: its seal proof (192 bytes for 2 KiB). */
export function commitSector(sector: SectorRef, inputs: CommitInputs): Promise<Uint8Array> {
  return callAsync(() => native.proofsCommitSectorAsync(toNative(sector), ...commitArguments(inputs)));
}

/**
 * The sealing phases one by one, as Lotus's workers run them (AddPiece, PC1, PC2, C1, C2):
 * `precommitSector` and `commitSector` chain them in a single call each. What PC1 and C1 hand on
 * stays in the native core; JS holds an opaque handle to pass to the next phase.
 */
export type PreCommitPhase1Output = ExternalObject<'PreCommitPhase1'>;
export type CommitPhase1Output = ExternalObject<'CommitPhase1'>;

/** AddPiece: fresh sector directories and the unsealed copy of `piece` (exactly the sector's unpadded size); its CommP. */
export function addPiece(sector: SectorRef, piece: Uint8Array): Promise<Uint8Array> {
  return callAsync(() => native.proofsAddPieceAsync(toNative(sector), piece));
}

/** PC1 of a sector `addPiece` filled with the piece committed to by `commP`. */
export function precommitPhase1(
  sector: SectorRef,
  inputs: { ticket: Uint8Array; commP: Uint8Array },
): Promise<PreCommitPhase1Output> {
  return callAsync(() => native.proofsPrecommitPhase1Async(toNative(sector), inputs.ticket, inputs.commP));
}

/** PC2: the sector's commitments. */
export function precommitPhase2(sector: SectorRef, phase1: PreCommitPhase1Output): Promise<SectorCommitments> {
  return callAsync(() => native.proofsPrecommitPhase2Async(toNative(sector), phase1));
}

/** C1: the vanilla proofs of the challenged nodes. */
export function commitPhase1(sector: SectorRef, inputs: CommitInputs): Promise<CommitPhase1Output> {
  return callAsync(() => native.proofsCommitPhase1Async(toNative(sector), ...commitArguments(inputs)));
}

/** C2: the seal proof (192 bytes for 2 KiB). Needs the PoRep parameters. */
export function commitPhase2(sector: SectorRef, phase1: CommitPhase1Output): Promise<Uint8Array> {
  return callAsync(() => native.proofsCommitPhase2Async(toNative(sector), phase1));
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
  return timedProof('seal', 'verify', () => callAsync(() => native.proofsVerifySealAsync(sealToNative(info))));
}

/** `verifySeal` blocking the calling thread (a few milliseconds for 2 KiB): the VM's syscall. */
export function verifySealSync(info: SealVerifyInfo): boolean {
  return timedProofSync('seal', 'verify', () => call(() => native.proofsVerifySeal(sealToNative(info))));
}

/**
 * Verifies seals in parallel inside the native core (ref-fvm `batch_verify_seals`), one answer per
 * info in order. A proof the proofs library refuses is false; missing parameters throw.
 */
export function batchVerifySealsSync(infos: readonly SealVerifyInfo[]): boolean[] {
  return timedProofSync('seal', 'batch_verify', () =>
    call(() => native.proofsBatchVerifySeals(infos.map(sealToNative))),
  );
}
