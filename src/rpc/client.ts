/**
 * A JSON-RPC client for the node (and for Lotus: it speaks the same protocol). `RpcClient` sends
 * one call per HTTP POST with the token as a Bearer header; `ledgerApi` wraps it in `LedgerApi`,
 * whose methods and their Lotus JSON types are derived from the method declarations
 * (`rpc/methods/`), so client and server cannot drift apart.
 * Failures are LedgerErrors: `NodeUnreachableError` when nothing answers, `RpcHttpError` for an
 * HTTP-level refusal (401: bad token), `JsonRpcError` (with `rpcCode`) for a JSON-RPC error.
 */
import { parseJsonLossless, stringifyJsonLossless } from '../types/index.js';
import type { ChannelId } from './channel.js';
import { JsonRpcError, NodeUnreachableError, RpcHttpError } from './errors.js';
import { type ApiVersion, type DeclaredMethod, NAMESPACES } from './method.js';
import type { allMethods } from './methods/index.js';

export interface RpcClientOptions {
  /** The full URL of an API path, e.g. `http://127.0.0.1:1234/rpc/v1`. */
  readonly url: string;
  readonly token?: string | undefined;
  /** Per-call time limit in milliseconds (default 60 s). */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export class RpcClient {
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  #nextId = 1;

  constructor(options: RpcClientOptions) {
    this.url = options.url;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#headers = { 'content-type': 'application/json' };
    if (options.token !== undefined && options.token !== '') this.#headers.authorization = `Bearer ${options.token}`;
  }

  /** Calls `method` (its full name, e.g. `Ledger.Version`) and returns the `result` JSON. */
  async request(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const id = this.#nextId++;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: this.#headers,
        body: stringifyJsonLossless({ jsonrpc: '2.0', method, params, id }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new NodeUnreachableError(this.url, error);
    }
    // Lotus answers protocol errors with HTTP 500 and a JSON-RPC body, so any status may carry one.
    const body = parseResponse(text);
    if (body === undefined) throw new RpcHttpError(this.url, response.status, text);
    if (body.error !== undefined) {
      const { code, message, data } = body.error as { code?: unknown; message?: unknown; data?: unknown };
      throw new JsonRpcError(
        typeof code === 'number' ? code : Number(code),
        typeof message === 'string' ? message : 'JSON-RPC error without a message',
        { data },
      );
    }
    if (!response.ok) throw new RpcHttpError(this.url, response.status, text);
    return body.result;
  }
}

function parseResponse(text: string): Record<string, unknown> | undefined {
  try {
    const body = parseJsonLossless(text);
    if (typeof body === 'object' && body !== null && ('result' in body || 'error' in body)) {
      return body as Record<string, unknown>;
    }
  } catch {
    // not JSON: an HTTP-level answer
  }
  return undefined;
}

/**
 * The methods served on `/rpc/v1` (the path the client talks to), from their declarations; not the
 * channel methods, which HTTP cannot carry.
 */
type V1Method<M = (typeof allMethods)[number]> =
  M extends DeclaredMethod<string, readonly unknown[], ChannelId<unknown>, ApiVersion>
    ? never
    : M extends DeclaredMethod<string, readonly unknown[], unknown, infer V>
      ? 1 extends V
        ? M
        : never
      : never;

/**
 * The node's API, typed from the method declarations: each method takes the Lotus JSON of its
 * parameters and resolves to the Lotus JSON of its result (`(await api.ChainHead()).Height`).
 * Decode with the types' `…FromLotusJson` where a value is needed.
 */
export type LedgerApi = {
  readonly [M in V1Method as M['name']]: M extends DeclaredMethod<string, infer A, infer J, ApiVersion>
    ? (...params: A) => Promise<J>
    : never;
};

/**
 * A LedgerApi over `rpc`, calling `Ledger.<Name>`. Only PascalCase names are methods (Lotus names
 * all are), so the object is no thenable and prints nothing surprising.
 */
export function ledgerApi(rpc: RpcClient): LedgerApi {
  const calls = new Map<string, (...params: unknown[]) => Promise<unknown>>();
  return new Proxy({} as LedgerApi, {
    get: (_target, name) => {
      if (typeof name !== 'string' || !/^[A-Z]/.test(name)) return undefined;
      let call = calls.get(name);
      if (call === undefined) {
        call = (...params) => rpc.request(`${NAMESPACES[0]}.${name}`, params);
        calls.set(name, call);
      }
      return call;
    },
  });
}
