/** The ActorError an actor's code throws (its exit code and message are what tests check). */
import { ActorError } from '../../src/vm/errors.js';

/** Runs `run` and returns the ActorError it throws; anything else, or no error, fails the test. */
export function catchActorError(run: () => unknown): ActorError {
  try {
    run();
  } catch (error) {
    if (error instanceof ActorError) return error;
    throw error;
  }
  throw new Error('expected an ActorError, but the call succeeded');
}
