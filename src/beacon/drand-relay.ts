/**
 * One drand HTTP relay, spoken to as drand's clients do (drand/go-clients `client/http/http.go`):
 * `GET {url}/{chainhash}/info`, `GET {url}/{chainhash}/public/{round}` and `…/public/latest`, or the
 * un-prefixed legacy paths (`{url}/info`, `{url}/public/{round}`) that relays serve for drand's
 * default chain (mainnet). Answers are parsed, not trusted: `DrandClient` verifies them.
 */
import { createHash } from 'node:crypto';
import { throwIfAborted } from '../utils/abort.js';
import { bytesEqual, fromHex, toHex } from '../utils/bytes.js';
import { DrandRelayError } from './errors.js';

/** A relay: its base URL, and whether it only serves the legacy paths without a chain hash. */
export interface DrandRelayConfig {
  readonly url: string;
  readonly legacyPaths?: boolean | undefined;
}

/** A round as a relay served it: drand's `round`, `signature`, `previous_signature` (chained only). */
export interface DrandRoundAnswer {
  readonly round: bigint;
  readonly signature: Uint8Array;
  readonly previousSignature: Uint8Array | undefined;
}

/** drand's own clients give a relay 5 s for a small request (go-clients `maxTimeoutHTTPRequest`). */
export const DEFAULT_RELAY_TIMEOUT_MS = 5_000;

/** Chain infos and rounds are a few hundred bytes; anything much larger is not a drand answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

export class DrandHttpRelay {
  readonly url: string;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(config: DrandRelayConfig, chainHash: Uint8Array, timeoutMs = DEFAULT_RELAY_TIMEOUT_MS) {
    this.url = config.url.replace(/\/+$/, '');
    this.#prefix = config.legacyPaths ? this.url : `${this.url}/${toHex(chainHash)}`;
    this.#timeoutMs = timeoutMs;
  }

  /** The relay's chain info JSON, unparsed. */
  info(signal?: AbortSignal): Promise<unknown> {
    return this.#get(`${this.#prefix}/info`, undefined, signal);
  }

  /** Round `round` (or the latest one) as served; `signature` matches `randomness` = sha256(signature). */
  async round(round: bigint | 'latest', signal?: AbortSignal): Promise<DrandRoundAnswer> {
    const requested = round === 'latest' ? undefined : round;
    const json = await this.#get(`${this.#prefix}/public/${round}`, requested, signal);
    const malformed = (why: string): never => {
      throw new DrandRelayError(this.url, `round ${round}: ${why}`, { round: requested, reason: 'malformed' });
    };
    if (typeof json !== 'object' || json === null) return malformed('the answer is not a JSON object');
    const { round: servedRound, signature, previous_signature, randomness } = json as Record<string, unknown>;
    if (typeof servedRound !== 'number' || !Number.isSafeInteger(servedRound) || servedRound < 1) {
      return malformed(`"round" is ${JSON.stringify(servedRound)}`);
    }
    if (requested !== undefined && BigInt(servedRound) !== requested) {
      return malformed(`the relay answered round ${servedRound}`);
    }
    const hex = (name: string, value: unknown): Uint8Array => {
      if (typeof value === 'string') {
        try {
          return fromHex(value);
        } catch {}
      }
      return malformed(`"${name}" is not hex`);
    };
    const sig = hex('signature', signature);
    if (sig.length === 0) malformed('"signature" is empty');
    if (randomness !== undefined) {
      const digest = new Uint8Array(createHash('sha256').update(sig).digest());
      if (!bytesEqual(hex('randomness', randomness), digest)) malformed('"randomness" is not sha256(signature)');
    }
    const previousSignature =
      previous_signature === undefined || previous_signature === '' || previous_signature === null
        ? undefined
        : hex('previous_signature', previous_signature);
    return { round: BigInt(servedRound), signature: sig, previousSignature };
  }

  async #get(url: string, round: bigint | undefined, signal: AbortSignal | undefined): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const fail = (message: string, reason: 'not-found' | 'malformed' | 'unreachable', cause?: unknown): never => {
      throw new DrandRelayError(this.url, `GET ${url}: ${message}`, { cause, round, reason });
    };
    let response: Response;
    let body: string;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
      body = await response.text();
    } catch (error) {
      throwIfAborted(signal);
      if (timeout.aborted) return fail(`no answer within ${this.#timeoutMs} ms`, 'unreachable', error);
      return fail((error as Error).message, 'unreachable', error);
    }
    if (response.status === 404) return fail('HTTP 404 (not published there)', 'not-found');
    if (!response.ok) return fail(`HTTP ${response.status}`, 'unreachable');
    if (body.length > MAX_ANSWER_BYTES) return fail(`an answer of ${body.length} bytes`, 'malformed');
    try {
      return JSON.parse(body) as unknown;
    } catch (error) {
      return fail('the answer is not JSON', 'malformed', error);
    }
  }
}
