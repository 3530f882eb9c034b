import { LedgerError } from '../utils/errors.js';

export const ChainErrorCode = {
  /** A block, tipset or message the chain does not have. */
  NotFound: 'ERR_CHAIN_NOT_FOUND',
  /** A height outside what the request can reach (negative, or above its start). */
  InvalidHeight: 'ERR_CHAIN_INVALID_HEIGHT',
  /** The database holds no chain, or another chain than the one asked for. */
  NoChain: 'ERR_NO_CHAIN',
  GenesisMismatch: 'ERR_GENESIS_MISMATCH',
  /** A tipset's parent state has no power, so it has no weight (Lotus: "the net is dead"). */
  NoPower: 'ERR_CHAIN_NO_POWER',
  /** A prune asked for while one runs, or with a window that keeps nothing. */
  Prune: 'ERR_CHAIN_PRUNE',
} as const;
export type ChainErrorCode = (typeof ChainErrorCode)[keyof typeof ChainErrorCode];

/** A chain query or update that cannot be served; the message says which object and why. */
export class ChainError extends LedgerError {
  declare readonly code: ChainErrorCode;

  constructor(code: ChainErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
