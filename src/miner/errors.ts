import { LedgerError } from '../utils/errors.js';

export const MinerErrorCode = {
  /** The worker key signs with another scheme than BLS, so it cannot produce VRFs. */
  WorkerNotBls: 'ERR_MINER_WORKER_NOT_BLS',
  /** A round at or below its base. */
  BadRound: 'ERR_MINER_BAD_ROUND',
  /** A block template that cannot become a block (unknown parents, bad messages). */
  BadTemplate: 'ERR_MINER_BAD_TEMPLATE',
  /** A persisted sealing sector the pipeline cannot resume (unknown state, a field its state needs is missing). */
  SealingBadRecord: 'ERR_SEALING_BAD_RECORD',
  /** The miner cannot seal here: unknown to the chain, or another sector size than the seal proof's. */
  SealingBadMiner: 'ERR_SEALING_BAD_MINER',
  /** The sealing pipeline was stopped. */
  SealingStopped: 'ERR_SEALING_STOPPED',
} as const;
export type MinerErrorCode = (typeof MinerErrorCode)[keyof typeof MinerErrorCode];

export class MinerError extends LedgerError {
  declare readonly code: MinerErrorCode;

  constructor(code: MinerErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
