/**
 * The aborts of the miner's state code that runs without a Runtime (partitions, deadlines,
 * expiration queues, sectors): builtin-actors returns `actor_error!(illegal_argument | illegal_state
 * | not_found; …)` from them, and the method that called them aborts with that exit code.
 */
import { ActorError } from '../../errors.js';
import { ExitCode } from '../../exit-code.js';

export function illegalArgument(message: string): never {
  throw new ActorError(ExitCode.UsrIllegalArgument, message);
}

export function illegalState(message: string): never {
  throw new ActorError(ExitCode.UsrIllegalState, message);
}

export function notFound(message: string): never {
  throw new ActorError(ExitCode.UsrNotFound, message);
}

/** Runs `load`; a failure that is not already an ActorError (a missing block, a bad encoding) is USR_ILLEGAL_STATE. */
export function orIllegalState<T>(what: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ActorError) throw error;
    return illegalState(`${what}: ${(error as Error).message}`);
  }
}
