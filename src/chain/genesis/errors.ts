import { LedgerError } from '../../utils/errors.js';

/** A genesis template that cannot produce a genesis: the message says which part and why. */
export class GenesisError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_GENESIS', message, options);
  }
}
