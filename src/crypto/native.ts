/** The addon, loaded once. Only src/crypto and src/proofs may import `@ledger-node/native`. */
import * as native from '@ledger-node/native';
import { nativeCaller } from '../utils/native-errors.js';
import { CRYPTO_ERROR_CODES, CryptoError } from './errors.js';

export { native };

/** Calls into the addon, turning its errors into CryptoErrors with the same code. */
export const { call, callAsync } = nativeCaller({
  codes: CRYPTO_ERROR_CODES,
  invalidArgumentCode: 'ERR_INVALID_ARGUMENT',
  create: (code, message, cause) => new CryptoError(code, message, { cause }),
});
