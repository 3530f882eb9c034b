/**
 * Ending long work early: RPC calls get an abort signal that fires when their client goes away
 * or the node stops, and loops whose work grows with an input (beacon rounds, tipsets, messages)
 * check it between steps, so an abandoned call stops using CPU and a stopping node does not
 * wait for it.
 */
import { LedgerError } from './errors.js';

/** Work given up because its signal fired; the message says why (`the client went away`, `the node is stopping`). */
export class AbortedError extends LedgerError {
  constructor(reason: unknown) {
    const why = reason instanceof Error ? reason.message : String(reason ?? 'aborted');
    super('ERR_ABORTED', `aborted: ${why}`, { cause: reason });
  }
}

/** Throws an AbortedError when `signal` has fired; does nothing without a signal. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError(signal.reason);
}

/** Hands the event loop back for a turn (a long loop lets the node serve meanwhile), then throws if `signal` fired. */
export async function nextTurn(signal: AbortSignal | undefined): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  throwIfAborted(signal);
}
