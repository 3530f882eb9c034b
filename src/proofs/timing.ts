/**
 * How long each proof took, told to whoever listens (the node's metrics, src/metrics): a listener
 * set rather than a metrics library, so this module stays free of one. Proofs run on the addon's
 * threads for the whole process, so a listener hears every proof of the process, whichever node
 * (in a process running several) asked for it.
 */

/** The proofs the node generates or verifies. */
export type ProofKind = 'winning_post' | 'window_post' | 'seal';
/** `batch_verify`: one batch of seal proofs checked together (one timing per batch). */
export type ProofOperation = 'generate' | 'verify' | 'batch_verify';

export interface ProofTiming {
  readonly proof: ProofKind;
  readonly operation: ProofOperation;
  readonly seconds: number;
  /** False when the proof call threw (a refused input, missing parameters); a proof that is merely invalid is `true`. */
  readonly completed: boolean;
}

export type ProofTimingListener = (timing: ProofTiming) => void;

const listeners = new Set<ProofTimingListener>();

/** Calls `listener` after every proof from now on; returns the function that stops it. */
export function onProofTiming(listener: ProofTimingListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function tell(proof: ProofKind, operation: ProofOperation, started: number, completed: boolean): void {
  const timing = { proof, operation, seconds: (performance.now() - started) / 1000, completed };
  for (const listener of listeners) listener(timing);
}

/** Runs an asynchronous proof call and tells the listeners how long it took. */
export function timedProof<T>(proof: ProofKind, operation: ProofOperation, run: () => Promise<T>): Promise<T> {
  if (listeners.size === 0) return run();
  const started = performance.now();
  return run().then(
    (value) => {
      tell(proof, operation, started, true);
      return value;
    },
    (error: unknown) => {
      tell(proof, operation, started, false);
      throw error;
    },
  );
}

/** `timedProof` for a call that blocks the calling thread (the VM's proof syscalls). */
export function timedProofSync<T>(proof: ProofKind, operation: ProofOperation, run: () => T): T {
  if (listeners.size === 0) return run();
  const started = performance.now();
  let completed = false;
  try {
    const value = run();
    completed = true;
    return value;
  } finally {
    tell(proof, operation, started, completed);
  }
}
