/**
 * JSON-RPC 2.0 over the method declarations, independent of HTTP: a request body in, a response
 * body out (or none, for notifications). Single calls and batches (run in order, as go-jsonrpc
 * does), ids of any JSON type echoed as sent, positional params only (go-jsonrpc refuses named
 * ones), exact arity, strict parameter decoding, Lotus's permission check and error codes.
 * A failure that is not a LedgerError is a bug: the client gets -32603 and the log gets the stack.
 */
import { isLosslessNumber } from 'lossless-json';
import type { Logger } from 'pino';
import { stringifyJsonLossless } from '../types/index.js';
import { LedgerError } from '../utils/errors.js';
import type { RpcContext } from './context.js';
import { JsonRpcError, JsonRpcErrorCode, permissionDenied } from './errors.js';
import { type ApiVersion, type CallInfo, isPromise, type MaybePromise, methodNames, type RpcMethod } from './method.js';
import { parseRequestBody, plainJson } from './request-json.js';
import { sharedResultBytes } from './shared-results.js';

type Response =
  | { id: unknown; jsonrpc: '2.0'; result: unknown }
  | { error: { code: number; message: string; data?: unknown }; id: unknown; jsonrpc: '2.0' };

export interface DispatcherOptions {
  readonly methods: readonly RpcMethod[];
  readonly apiVersion: ApiVersion;
  readonly context: RpcContext;
  readonly logger: Logger;
  /** Written after every response (go-jsonrpc's HTTP answers end with a newline); none by default. */
  readonly terminator?: string;
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
  readonly #methods: readonly RpcMethod[];
  readonly #apiVersion: ApiVersion;
  readonly #context: RpcContext;
  readonly #logger: Logger;
  readonly #terminator: string;

  constructor(options: DispatcherOptions) {
    this.#methods = options.methods.filter((m) => m.apiVersions.includes(options.apiVersion));
    for (const method of this.#methods) {
      for (const name of methodNames(method)) {
        if (this.#byName.has(name)) throw new Error(`RPC method ${name} is declared twice`);
        this.#byName.set(name, method);
      }
    }
    this.#apiVersion = options.apiVersion;
    this.#context = options.context;
    this.#logger = options.logger;
    this.#terminator = options.terminator ?? '';
  }

  /**
   * Answers a request body; `undefined` when nothing is to be sent back (only notifications). The
   * answer is text, or UTF-8 bytes when it carries a shared result (see shared-results.ts).
   * `signal` gives the call's abort signal, made only when a method asks for it. The answer comes
   * at once when every method called answers synchronously (no promise, no turn of the event loop:
   * at tens of thousands of ChainHead calls a second the promise chain cost more than the call).
   */
  handle(
    body: string,
    permissions: readonly string[],
    signal?: () => AbortSignal,
  ): MaybePromise<string | Buffer | undefined> {
    if (body.trim() === '') return this.#serialize(errorResponse(null, invalidRequest('empty body')));
    let parsed: unknown;
    let plain: boolean;
    try {
      ({ value: parsed, plain } = parseRequestBody(body));
    } catch (error) {
      return this.#serialize(errorResponse(null, error as JsonRpcError));
    }
    if (!Array.isArray(parsed)) {
      const response = this.#handleOne(parsed, plain, permissions, signal);
      return isPromise(response) ? response.then((r) => this.#serializeOptional(r)) : this.#serializeOptional(response);
    }
    if (parsed.length === 0) return this.#serialize(errorResponse(null, invalidRequest('empty batch')));
    return this.#handleBatch(parsed, plain, permissions, signal);
  }

  /** A batch's calls run one after another, in order, as go-jsonrpc runs them. */
  async #handleBatch(
    requests: readonly unknown[],
    plain: boolean,
    permissions: readonly string[],
    signal: (() => AbortSignal) | undefined,
  ): Promise<string | undefined> {
    const responses: Response[] = [];
    for (const request of requests) {
      const response = await this.#handleOne(request, plain, permissions, signal);
      if (response !== undefined) responses.push(response);
    }
    return responses.length === 0 ? undefined : this.#serialize(responses);
  }

  #handleOne(
    request: unknown,
    plain: boolean,
    permissions: readonly string[],
    signal: (() => AbortSignal) | undefined,
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
    const answer = (result: unknown): Response | undefined =>
      isNotification ? undefined : { id, jsonrpc: '2.0', result };
    const fail = (error: unknown): Response | undefined =>
      isNotification ? undefined : errorResponse(id, this.#toJsonRpcError(error, envelope.method));
    let result: unknown;
    try {
      result = this.#call(envelope, plain, permissions, signal);
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
  ): unknown {
    const method = this.#byName.get(name);
    if (method === undefined) throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `method '${name}' not found`);
    if (!permissions.includes(method.permission)) throw permissionDenied(method.name, method.permission);

    if (params.length !== method.params.length) {
      const expected = method.params.map((p) => p.name).join(', ');
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `wrong param count (method '${name}'): ${params.length} != ${method.params.length} (expected [${expected}])`,
      );
    }
    const decoded = method.params.map((param, i) => {
      try {
        return param.decode(plain ? params[i] : plainJson(params[i]), param.name);
      } catch (error) {
        if (!(error instanceof LedgerError)) throw error;
        throw new JsonRpcError(JsonRpcErrorCode.InvalidParams, `invalid params for '${name}': ${error.message}`, {
          cause: error,
        });
      }
    });
    return method.invoke(decoded, this.#context, new Call(this.#apiVersion, permissions, this.#methods, signal));
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
    return this.#serialize(response);
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
    try {
      return (stringifyPlainResponse(response) ?? stringifyJsonLossless(response)) + this.#terminator;
    } catch (error) {
      this.#logger.error({ err: error }, 'RPC response could not be serialized');
      const single = Array.isArray(response) ? null : response.id;
      return (
        stringifyJsonLossless(
          errorResponse(
            single,
            new JsonRpcError(JsonRpcErrorCode.InternalError, 'internal error: unserializable result'),
          ),
        ) + this.#terminator
      );
    }
  }
}
