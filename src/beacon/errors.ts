import { LedgerError } from '../utils/errors.js';

/**
 * A drand relay gave something the client refuses: a chain info that is not the configured
 * chain's, a round whose signature does not verify, a malformed answer, an HTTP error or a
 * timeout. The message names the relay and, for rounds, the round.
 */
export class DrandRelayError extends LedgerError {
  constructor(
    readonly relay: string,
    message: string,
    options?: { cause?: unknown; round?: bigint; reason?: DrandRelayFailure },
  ) {
    super('ERR_DRAND_RELAY', `drand relay ${relay}: ${message}`, {
      cause: options?.cause,
      details: {
        relay,
        ...(options?.round === undefined ? {} : { round: options.round.toString() }),
        reason: options?.reason ?? 'unreachable',
      },
    });
  }

  get reason(): DrandRelayFailure {
    return this.details!.reason as DrandRelayFailure;
  }
}

/**
 * Why a relay failed: `wrong-chain` (its /info is another chain), `invalid-entry` (a round that does
 * not verify: a tampered or corrupt relay), `not-found` (HTTP 404: the round is not published there
 * yet), `malformed`, `unreachable` (network error, other HTTP status, timeout).
 */
export type DrandRelayFailure = 'wrong-chain' | 'invalid-entry' | 'not-found' | 'malformed' | 'unreachable';

/** No relay served a verified entry for `round`; `failures` holds each relay's error. */
export class DrandUnavailableError extends LedgerError {
  constructor(
    readonly round: bigint | 'latest',
    readonly failures: readonly DrandRelayError[],
  ) {
    const what = round === 'latest' ? 'the latest round' : `round ${round}`;
    const why = failures.length === 0 ? 'no relays configured' : failures.map((f) => f.message).join('; ');
    super('ERR_DRAND_UNAVAILABLE', `no drand relay served a verified entry for ${what}: ${why}`, {
      details: { round: String(round), relays: failures.map((f) => f.relay) },
    });
  }
}

/** A drand chain info (configured or served) that the node cannot use: unknown scheme, bad key, wrong hash. */
export class DrandChainInfoError extends LedgerError {
  constructor(message: string) {
    super('ERR_DRAND_CHAIN_INFO', message);
  }
}
