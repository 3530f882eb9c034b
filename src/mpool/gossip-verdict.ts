/**
 * What a gossip validator does with a message the pool refused (filecoin-project/lotus
 * `chain/sub/incoming.go`): refusals that may be fine on another node or later are ignored without
 * penalising the peer; malformed or badly signed messages are rejected (the peer is penalised).
 */
import { MpoolError, MpoolErrorCode } from './errors.js';

export type GossipVerdict = 'accept' | 'ignore' | 'reject';

const IGNORED: ReadonlySet<string> = new Set([
  MpoolErrorCode.SoftValidation,
  MpoolErrorCode.ReplaceByFeeTooLow,
  MpoolErrorCode.TooManyPending,
  MpoolErrorCode.NonceGap,
  MpoolErrorCode.GasFeeCapTooLow,
  MpoolErrorCode.NonceTooLow,
  MpoolErrorCode.NotEnoughFunds,
  MpoolErrorCode.ExistingNonce,
  MpoolErrorCode.Closed,
]);

/** The verdict for the outcome of `MessagePool.add`: undefined error is acceptance. */
export function gossipVerdict(error: unknown): GossipVerdict {
  if (error === undefined) return 'accept';
  if (error instanceof MpoolError && IGNORED.has(error.code)) return 'ignore';
  return 'reject';
}
