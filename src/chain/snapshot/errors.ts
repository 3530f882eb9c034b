import { LedgerError } from '../../utils/errors.js';

export const SnapshotErrorCode = {
  /** The file is not a CAR, is cut short, or a block's bytes do not match its CID. */
  Corrupt: 'ERR_SNAPSHOT_CORRUPT',
  /** The CAR is well formed but is not a chain snapshot: its roots are not one tipset's blocks. */
  NotASnapshot: 'ERR_SNAPSHOT_NOT_A_CHAIN',
  /** A header, message or state block the snapshot must hold is missing. */
  Incomplete: 'ERR_SNAPSHOT_INCOMPLETE',
  /** Snapshots are imported into a repo without a chain; this one has one. */
  RepoHasChain: 'ERR_SNAPSHOT_REPO_HAS_CHAIN',
  /** The snapshot belongs to another chain than the repo's. */
  GenesisMismatch: 'ERR_SNAPSHOT_GENESIS_MISMATCH',
  /** An export asked for something the chain does not have or cannot give. */
  Export: 'ERR_SNAPSHOT_EXPORT',
} as const;
export type SnapshotErrorCode = (typeof SnapshotErrorCode)[keyof typeof SnapshotErrorCode];

/** A snapshot export or import that cannot proceed; the message names the file, block or epoch at fault. */
export class SnapshotError extends LedgerError {
  declare readonly code: SnapshotErrorCode;

  constructor(code: SnapshotErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * A state query for a tipset whose state this node does not hold: it started from a minimal
 * snapshot, which keeps state trees only for its most recent epochs (and genesis), or it prunes
 * state older than its window (src/chain/prune.ts).
 */
export class StateNotAvailableError extends LedgerError {
  readonly epoch: bigint;
  readonly oldestStateEpoch: bigint;

  constructor(epoch: bigint, oldestStateEpoch: bigint, pruned = false) {
    const why = pruned ? 'this node prunes older state' : 'this node started from a minimal snapshot';
    super(
      'ERR_STATE_NOT_AVAILABLE',
      `state for epoch ${epoch} is not available: ${why} and holds state ` +
        `from epoch ${oldestStateEpoch} on (and genesis)`,
      { details: { epoch: epoch.toString(), oldestStateEpoch: oldestStateEpoch.toString() } },
    );
    this.epoch = epoch;
    this.oldestStateEpoch = oldestStateEpoch;
  }
}
