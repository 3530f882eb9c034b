/** The addon's proof functions. Only src/crypto and src/proofs may import `@ledger-node/native`. */
import * as native from '@ledger-node/native';
import { nativeCaller } from '../utils/native-errors.js';
import { PROOFS_ERROR_CODES, ProofsError } from './errors.js';

export { native };

/** Calls into the addon, turning its errors (and promise rejections) into ProofsErrors. */
export const { call, callAsync } = nativeCaller({
  codes: PROOFS_ERROR_CODES,
  invalidArgumentCode: 'ERR_INVALID_PROOF_INPUT',
  create: (code, message, cause) => new ProofsError(code, message, { cause }),
});
