/**
 * JSON-RPC 2.0 over the method declarations, independent of HTTP: a request body in, a response
 * body out (or none, for notifications). Single calls and batches (run in order, as go-jsonrpc
 * does), ids of any JSON type echoed as sent, positional params only (go-jsonrpc refuses named
 * ones), exact arity, strict parameter decoding, Lotus's permission check and error codes.
 * A failure that is not a LedgerError is a bug: the client gets -32603 and the log gets the stack.
 * The API limits (docs/rpc-limits.md) hold here: batch length, answer size, and turns for
 * expensive calls; a batch stops running when its caller goes away or the node stops.
 * Channel methods (channel.ts) open their channel through the transport's `ChannelHost`; without
 * one (HTTP POST) they are refused as go-jsonrpc refuses them.
 */
import { isLosslessNumber } from 'lossless-json';
import type { Logger } from 'pino';
import { stringifyJsonLossless } from '../types/index.js';
import { AbortedError } from '../utils/abort.js';
import { LedgerError } from '../utils/errors.js';
import { type ChannelHost, noChannelSupport, OpenChannel } from './channel.js';
import type { RpcContext, Service } from './context.js';
import { JsonRpcError, JsonRpcErrorCode, permissionDenied, ServiceUnavailableError } from './errors.js';
import { ExpensiveCallGate } from './expensive-calls.js';
import { LIMIT_CONFIG_KEYS, type RpcLimits, responseTooLarge, rpcLimits } from './limits.js';
import { type ApiVersion, type CallInfo, isPromise, type MaybePromise, methodNames, type RpcMethod } from './method.js';
import { type ParsedBody, parseRequestBody, plainJson } from './request-json.js';
import { sharedResultBytes } from './shared-results.js';

type Response =
  | { id: unknown; jsonrpc: '2.0'; result: unknown }
  | { error: { code: number; message: string; data?: unknown }; id: unknown; jsonrpc: '2.0' };

/**
 * Told of every call answered (the node's request metrics): the declared method (undefined for a
 * name no method has), whether the answer was a result rather than an error, and how long it took.
 */
export type CallObserver = (method: RpcMethod | undefined, ok: boolean, seconds: number) => void;

export interface DispatcherOptions {
  readonly methods: readonly RpcMethod[];
  readonly apiVersion: ApiVersion;
  readonly context: RpcContext;
  readonly logger: Logger;
  /** Written after every response (go-jsonrpc's HTTP answers end with a newline); none by default. */
  readonly terminator?: string;
  /** The API limits; the defaults when absent. */
  readonly limits?: RpcLimits;
  /** Turns for expensive calls, shared by every dispatcher of a server; one of its own when absent. */
  readonly expensiveCalls?: ExpensiveCallGate;
  readonly observer?: CallObserver | undefined;
}

function errorResponse(id: unknown, error: JsonRpcError): Response {
  const body: { code: number; message: string; data?: unknown } = { code: error.rpcCode, message: error.message };
  if (error.data !== undefined) body.data = error.data;
  return { error: body, id, jsonrpc: '2.0' };
}

function invalidRequest(why: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.InvalidRequest, `Invalid request: ${why}`);
}

