import { LedgerError } from '../utils/errors.js';

/** Error codes of `StateError`. */
export const StateErrorCode = {
  /** The state root names a version this node cannot read. */
  UnsupportedVersion: 'ERR_STATE_UNSUPPORTED_VERSION',
  /** A state object does not decode as the type it must be (a corrupt or foreign state). */
  InvalidState: 'ERR_STATE_INVALID',
  /** An operation needs an actor that does not exist. */
  ActorNotFound: 'ERR_ACTOR_NOT_FOUND',
  /** Transactions were ended more often than begun, or the tree was flushed inside one. */
  TransactionMisuse: 'ERR_STATE_TRANSACTION',
} as const;
export type StateErrorCode = (typeof StateErrorCode)[keyof typeof StateErrorCode];

/** The state tree cannot do what was asked; `code` says why. */
export class StateError extends LedgerError {
  declare readonly code: StateErrorCode;

  constructor(code: StateErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
