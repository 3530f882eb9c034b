/**
 * Turns for expensive calls (methods declared `expensive`: StateCompute, StateReplay, gas
 * estimation, MinerGetBaseInfo …): at most `maxConcurrentExpensiveCalls` run at once, and at most
 * `maxConcurrentExpensiveCallsPerConnection` of one connection. A call over a limit waits its
 * turn, first come first served, for at most `expensiveCallQueueMs`, then is refused with an
 * error naming the limit. Waiting a little, rather than refusing at once, keeps an honest client
 * that estimates gas for a few messages in parallel from seeing errors in a burst; the bounded
 * wait and the bounded queue keep a hostile one from piling work up.
 */
import { AbortedError } from '../utils/abort.js';
import { LIMIT_CONFIG_KEYS, limitExceeded, type RpcLimits } from './limits.js';

/** Calls waiting for a turn, per allowed running call: beyond it a call is refused at once. */
const QUEUE_PER_SLOT = 16;

/** Gives the turn back; call it exactly once, when the call has ended. */
export type Release = () => void;

interface Waiter {
  readonly connection: object | undefined;
  readonly grant: () => void;
}

export class ExpensiveCallGate {
  readonly #limits: RpcLimits;
  #running = 0;
  readonly #byConnection = new WeakMap<object, number>();
  readonly #queue: Waiter[] = [];

  constructor(limits: RpcLimits) {
    this.#limits = limits;
  }

  /** Expensive calls running now. */
  get running(): number {
    return this.#running;
  }

  /** Expensive calls waiting for a turn now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * A turn for a call of `method` on `connection` (undefined: a call counted in the total only):
   * at once when both limits allow it, else after waiting. Rejects when the wait times out, the
   * queue is full, or `signal` fires (the client left, the node stops).
   */
  acquire(method: string, connection: object | undefined, signal: AbortSignal | undefined): Release | Promise<Release> {
    if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
    if (this.#fits(connection)) return this.#take(connection);
    const limits = this.#limits;
    if (this.#queue.length >= limits.maxConcurrentExpensiveCalls * QUEUE_PER_SLOT) {
      return Promise.reject(this.#refusal(method, connection, 'and too many calls already waiting'));
    }
    return new Promise<Release>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
      };
      const onAbort = () => {
        leave();
        reject(new AbortedError(signal?.reason));
      };
      const timer = setTimeout(() => {
        leave();
        reject(this.#refusal(method, connection, `for ${limits.expensiveCallQueueMs} ms`));
      }, limits.expensiveCallQueueMs);
      const waiter: Waiter = {
        connection,
        grant: () => {
          leave();
          resolve(this.#take(connection));
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #fits(connection: object | undefined): boolean {
    if (this.#running >= this.#limits.maxConcurrentExpensiveCalls) return false;
    return (
      connection === undefined ||
      (this.#byConnection.get(connection) ?? 0) < this.#limits.maxConcurrentExpensiveCallsPerConnection
    );
  }

  #take(connection: object | undefined): Release {
    this.#running++;
    if (connection !== undefined) this.#byConnection.set(connection, (this.#byConnection.get(connection) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      if (connection !== undefined) this.#byConnection.set(connection, (this.#byConnection.get(connection) ?? 1) - 1);
      this.#next();
    };
  }

  /** Grants turns to the first waiters that fit, in arrival order. */
  #next(): void {
    for (let i = 0; i < this.#queue.length && this.#running < this.#limits.maxConcurrentExpensiveCalls; ) {
      const waiter = this.#queue[i] as Waiter;
      if (this.#fits(waiter.connection)) waiter.grant();
      else i++;
    }
  }

  #refusal(method: string, connection: object | undefined, how: string) {
    const limits = this.#limits;
    const perConnection =
      connection !== undefined &&
      (this.#byConnection.get(connection) ?? 0) >= limits.maxConcurrentExpensiveCallsPerConnection;
    const [limit, key] = perConnection
      ? [
          `${limits.maxConcurrentExpensiveCallsPerConnection} per connection`,
          LIMIT_CONFIG_KEYS.maxConcurrentExpensiveCallsPerConnection,
        ]
      : [`${limits.maxConcurrentExpensiveCalls} in total`, LIMIT_CONFIG_KEYS.maxConcurrentExpensiveCalls];
    return limitExceeded(
      `too many expensive calls at once: '${method}' found the ${limit} taken ${how} (raise ${key} in config.toml, or send fewer at a time)`,
    );
  }
}
