/**
 * The node's beacon on a network that uses drand (filecoin-project/lotus `chain/beacon/drand/drand.go`
 * DrandBeacon): entries come from drand relays through `DrandClient`, every one verified against
 * the configured chain info, and verified entries are kept in the node database so a restart or a
 * re-validation does not fetch them again. A round still in the future is waited for until drand
 * publishes it, as Lotus's miner waits on drand.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DrandStore } from '../db/index.js';
import type { BeaconEntry } from '../types/index.js';
import { throwIfAborted } from '../utils/abort.js';
import { bytesEqual } from '../utils/bytes.js';
import { InvalidArgumentError } from '../utils/errors.js';
import type { BeaconSource } from './beacon-source.js';
import { DrandClient, type DrandClientOptions } from './drand-client.js';
import type { DrandNetwork } from './drand-network.js';
import { DrandUnavailableError } from './errors.js';
import { verifyBeaconEntry } from './verify-entry.js';

export interface DrandBeaconOptions extends DrandClientOptions {
  /** Where verified entries are kept (the node passes `LedgerDatabase.drand`); none: fetched every time. */
  readonly store?: Pick<DrandStore, 'get' | 'put'> | undefined;
  /** Unix time in ms (tests shift it to make a round due later). */
  readonly now?: (() => number) | undefined;
  /** Rounds of asking every relay before giving up; a relay a little behind gets another chance. */
  readonly attempts?: number | undefined;
  readonly retryDelayMs?: number | undefined;
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY_MS = 1_000;

export class DrandBeacon implements BeaconSource {
  readonly network: DrandNetwork;
  readonly client: DrandClient;
  readonly #store: Pick<DrandStore, 'get' | 'put'> | undefined;
  readonly #now: () => number;
  readonly #attempts: number;
  readonly #retryDelayMs: number;
  /** One fetch per round at a time for callers without a signal: they share it. */
  readonly #inFlight = new Map<bigint, Promise<BeaconEntry>>();

  constructor(options: DrandBeaconOptions) {
    this.client = new DrandClient(options);
    this.network = this.client.network;
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
    this.#retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  }

  /** Unix time (s) drand publishes `round` at: round 1 at its genesis, one more every period. */
  roundTime(round: bigint): bigint {
    return this.network.genesisTime + (round - 1n) * this.network.periodSecs;
  }

  /** The verified entry of `round`: from the database, else from a relay once the round is due. */
  entry(round: bigint, signal?: AbortSignal): Promise<BeaconEntry> {
    if (round < 1n) return Promise.reject(new InvalidArgumentError(`drand rounds start at 1, got ${round}`));
    const stored = this.#store?.get(this.client.chainInfo.hash, round);
    if (stored !== undefined) return Promise.resolve({ round, data: stored.signature });
    // A caller with its own signal fetches alone, so that giving up does not fail the others.
    if (signal !== undefined) return this.#fetch(round, signal);
    let pending = this.#inFlight.get(round);
    if (pending === undefined) {
      pending = this.#fetch(round, undefined).finally(() => this.#inFlight.delete(round));
      this.#inFlight.set(round, pending);
    }
    return pending;
  }

  /**
   * True iff `entry` is this network's entry for its round (Lotus `VerifyEntry`): a stored round
   * answers from the database (a different signature is false), otherwise the signature is
   * verified and, when good, stored. Chained networks need the previous round's entry.
   */
  verifyEntry(entry: BeaconEntry, previous?: BeaconEntry): boolean {
    const stored = this.#store?.get(this.client.chainInfo.hash, entry.round);
    if (stored !== undefined) return bytesEqual(stored.signature, entry.data);
    let valid: boolean;
    try {
      valid = verifyBeaconEntry(this.network, entry, previous);
    } catch {
      valid = false;
    }
    if (valid) this.#put(entry, previous?.data);
    return valid;
  }

  async #fetch(round: bigint, signal: AbortSignal | undefined): Promise<BeaconEntry> {
    const dueInMs = Number(this.roundTime(round)) * 1000 - this.#now();
    if (dueInMs > 0) await wait(dueInMs, signal);
    const knownPrevious =
      this.network.scheme === 'chained'
        ? this.#store?.get(this.client.chainInfo.hash, round - 1n)?.signature
        : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const verified = await this.client.get(round, { signal, knownPrevious });
        this.#put(verified.entry, verified.previousSignature);
        return verified.entry;
      } catch (error) {
        if (!(error instanceof DrandUnavailableError) || attempt >= this.#attempts) throw error;
        await wait(this.#retryDelayMs, signal);
      }
    }
  }

  #put(entry: BeaconEntry, previousSignature: Uint8Array | undefined): void {
    this.#store?.put(this.client.chainInfo.hash, entry.round, { signature: entry.data, previousSignature });
  }
}

async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throwIfAborted(signal);
    throw error;
  }
}
