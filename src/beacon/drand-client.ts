/**
 * A drand client over several HTTP relays, with failover. Lotus gives drand a list of servers
 * (filecoin-project/lotus `build/buildconstants/drand.go` Servers) and drand's client wraps them
 * with failover (drand/go-clients `client`); here a request goes to the relay that last served a
 * verified entry, then to the others in their configured order.
 *
 * Nothing a relay says is trusted: its chain info must be the configured chain (same chain hash,
 * public key and scheme) before any round is taken from it, and every round must verify against
 * the configured public key. A relay that fails either is refused and the next one asked.
 */
import type { BeaconEntry } from '../types/index.js';
import { throwIfAborted } from '../utils/abort.js';
import { bytesEqual, toHex } from '../utils/bytes.js';
import { type DrandChainInfo, drandNetworkOf, parseDrandChainInfo, sameDrandChain } from './drand-chain-info.js';
import type { DrandNetwork } from './drand-network.js';
import {
  DEFAULT_RELAY_TIMEOUT_MS,
  DrandHttpRelay,
  type DrandRelayConfig,
  type DrandRoundAnswer,
} from './drand-relay.js';
import { DrandRelayError, DrandUnavailableError } from './errors.js';
import { verifyBeaconEntry } from './verify-entry.js';

export interface DrandClientOptions {
  /** Names the network in logs and errors (e.g. `quicknet`). */
  readonly name: string;
  /** The trust root, from the network's configuration (never from a relay). */
  readonly chainInfo: DrandChainInfo;
  readonly relays: readonly DrandRelayConfig[];
  readonly timeoutMs?: number | undefined;
  /** Told about every relay failure, refused rounds included (the node logs them). */
  readonly onRelayError?: ((error: DrandRelayError) => void) | undefined;
}

/** A verified round: its entry and, on a chained network, the previous round's signature it was verified with. */
export interface VerifiedDrandEntry {
  readonly entry: BeaconEntry;
  readonly previousSignature: Uint8Array | undefined;
}

interface RelayState {
  readonly relay: DrandHttpRelay;
  /** Settles once the relay's chain info was checked. */
  infoChecked: Promise<void> | undefined;
  /** Set when its chain info is not the configured chain: never asked again, reported once. */
  refused: DrandRelayError | undefined;
}

export class DrandClient {
  readonly network: DrandNetwork;
  readonly chainInfo: DrandChainInfo;
  readonly #relays: RelayState[];
  readonly #onRelayError: (error: DrandRelayError) => void;
  #preferred = 0;

  constructor(options: DrandClientOptions) {
    this.chainInfo = options.chainInfo;
    this.network = drandNetworkOf(options.name, options.chainInfo);
    const timeoutMs = options.timeoutMs ?? DEFAULT_RELAY_TIMEOUT_MS;
    this.#relays = options.relays.map((config) => ({
      relay: new DrandHttpRelay(config, options.chainInfo.hash, timeoutMs),
      infoChecked: undefined,
      refused: undefined,
    }));
    this.#onRelayError = options.onRelayError ?? (() => {});
  }

  /**
   * Round `round` (or the latest), verified, from the first relay that serves it. On a chained
   * network, `knownPrevious` (round − 1's verified signature, when the caller has it) must be the
   * `previous_signature` the relay sends. Throws DrandUnavailableError with every relay's failure.
   */
  async get(
    round: bigint | 'latest',
    options: { signal?: AbortSignal | undefined; knownPrevious?: Uint8Array | undefined } = {},
  ): Promise<VerifiedDrandEntry> {
    const failures: DrandRelayError[] = [];
    for (let i = 0; i < this.#relays.length; i++) {
      const index = (this.#preferred + i) % this.#relays.length;
      const state = this.#relays[index]!;
      throwIfAborted(options.signal);
      if (state.refused !== undefined) {
        failures.push(state.refused);
        continue;
      }
      try {
        await this.#checkInfo(state);
        const verified = this.#verify(
          state.relay,
          await state.relay.round(round, options.signal),
          options.knownPrevious,
        );
        this.#preferred = index;
        return verified;
      } catch (error) {
        if (!(error instanceof DrandRelayError)) throw error;
        failures.push(error);
        this.#onRelayError(error);
      }
    }
    throw new DrandUnavailableError(round, failures);
  }

  /**
   * Checks a relay's /info once, shared by concurrent requests (so no caller's signal; the timeout
   * bounds it). A relay of another chain is refused for good; one that could not be reached is
   * asked again next time.
   */
  #checkInfo(state: RelayState): Promise<void> {
    state.infoChecked ??= this.#fetchAndCompareInfo(state.relay).catch((error: unknown) => {
      if (error instanceof DrandRelayError && error.reason === 'wrong-chain') state.refused = error;
      else state.infoChecked = undefined;
      throw error;
    });
    return state.infoChecked;
  }

  async #fetchAndCompareInfo(relay: DrandHttpRelay): Promise<void> {
    const json = await relay.info();
    let served: DrandChainInfo;
    try {
      served = parseDrandChainInfo(json, `drand relay ${relay.url} /info`);
    } catch (error) {
      throw new DrandRelayError(relay.url, `refused: ${(error as Error).message}`, {
        cause: error,
        reason: 'wrong-chain',
      });
    }
    if (!sameDrandChain(served, this.chainInfo)) {
      throw new DrandRelayError(
        relay.url,
        `refused: it serves drand chain ${toHex(served.hash)}, not the configured ${this.network.name} chain ${toHex(this.chainInfo.hash)}`,
        { reason: 'wrong-chain' },
      );
    }
  }

  #verify(relay: DrandHttpRelay, answer: DrandRoundAnswer, knownPrevious: Uint8Array | undefined): VerifiedDrandEntry {
    const refuse = (why: string): never => {
      throw new DrandRelayError(relay.url, `refused round ${answer.round}: ${why}`, {
        round: answer.round,
        reason: 'invalid-entry',
      });
    };
    const entry = { round: answer.round, data: answer.signature };
    if (this.network.scheme === 'unchained') {
      if (!verifies(() => verifyBeaconEntry(this.network, entry))) {
        refuse(`its signature does not verify against the ${this.network.name} public key`);
      }
      return { entry, previousSignature: undefined };
    }
    const previous = answer.previousSignature;
    if (previous === undefined) return refuse('a chained round needs its previous_signature');
    if (knownPrevious !== undefined && !bytesEqual(previous, knownPrevious)) {
      refuse(`its previous_signature is not the verified signature of round ${answer.round - 1n}`);
    }
    const previousEntry = { round: answer.round - 1n, data: previous };
    if (!verifies(() => verifyBeaconEntry(this.network, entry, previousEntry))) {
      refuse(`its signature does not verify against the ${this.network.name} public key`);
    }
    return { entry, previousSignature: previous };
  }
}

/** A signature of the wrong length or off the curve is a failed verification, not a crash. */
function verifies(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}
