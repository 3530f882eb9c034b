/**
 * Why the pool refused a message, or gas estimation failed. Messages follow Lotus's wording
 * (`chain/messagepool`, `node/impl/gasutils`) so clients that match on them keep working; `code`
 * says the same thing in a stable form.
 */
import { LedgerError } from '../utils/errors.js';

export const MpoolErrorCode = {
  MessageTooBig: 'ERR_MPOOL_MESSAGE_TOO_BIG',
  InvalidMessage: 'ERR_MPOOL_INVALID_MESSAGE',
  ValueTooHigh: 'ERR_MPOOL_VALUE_TOO_HIGH',
  GasFeeCapTooLow: 'ERR_MPOOL_GAS_FEE_CAP_TOO_LOW',
  InvalidSignature: 'ERR_MPOOL_INVALID_SIGNATURE',
  NonceTooLow: 'ERR_MPOOL_NONCE_TOO_LOW',
  NonceGap: 'ERR_MPOOL_NONCE_GAP',
  InvalidSender: 'ERR_MPOOL_INVALID_SENDER',
  NotEnoughFunds: 'ERR_MPOOL_NOT_ENOUGH_FUNDS',
  /** Lotus ErrSoftValidationFailure: refused now, but possibly fine on another node or later. */
  SoftValidation: 'ERR_MPOOL_SOFT_VALIDATION',
  ReplaceByFeeTooLow: 'ERR_MPOOL_RBF_TOO_LOW',
  ExistingNonce: 'ERR_MPOOL_EXISTING_NONCE',
  TooManyPending: 'ERR_MPOOL_TOO_MANY_PENDING',
  InvalidConfig: 'ERR_MPOOL_INVALID_CONFIG',
  /** MpoolPushMessage refused the message before signing it. */
  PushMessage: 'ERR_MPOOL_PUSH_MESSAGE',
  UnknownTipSet: 'ERR_MPOOL_UNKNOWN_TIPSET',
  /** A local message could not be committed to the database; the push changed nothing. */
  Persist: 'ERR_MPOOL_PERSIST',
  Closed: 'ERR_MPOOL_CLOSED',
} as const;
export type MpoolErrorCode = (typeof MpoolErrorCode)[keyof typeof MpoolErrorCode];

export class MpoolError extends LedgerError {
  declare readonly code: MpoolErrorCode;

  constructor(code: MpoolErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }

  /** The same error with Lotus's context prefix (`failed to check balance: …`). */
  wrap(prefix: string): MpoolError {
    return new MpoolError(this.code, `${prefix}: ${this.message}`, { cause: this });
  }
}

export const GasEstimationErrorCode = {
  /** Lotus ErrOutOfGas, JSON-RPC code 2. */
  OutOfGas: 'ERR_GAS_OUT_OF_GAS',
  /** Lotus ErrExecutionReverted, JSON-RPC code 3, with the return data as `0x…` hex. */
  ExecutionReverted: 'ERR_GAS_EXECUTION_REVERTED',
  /** The sender cannot send: unknown, or not an account. */
  SenderInvalid: 'ERR_GAS_SENDER_INVALID',
} as const;
export type GasEstimationErrorCode = (typeof GasEstimationErrorCode)[keyof typeof GasEstimationErrorCode];

export class GasEstimationError extends LedgerError {
  declare readonly code: GasEstimationErrorCode;
  /** For ExecutionReverted: the return data, `0x`-prefixed hex. */
  readonly data: string | undefined;

  constructor(code: GasEstimationErrorCode, message: string, options?: { data?: string; cause?: unknown }) {
    super(code, message, { cause: options?.cause });
    this.data = options?.data;
  }

  wrap(prefix: string): GasEstimationError {
    return new GasEstimationError(this.code, `${prefix}: ${this.message}`, { data: this.data, cause: this });
  }
}
