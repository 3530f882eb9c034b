/**
 * Exit codes (filecoin-project/ref-fvm `shared/src/error/mod.rs`). Codes below 16 are the VM's own;
 * actors abort with 16 and up. 3, 8 and 12–15 are reserved.
 */
export const ExitCode = {
  Ok: 0,
  SysSenderInvalid: 1,
  SysSenderStateInvalid: 2,
  SysIllegalInstruction: 4,
  SysInvalidReceiver: 5,
  SysInsufficientFunds: 6,
  SysOutOfGas: 7,
  SysIllegalExitCode: 9,
  SysAssertionFailed: 10,
  SysMissingReturn: 11,
  UsrIllegalArgument: 16,
  UsrNotFound: 17,
  UsrForbidden: 18,
  UsrInsufficientFunds: 19,
  UsrIllegalState: 20,
  UsrSerialization: 21,
  UsrUnhandledMessage: 22,
  UsrUnspecified: 23,
  UsrAssertionFailed: 24,
  UsrReadOnly: 25,
  UsrNotPayable: 26,
} as const;
export type ExitCode = number;

/** The first code actors may use; below it the VM's own. */
export const FIRST_USER_EXIT_CODE = 16;

/**
 * The code an actor sees when a send it made failed with `code` (builtin-actors
 * `ActorError::checked`): a system code cannot be passed on as the caller's own.
 */
export function exitCodeSeenByCaller(code: ExitCode): ExitCode {
  if (
    code === ExitCode.SysMissingReturn ||
    code === ExitCode.SysIllegalInstruction ||
    code === ExitCode.SysIllegalExitCode
  ) {
    return ExitCode.UsrUnspecified;
  }
  if (code > 0 && code < FIRST_USER_EXIT_CODE) return ExitCode.UsrAssertionFailed;
  return code;
}
