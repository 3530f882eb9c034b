import { LedgerError } from '../utils/errors.js';

export const SyncErrorCode = {
  /** A chain that links to a block in the bad-block cache, or that failed validation. */
  BadChain: 'ERR_SYNC_BAD_CHAIN',
  /** No peer could provide the chain. */
  NoPeers: 'ERR_SYNC_NO_PEERS',
  /** The fork point is further back than finality (900 epochs). */
  ForkTooLong: 'ERR_SYNC_FORK_TOO_LONG',
  /** The node is still catching up and cannot answer from a synced head. */
  NotSynced: 'ERR_NOT_SYNCED',
} as const;
export type SyncErrorCode = (typeof SyncErrorCode)[keyof typeof SyncErrorCode];

export class SyncError extends LedgerError {
  declare readonly code: SyncErrorCode;

  constructor(code: SyncErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
