/**
 * Expected Consensus: block and tipset validation, and the pieces block production shares with
 * it (randomness inputs, WinCount, lookback, beacon entries, the winning PoSt challenge, the
 * worker key).
 */
export { beaconEntriesForBlock, validateBeaconValues } from './beacon-values.js';
export {
  ALLOWABLE_CLOCK_DRIFT_SECS,
  BlockValidator,
  type BlockValidatorOptions,
  chainClockOf,
} from './block-validator.js';
export { BlockCheckError, type BlockCheckFailure, BlockErrorCode, BlockValidationError } from './errors.js';
export { type Lookback, lookbackForRound } from './lookback.js';
export { checkBlockMessages, checkBlsAggregate } from './message-checks.js';
export { minerWorkerKey } from './miner-keys.js';
export { electionVrfInput, randomnessBase, ticketVrfInput, winningPoStRandomness } from './randomness.js';
export { isValidForSending } from './senders.js';
export { SlashFilter } from './slash-filter.js';
export { computeWinCount } from './win-count.js';
export { type WinningPoStChallenge, winningPoStChallenge } from './winning-post.js';
