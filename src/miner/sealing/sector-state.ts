/**
 * The states of a committed-capacity sector in the sealing pipeline, named as Lotus names them
 * (filecoin-project/lotus `storage/pipeline/sector_state.go`), in the order a sector goes through:
 *
 * Packing → PreCommit1 → PreCommitting → PreCommitWait → WaitSeed → Committing → SubmitCommit →
 * CommitWait → FinalizeSector → Proving, with the failure states beside them.
 *
 * Lotus runs PC1 and PC2 as two steps (PreCommit1, PreCommit2). The native core seals with one call,
 * AddPiece + PC1 + PC2 (`src/proofs/seal.ts` `precommitSector`), whose intermediate PC1 output never
 * reaches this side, so the PreCommit1 step covers Lotus's PreCommit1 and PreCommit2 and a crash in
 * it starts the sealing over from a fresh ticket.
 */
import { MinerError, MinerErrorCode } from '../errors.js';

export const SectorState = {
  /** Allocated; a CC sector's piece is all zeros, written by the native AddPiece of the next step. */
  Packing: 'Packing',
  /** Draw the ticket, then AddPiece, PC1 and PC2 (CommR, CommD). */
  PreCommit1: 'PreCommit1',
  /** Push PreCommitSectorBatch2 with the pre-commit deposit. */
  PreCommitting: 'PreCommitting',
  /** Wait for the pre-commit's receipt. */
  PreCommitWait: 'PreCommitWait',
  /** Wait for the interactive seed to be final enough, then draw it. */
  WaitSeed: 'WaitSeed',
  /** C1 and C2, and verify the proof locally. */
  Committing: 'Committing',
  /** Check the seed again, push ProveCommitSectors3 with the initial pledge. */
  SubmitCommit: 'SubmitCommit',
  /** Wait for the prove-commit's receipt. */
  CommitWait: 'CommitWait',
  /** Drop what proving does not read. */
  FinalizeSector: 'FinalizeSector',
  /** Sealed and on chain: the window PoSt scheduler proves it from here. */
  Proving: 'Proving',
  /** Sealing failed or the ticket expired: seal again from a new ticket. */
  SealPreCommit1Failed: 'SealPreCommit1Failed',
  /** C1/C2 failed or the proof did not verify: compute it again (after two bad proofs, seal again). */
  ComputeProofFailed: 'ComputeProofFailed',
  /** The pre-commit failed on chain or vanished from it. */
  PreCommitFailed: 'PreCommitFailed',
  /** The prove-commit failed on chain or could no longer land in time. */
  CommitFailed: 'CommitFailed',
  /** Given up: the computed proofs kept failing to verify. */
  FailedUnrecoverable: 'FailedUnrecoverable',
} as const;
export type SectorState = (typeof SectorState)[keyof typeof SectorState];

/** States the pipeline does not leave by itself. */
const TERMINAL: ReadonlySet<SectorState> = new Set([
  SectorState.Proving,
  SectorState.PreCommitFailed,
  SectorState.CommitFailed,
  SectorState.FailedUnrecoverable,
]);

const NAMES: ReadonlySet<string> = new Set(Object.values(SectorState));

export function isTerminalState(state: SectorState): boolean {
  return TERMINAL.has(state);
}

/** A state name read back from the database. */
export function parseSectorState(name: string, sectorNumber: bigint): SectorState {
  if (!NAMES.has(name)) {
    throw new MinerError(
      MinerErrorCode.SealingBadRecord,
      `sector ${sectorNumber} has an unknown sealing state '${name}'`,
    );
  }
  return name as SectorState;
}
