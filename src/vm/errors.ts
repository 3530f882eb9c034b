import { LedgerError } from '../utils/errors.js';
import type { ExitCode } from './exit-code.js';

/**
 * An actor aborting its invocation: the call's state changes are undone and the caller sees
 * `exitCode` (and `returnData`, if any). Actor code throws it through `Runtime.abort` or the
 * helpers in `actors/actor.ts`; only the call manager catches it.
 */
export class ActorError extends LedgerError {
  readonly exitCode: ExitCode;
  readonly returnData: Uint8Array | null;

  constructor(exitCode: ExitCode, message: string, returnData: Uint8Array | null = null) {
    super('ERR_ACTOR_ABORTED', message, { details: { exitCode } });
    this.exitCode = exitCode;
    this.returnData = returnData;
  }
}

/**
 * The message ran out of gas. It unwinds every call frame up to the message (the FVM's
 * `ExecutionError::OutOfGas`), which then fails with SYS_OUT_OF_GAS.
 */
export class OutOfGasError extends LedgerError {
  constructor(message: string) {
    super('ERR_OUT_OF_GAS', message);
  }
}

/** Error codes of `VmError`. */
export const VmErrorCode = {
  /** Input the VM cannot apply at all (a malformed implicit message, an unknown state version). */
  InvalidInput: 'ERR_VM_INVALID_INPUT',
  /** An invariant broke (the FVM's fatal errors): the state is not trustworthy, stop. */
  Fatal: 'ERR_VM_FATAL',
  /** An implicit message (reward, cron) failed, so the tipset cannot be applied. */
  ImplicitMessageFailed: 'ERR_VM_IMPLICIT_MESSAGE_FAILED',
  /** A message's signature is not its sender's. */
  InvalidSignature: 'ERR_VM_INVALID_SIGNATURE',
} as const;
export type VmErrorCode = (typeof VmErrorCode)[keyof typeof VmErrorCode];

export class VmError extends LedgerError {
  declare readonly code: VmErrorCode;

  constructor(code: VmErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(code, message, options);
  }
}
