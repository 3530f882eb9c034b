import { LedgerError } from '../utils/errors.js';

/**
 * A storage-proof operation failed. `code` comes from the native core:
 * - `ERR_PROOF_PARAMS_MISSING`: the Groth16 parameters are not in the cache (run `ledger proofs params`);
 * - `ERR_INVALID_PROOF_INPUT`: an argument is malformed (the message names it);
 * - `ERR_PROOF_SETTINGS_CONFLICT`: the proofs library already uses other directories in this process;
 * - `ERR_PROOF_IO`: reading or writing sector or parameter files failed;
 * - `ERR_PROOF_FAILED`: the proofs library itself failed.
 *
 * A proof that does not verify is not an error: verification answers `false`.
 */
export class ProofsError extends LedgerError {}

export const PROOFS_ERROR_CODES = [
  'ERR_PROOF_PARAMS_MISSING',
  'ERR_INVALID_PROOF_INPUT',
  'ERR_PROOF_SETTINGS_CONFLICT',
  'ERR_PROOF_IO',
  'ERR_PROOF_FAILED',
] as const;

export type ProofsErrorCode = (typeof PROOFS_ERROR_CODES)[number];
