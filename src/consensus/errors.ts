import { LedgerError } from '../utils/errors.js';

/**
 * Why a block is invalid: one code per check of Lotus's `ValidateBlock` (filecoin-project/lotus
 * `chain/consensus/filcns/filecoin.go`).
 */
export const BlockErrorCode = {
  /** Missing ticket, election proof, signature or aggregate, or a miner that is not an ID address. */
  Malformed: 'ERR_BLOCK_MALFORMED',
  UnknownParent: 'ERR_UNKNOWN_PARENT',
  BadHeight: 'ERR_BAD_HEIGHT',
  BadTimestamp: 'ERR_BAD_TIMESTAMP',
  /** The block's time has not come yet (a temporal failure: the block may become valid). */
  FromFuture: 'ERR_BLOCK_FROM_FUTURE',
  /** The miner has no power claim, is not eligible, or was slashed. */
  BadMiner: 'ERR_BAD_MINER',
  WrongParentWeight: 'ERR_WRONG_PARENT_WEIGHT',
  BadElectionProof: 'ERR_BAD_ELECTION_PROOF',
  BadBlockSignature: 'ERR_BAD_BLOCK_SIGNATURE',
  BadBeaconEntries: 'ERR_BAD_BEACON_ENTRIES',
  BadTicket: 'ERR_BAD_TICKET',
  BadWinningPoSt: 'ERR_BAD_WINNING_POST',
  BadBlsAggregate: 'ERR_BAD_BLS_AGGREGATE',
  BadMessages: 'ERR_BAD_BLOCK_MESSAGES',
  WrongBaseFee: 'ERR_WRONG_BASE_FEE',
  /** ParentStateRoot or ParentMessageReceipts differ from executing the parent tipset. */
  WrongParentState: 'ERR_WRONG_PARENT_STATE',
  /** The local slash filter refused a block that would double-sign. */
  DoubleSign: 'ERR_DOUBLE_SIGN',
} as const;
export type BlockErrorCode = (typeof BlockErrorCode)[keyof typeof BlockErrorCode];

export interface BlockCheckFailure {
  readonly code: BlockErrorCode;
  readonly reason: string;
}

/**
 * A block failed validation. Like Lotus, every check runs and every failure is reported: `code`
 * is the first failure in checklist order, `failures` lists them all.
 */
export class BlockValidationError extends LedgerError {
  declare readonly code: BlockErrorCode;
  readonly failures: readonly BlockCheckFailure[];

  constructor(block: string, failures: readonly BlockCheckFailure[]) {
    const [first, ...rest] = failures;
    if (first === undefined) throw new TypeError('a validation error needs a failure');
    const more = rest.length === 0 ? '' : `; and ${rest.map((f) => `${f.reason} (${f.code})`).join('; ')}`;
    super(first.code, `block ${block} is invalid: ${first.reason}${more}`, { details: { failures } });
    this.failures = failures;
  }

  /** A temporal failure only: the block may be valid later (Lotus `ErrTemporal`). */
  get temporal(): boolean {
    return this.failures.every((f) => f.code === BlockErrorCode.FromFuture);
  }
}

/** One check's failure, thrown inside a check and collected by the validator. */
export class BlockCheckError extends LedgerError {
  declare readonly code: BlockErrorCode;

  constructor(code: BlockErrorCode, reason: string) {
    super(code, reason);
  }
}