interface Envelope {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** The checks that make an object a JSON-RPC request. */
function readEnvelope(request: Record<string, unknown>): Envelope {
  const { jsonrpc, method, params } = request;
  if (jsonrpc !== '2.0') throw invalidRequest('"jsonrpc" must be "2.0"');
  if (typeof method !== 'string') throw invalidRequest('"method" must be a string');
  if (params === undefined || params === null) return { method, params: [] };
  if (Array.isArray(params)) return { method, params };
  if (isPlainObject(params)) {
    throw new JsonRpcError(
      JsonRpcErrorCode.InvalidParams,
      `invalid params for '${method}': params must be an array; named parameters are not supported, pass them by position`,
    );
  }
  throw invalidRequest('"params" must be an array');
}

/**
 * The built-in JSON.stringify of a response, several times faster than the lossless writer, where
 * the two write the same text: an id kept as a LosslessNumber (the only place one can be: params
 * are made plain before methods see them) needs the lossless writer, and so does a bigint, on
 * which JSON.stringify throws. `undefined` means "use the lossless writer".
 */
function stringifyPlainResponse(response: Response | Response[]): string | undefined {
  const losslessId = Array.isArray(response)
    ? response.some((r) => isLosslessNumber(r.id))
    : isLosslessNumber(response.id);
  if (losslessId) return undefined;
  try {
    return JSON.stringify(response);
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** Ethereum namespaces: an unknown method there gets geth's wording, which Ethereum clients match. */
const ETH_NAMESPACE = /^(eth|net|web3|debug|txpool|trace)_/;

/**
 * go-jsonrpc's "method 'X' not found"; for Ethereum names geth's "the method X does not
 * exist/is not available" (ethereum/go-ethereum `rpc/errors.go`), the message ethers v6 recognises
 * as an unsupported method (its filter polling then falls back to eth_getLogs).
 */
function methodNotFound(name: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.MethodNotFound,
    ETH_NAMESPACE.test(name) ? `the method ${name} does not exist/is not available` : `method '${name}' not found`,
  );
}

/**
 * A call's CallInfo. A class, not an object literal with a getter: V8 gives every such literal a
 * map of its own (the getter is part of the shape), and at tens of thousands of calls a second
 * those maps kept each request's objects alive through young-generation collections (ChainHead
 * 22k -> 28k calls/s in isolation once gone).
 */
class Call implements CallInfo {
  readonly #signal: (() => AbortSignal) | undefined;

  constructor(
    readonly apiVersion: ApiVersion,
    readonly permissions: readonly string[],
    readonly methods: readonly RpcMethod[],
    signal: (() => AbortSignal) | undefined,
  ) {
    this.#signal = signal;
  }

  /** Made on first use: most methods never ask. */
  get signal(): AbortSignal | undefined {
    return this.#signal?.();
  }
}

export class Dispatcher {
  readonly #byName = new Map<string, RpcMethod>();
  /** The methods this node serves on this path: every service they need is in the context. */
  readonly #methods: readonly RpcMethod[];
  /** The methods declared on this path whose service the node lacks, with the first one missing. */
  readonly #unavailable = new Map<RpcMethod, Service>();
  readonly #apiVersion: ApiVersion;
  readonly #context: RpcContext;
  readonly #logger: Logger;
  readonly #terminator: string;
  readonly #limits: RpcLimits;
  readonly #gate: ExpensiveCallGate;
  readonly #observer: CallObserver | undefined;

  constructor(options: DispatcherOptions) {
    const declared = options.methods.filter((m) => m.apiVersions.includes(options.apiVersion));
    for (const method of declared) {
      for (const name of methodNames(method)) {
        if (this.#byName.has(name)) throw new Error(`RPC method ${name} is declared twice`);
        this.#byName.set(name, method);
      }
      const missing = method.needs.find((service) => options.context[service] === undefined);
      if (missing !== undefined) this.#unavailable.set(method, missing);
    }
    this.#methods = declared.filter((method) => !this.#unavailable.has(method));
    this.#apiVersion = options.apiVersion;
    this.#context = options.context;
    this.#logger = options.logger;
    this.#terminator = options.terminator ?? '';
    this.#limits = options.limits ?? rpcLimits();
    this.#gate = options.expensiveCalls ?? new ExpensiveCallGate(this.#limits);
    this.#observer = options.observer;
  }

  /**
   * Answers a request body; `undefined` when nothing is to be sent back (only notifications). The
   * answer is text, or UTF-8 bytes when it carries a shared result (see shared-results.ts).
   * `signal` gives the call's abort signal, made only when a method asks for it. The answer comes
   * at once when every method called answers synchronously (no promise, no turn of the event loop:
   * at tens of thousands of ChainHead calls a second the promise chain cost more than the call).
   * `connection` identifies the client's connection for the per-connection limit of expensive calls.
   */
  handle(
    body: string,
    permissions: readonly string[],
    signal?: () => AbortSignal,
    connection?: object,
  ): MaybePromise<string | Buffer | undefined> {
    if (body.trim() === '') return this.#serialize(errorResponse(null, invalidRequest('empty body')));
    let parsed: ParsedBody;
    try {
      parsed = parseRequestBody(body);
    } catch (error) {
      return this.refusal(error as JsonRpcError);
    }
    return this.handleParsed(parsed, permissions, signal, connection);
  }

  /** The answer to a request that could not be read: `error` with id null. */
  refusal(error: JsonRpcError): string {
    return this.#serialize(errorResponse(null, error));
  }

  /**
   * `handle` for a body the transport parsed already (`parseRequestBody`). `channels` opens the
   * channels of channel methods; without it they are refused.
   */
  handleParsed(
    { value: parsed, plain }: ParsedBody,
    permissions: readonly string[],
    signal?: () => AbortSignal,
    connection?: object,
    channels?: ChannelHost,
  ): MaybePromise<string | Buffer | undefined> {
    if (!Array.isArray(parsed)) {
      const response = this.#handleOne(parsed, plain, permissions, signal, connection, channels);
      return isPromise(response) ? response.then((r) => this.#serializeOptional(r)) : this.#serializeOptional(response);
    }
    if (parsed.length === 0) return this.#serialize(errorResponse(null, invalidRequest('empty batch')));
    const { maxBatchSize } = this.#limits;
    if (parsed.length > maxBatchSize) {
      // Refused whole, before any call runs: answering the first calls only would look like a
      // partial success to a client that does not count its answers.
      return this.#serialize(
        errorResponse(
          null,
          invalidRequest(
            `batch of ${parsed.length} calls exceeds the limit of ${maxBatchSize} (raise ${LIMIT_CONFIG_KEYS.maxBatchSize} in config.toml, or split the batch)`,
          ),
        ),
      );
    }
    return this.#handleBatch(parsed, plain, permissions, signal, connection, channels);
  }

  /**
   * A batch's calls run one after another, in order, as go-jsonrpc runs them. Each answer is
   * written as it comes, and once the answers together pass the answer limit, or the caller is
   * gone, the calls left are not run: each gets an error saying why.
   */
  async #handleBatch(
    requests: readonly unknown[],
    plain: boolean,
    permissions: readonly string[],
    signalOf: (() => AbortSignal) | undefined,
    connection: object | undefined,
    channels: ChannelHost | undefined,
  ): Promise<string | undefined> {
    const signal = signalOf?.();
    const texts: string[] = [];
    let bytes = 2;
    let stopped: JsonRpcError | undefined;
    for (const [index, request] of requests.entries()) {
      if (stopped === undefined && signal?.aborted) {
        stopped = this.#toJsonRpcError(new AbortedError(signal.reason), undefined);
      }
      let response: Response | undefined;
      if (stopped !== undefined) {
        const id = isPlainObject(request) && Object.hasOwn(request, 'id') ? request.id : undefined;
        response = id === undefined && isPlainObject(request) ? undefined : errorResponse(id ?? null, stopped);
      } else {
        response = await this.#handleOne(request, plain, permissions, signalOf, connection, channels);
      }
      if (response === undefined) continue;
      let text = this.#text(response);
      if (bytes + Buffer.byteLength(text) > this.#limits.maxResponseBytes) {
        stopped ??= responseTooLarge(this.#limits, `the answer to call ${index} of the batch`);
        text = this.#text(errorResponse(response.id, stopped));
      }
      bytes += Buffer.byteLength(text) + 1;
      texts.push(text);
    }
    return texts.length === 0 ? undefined : `[${texts.join(',')}]${this.#terminator}`;
  }

  #handleOne(
    request: unknown,
    plain: boolean,
    permissions: readonly string[],
    signal: (() => AbortSignal) | undefined,
    connection: object | undefined,
    channels: ChannelHost | undefined,
  ): MaybePromise<Response | undefined> {
    if (!isPlainObject(request)) return errorResponse(null, invalidRequest('expected a request object'));
    // A request without an id member is a notification: nothing is answered, not even an error —
    // unless it is no valid request at all, which JSON-RPC answers with id null.
    const isNotification = !Object.hasOwn(request, 'id');
    const id = isNotification ? null : request.id;
    let envelope: Envelope;
    try {
      envelope = readEnvelope(request);
    } catch (error) {
      const invalid = (error as JsonRpcError).rpcCode === JsonRpcErrorCode.InvalidRequest;
      return isNotification && !invalid ? undefined : errorResponse(id, error as JsonRpcError);
    }
    const observer = this.#observer;
    const started = observer === undefined ? 0 : performance.now();
    const observe = (ok: boolean) =>
      observer?.(this.#byName.get(envelope.method), ok, (performance.now() - started) / 1000);
    const fail = (error: unknown): Response | undefined => {
      observe(false);
      return isNotification ? undefined : errorResponse(id, this.#toJsonRpcError(error, envelope.method));
    };
    const answer = (result: unknown): Response | undefined => {
      // A notification's channel is never opened: nobody would learn its id.
      if (isNotification || !(result instanceof OpenChannel)) {
        observe(true);
        return isNotification ? undefined : { id, jsonrpc: '2.0', result };
      }
      let channelId: number;
      try {
        channelId = (channels as ChannelHost).open(id, result);
      } catch (error) {
        return fail(error);
      }
      observe(true);
      return { id, jsonrpc: '2.0', result: result.subscriptionId ?? channelId };
    };
    let result: unknown;
    try {
      result = this.#call(envelope, plain, permissions, signal, connection, channels);
    } catch (error) {
      return fail(error);
    }
    return isPromise(result) ? result.then(answer, fail) : answer(result);
  }

  /** The method's Lotus JSON result, or its promise; throws what the call refuses. */
  #call(
    { method: name, params }: Envelope,
    plain: boolean,
    permissions: readonly string[],
    signal: (() => AbortSignal) | undefined,
    connection: object | undefined,
    channels: ChannelHost | undefined,
  ): unknown {
    const method = this.#byName.get(name);
    if (method === undefined) throw methodNotFound(name);
    // Before the permission check, as go-jsonrpc's handler checks it.
    if (method.channel !== undefined && channels === undefined) throw noChannelSupport(name, method.channel);
    if (!permissions.includes(method.permission)) throw permissionDenied(method.name, method.permission);
    const missing = this.#unavailable.size === 0 ? undefined : this.#unavailable.get(method);
    if (missing !== undefined) throw new ServiceUnavailableError(name, missing);

    const required = method.params.filter((param) => param.optional !== true).length;
    if (params.length < required || params.length > method.params.length) {
      const expected = method.params.map((p) => p.name).join(', ');
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `wrong param count (method '${name}'): ${params.length} != ${method.params.length} (expected [${expected}])`,
      );
    }
    const decoded = method.params.map((param, i) => {
      try {
        if (i >= params.length) return param.decode(null, param.name);
        return param.decode(plain ? params[i] : plainJson(params[i]), param.name);
      } catch (error) {
        // A decoder that picks its own JSON-RPC error (Lotus refuses some params in the handler, code 1) keeps it.
        if (!(error instanceof LedgerError) || error instanceof JsonRpcError) throw error;
        throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `invalid params for '${name}': ${error.message}`, {
          cause: error,
        });
      }
    });
    const call = new Call(this.#apiVersion, permissions, this.#methods, signal);
    if (method.expensive) return this.#invokeExpensive(method, decoded, call, connection);
    return method.invoke(decoded, this.#context, call);
  }

  /** Runs an expensive call when the limits give it a turn (see expensive-calls.ts). */
  async #invokeExpensive(
    method: RpcMethod,
    params: readonly unknown[],
    call: Call,
    connection: object | undefined,
  ): Promise<unknown> {
    // Made now, so that a client hanging up while the call waits or runs aborts it.
    const signal = call.signal;
    const release = await this.#gate.acquire(method.name, connection, signal);
    try {
      return await method.invoke(params, this.#context, call);
    } finally {
      release();
    }
  }

  #toJsonRpcError(error: unknown, method: unknown): JsonRpcError {
    if (error instanceof JsonRpcError) return error;
    // What a method refuses on purpose reaches the client as Lotus reports handler errors: code 1.
    if (error instanceof LedgerError) return new JsonRpcError(JsonRpcErrorCode.CallFailed, error.message);
    this.#logger.error({ err: error, method }, 'RPC method failed unexpectedly');
    return new JsonRpcError(JsonRpcErrorCode.InternalError, `internal error calling '${String(method)}'`);
  }

  #serializeOptional(response: Response | undefined): string | Buffer | undefined {
    if (response === undefined) return undefined;
    if ('result' in response) {
      const bytes = sharedResultBytes(response.result);
      if (bytes !== undefined) return this.#withSharedResult(response.id, bytes);
    }
    const text = this.#text(response);
    if (!fitsIn(text, this.#limits.maxResponseBytes)) {
      return this.#serialize(errorResponse(response.id, responseTooLarge(this.#limits, 'the answer')));
    }
    return text + this.#terminator;
  }

  /** The same bytes `#serialize` would write, the result's copied in rather than written again. */
  #withSharedResult(id: unknown, result: Buffer): Buffer {
    // The key order stringifyJsonLossless writes. A number id is a short integer here (longer or
    // other numbers stay LosslessNumbers), whose text String gives.
    const head = `{"id":${typeof id === 'number' ? String(id) : stringifyJsonLossless(id)},"jsonrpc":"2.0","result":`;
    const tail = `}${this.#terminator}`;
    const headLength = Buffer.byteLength(head);
    const out = Buffer.allocUnsafe(headLength + result.length + Buffer.byteLength(tail));
    out.write(head, 0, 'utf8');
    result.copy(out, headLength);
    out.write(tail, headLength + result.length, 'utf8');
    return out;
  }

  #serialize(response: Response | Response[]): string {
    return this.#text(response) + this.#terminator;
  }

  /** The JSON of a response, without the terminator. */
  #text(response: Response | Response[]): string {
    try {
      return stringifyPlainResponse(response) ?? stringifyJsonLossless(response);
    } catch (error) {
      this.#logger.error({ err: error }, 'RPC response could not be serialized');
      const single = Array.isArray(response) ? null : response.id;
      return stringifyJsonLossless(
        errorResponse(
          single,
          new JsonRpcError(JsonRpcErrorCode.InternalError, 'internal error: unserializable result'),
        ),
      );
    }
  }
}

/**
 * Whether `text` takes at most `limit` bytes in UTF-8. Without counting when it is short enough
 * whatever it holds (at most 3 bytes per UTF-16 unit): the usual case, at every call.
 */
function fitsIn(text: string, limit: number): boolean {
  if (text.length * 3 <= limit) return true;
  return text.length <= limit && Buffer.byteLength(text) <= limit;
}
