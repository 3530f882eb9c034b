/**
 * The API on fastify: `POST /rpc/v0` and `/rpc/v1`, bodies read as JSON whatever their content
 * type (as go-jsonrpc reads them) up to a size limit, WebSocket on the same paths (websocket.ts),
 * and go-jsonrpc's authentication, for both: the `Authorization: Bearer <token>`
 * header (or a `?token=` query value), no token meaning `read`, and HTTP 401 with an empty body
 * for a token that is malformed or does not verify. JSON-RPC errors, permission denials
 * included, are HTTP 200 with an error object; what the HTTP layer refuses (unknown path 404,
 * body too large 413, content type 415, headers too large 431, malformed HTTP 400) gets its
 * status with a JSON-RPC error object as the body, so every answer parses the same way.
 */
import { STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { stringifyJsonLossless } from '../types/index.js';
import { LedgerError } from '../utils/errors.js';
import type { RpcContext } from './context.js';
import { type CallObserver, Dispatcher } from './dispatcher.js';
import { JsonRpcErrorCode } from './errors.js';
import { ExpensiveCallGate } from './expensive-calls.js';
import { LIMIT_CONFIG_KEYS, type RpcLimits, rpcLimits } from './limits.js';
import { API_VERSIONS, isPromise, type RpcMethod } from './method.js';
import { allMethods } from './methods/index.js';
import { isPlainRoute, type PlainRoute, registerPlainRoutes } from './plain-routes.js';
import { DEFAULT_WEBSOCKET_OPTIONS, WebSocketHub, type WebSocketOptions, type WebSocketPath } from './websocket.js';

const ANONYMOUS_PERMISSIONS = ['read'] as const;

const PERMISSIONS = Symbol('permissions');
type WithPermissions = FastifyRequest & { [PERMISSIONS]: readonly string[] | null };

export interface RpcServerOptions {
  readonly context: RpcContext;
  readonly logger: Logger;
  readonly host: string;
  /** 0 picks a free port; `RpcServer.port` says which. */
  readonly port: number;
  readonly maxRequestBytes?: number;
  /** The API limits (config.toml `[API]`); defaults for those not given. `maxRequestBytes` above wins. */
  readonly limits?: Partial<RpcLimits>;
  readonly methods?: readonly RpcMethod[];
  /** GET routes served beside the API without its token check (the node's health and metrics). */
  readonly plainRoutes?: readonly PlainRoute[];
  /** Told of every call answered (the node's request metrics). */
  readonly callObserver?: CallObserver;
  /** Keepalive and per-connection limits of WebSocket clients; defaults for those not given. */
  readonly webSocket?: Partial<WebSocketOptions>;
}

function rpcErrorBody(code: number, message: string): string {
  return `${stringifyJsonLossless({ error: { code, message }, id: null, jsonrpc: '2.0' })}\n`;
}

export class RpcServer {
  readonly #close: () => Promise<void>;
  #closing: Promise<void> | undefined;
  /** The port listened on (the one chosen when 0 was asked for). */
  readonly port: number;
  readonly #webSockets: WebSocketHub;

  private constructor(close: () => Promise<void>, port: number, webSockets: WebSocketHub) {
    this.#close = close;
    this.port = port;
    this.#webSockets = webSockets;
  }

  /** WebSocket connections open now, and the channels they hold. */
  get webSockets(): { readonly connections: number; readonly channels: number } {
    return { connections: this.#webSockets.connections, channels: this.#webSockets.channels };
  }

  static async start(options: RpcServerOptions): Promise<RpcServer> {
    const stopping = new AbortController();
    const calls = new Set<Promise<unknown>>();
    const { app, webSockets } = buildApp(options, stopping.signal, calls);
    try {
      await app.listen({ host: options.host, port: options.port });
    } catch (error) {
      await app.close();
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new LedgerError('ERR_API_LISTEN', `cannot listen on ${options.host}:${options.port} (${reason})`, {
        cause: error,
      });
    }
    const { port } = app.server.address() as AddressInfo;
    return new RpcServer(
      async () => {
        // Requests that wait for the chain (StateWaitMsg) end now instead of holding the close up.
        stopping.abort(new Error('the node is stopping'));
        await app.close();
        // fastify waits for open connections only: a call whose client hung up is still running,
        // and the node must not close the database under it.
        await Promise.allSettled(calls);
      },
      port,
      webSockets,
    );
  }

  /**
   * Stops accepting connections, aborts the calls in flight (their signal fires: long work stops
   * at its next check) and waits for them to end, those whose client left included. Closing
   * again waits for the same close.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }
}

/** `calls` holds every dispatch still running, so the close can wait for them. */
function buildApp(options: RpcServerOptions, stopping: AbortSignal, calls: Set<Promise<unknown>>) {
  const logger = options.logger.child({ module: 'rpc' });
  const limits = rpcLimits({
    ...options.limits,
    maxRequestBytes: options.maxRequestBytes ?? options.limits?.maxRequestBytes,
  });
  const { maxRequestBytes } = limits;
  const expensiveCalls = new ExpensiveCallGate(limits);
  // No logger for fastify itself: with one, every request gets response listeners and timings
  // kept only for its "request completed" line, which at thousands of calls a second would cost
  // more than the calls (about 6% of a ChainHead even with the line turned off). What goes wrong
  // is logged by the error handler below, with the rpc logger.
  const app = Fastify({ logger: false, bodyLimit: maxRequestBytes, clientErrorHandler: answerClientError });
  // The caller's permissions, set before the body is read. A declared request property, not a
  // WeakMap keyed by request: every entry of one costs the garbage collector an ephemeron.
  app.decorateRequest(PERMISSIONS, null);

  app.removeAllContentTypeParsers();
  const keepBody = (_request: FastifyRequest, body: string | Buffer, done: (e: Error | null, b?: unknown) => void) =>
    done(null, body);
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, keepBody);
  // Lotus (go-jsonrpc) reads the body as JSON whatever the content type: a body sent without
  // one, or as curl -d sends it (application/x-www-form-urlencoded), is read the same way here.
  app.addContentTypeParser('*', { parseAs: 'string' }, keepBody);

  const noApi = (request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(404)
      .type('application/json')
      .send(
        rpcErrorBody(
          JsonRpcErrorCode.InvalidRequest,
          `Invalid request: no API at ${request.method} ${request.url.split('?')[0]} (POST JSON-RPC to /rpc/v0 or /rpc/v1)`,
        ),
      );
  app.setNotFoundHandler(noApi);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const reject = (status: number, code: number, message: string) =>
      reply.code(status).type('application/json').send(rpcErrorBody(code, message));
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // go-jsonrpc's words, with the key that raises the limit.
        return reject(
          413,
          JsonRpcErrorCode.ParseError,
          `request bigger than maximum ${maxRequestBytes} allowed (raise ${LIMIT_CONFIG_KEYS.maxRequestBytes} in config.toml)`,
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reject(
          415,
          JsonRpcErrorCode.InvalidRequest,
          `Invalid request: unsupported Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')}: send the body as Content-Type: application/json (or text/plain)`,
        );
    }
    if (error.statusCode !== undefined && error.statusCode < 500) {
      return reject(error.statusCode, JsonRpcErrorCode.InvalidRequest, `Invalid request: ${error.message}`);
    }
    logger.error({ err: error }, 'RPC request failed');
    return reject(500, JsonRpcErrorCode.InternalError, 'internal error');
  });

  const authorizationOf = (request: FastifyRequest): string | undefined => {
    const header = request.headers.authorization;
    if (header !== undefined) return header;
    const token = (request.query as Record<string, unknown>).token;
    return typeof token === 'string' && token !== '' ? `Bearer ${token}` : undefined;
  };

  const authenticate = async (request: FastifyRequest, header: string): Promise<readonly string[] | undefined> => {
    if (!header.startsWith('Bearer ')) return undefined;
    try {
      return await options.context.tokens.verify(header.slice('Bearer '.length));
    } catch (error) {
      // The reason only: the token itself is a credential and never goes to the log.
      logger.warn({ remote: request.ip, reason: (error as Error).message }, 'API token refused');
      return undefined;
    }
  };

  // Authentication comes first, before the body is even read, as go-jsonrpc's auth handler does.
  // Without waiting when there is no token or the token verified before (every call but a
  // token's first): an async hook costs a promise and a turn per request.
  app.addHook('onRequest', (request, reply, done) => {
    if (isPlainRoute(request)) {
      done();
      return;
    }
    const header = authorizationOf(request);
    const known =
      header === undefined
        ? ANONYMOUS_PERMISSIONS
        : header.startsWith('Bearer ')
          ? options.context.tokens.verifiedBefore(header.slice('Bearer '.length))
          : undefined;
    if (known !== undefined) {
      (request as WithPermissions)[PERMISSIONS] = known;
      done();
      return;
    }
    authenticate(request, header as string).then(
      (permissions) => {
        if (permissions === undefined) {
          // A refused WebSocket upgrade: node:http no longer looks after its socket, so it is closed here.
          if (request.headers.upgrade !== undefined) reply.raw.once('finish', () => request.raw.socket.destroy());
          reply.code(401).header('www-authenticate', 'Bearer').send();
        } else {
          (request as WithPermissions)[PERMISSIONS] = permissions;
          done();
        }
      },
      (error: Error) => done(error),
    );
  });

  const webSockets = new WebSocketHub(
    { ...DEFAULT_WEBSOCKET_OPTIONS, ...options.webSocket },
    limits,
    logger,
    stopping,
    calls,
  );
  app.register(fastifyWebsocket, {
    options: { maxPayload: maxRequestBytes },
    errorHandler: (error) => webSockets.onSocketError(error),
  });
  const webSocketPaths: WebSocketPath[] = [];
  for (const apiVersion of API_VERSIONS) {
    const dispatcher = new Dispatcher({
      methods: options.methods ?? allMethods,
      apiVersion,
      context: options.context,
      logger,
      terminator: '\n',
      limits,
      expensiveCalls,
      observer: options.callObserver,
    });
    const answer = (reply: FastifyReply, response: string | Buffer | undefined): FastifyReply => {
      // An answer sent while the server closes ends its keep-alive connection: node:http would
      // otherwise keep it open, and the close waiting for it, until the client's keep-alive ends.
      if (stopping.aborted) reply.header('connection', 'close');
      return response === undefined ? reply.code(204).send() : reply.code(200).type('application/json').send(response);
    };
    webSocketPaths.push({ url: `/rpc/v${apiVersion}`, dispatcher });
    // Not an async handler: a call answered synchronously (ChainHead) is sent in the same turn.
    app.post(`/rpc/v${apiVersion}`, (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : '';
      // Aborted when the server stops or the client hangs up before its answer; made only for the
      // methods that wait (most calls never ask, and an abort signal per request costs).
      let signal: AbortSignal | undefined;
      let hangUp: (() => void) | undefined;
      const signalOf = (): AbortSignal => {
        if (signal === undefined) {
          const call = new AbortController();
          hangUp = () => call.abort(new Error('the client went away'));
          reply.raw.once('close', hangUp);
          signal = AbortSignal.any([stopping, call.signal]);
        }
        return signal;
      };
      const settled = () => {
        if (hangUp !== undefined) reply.raw.off('close', hangUp);
      };
      const handled = dispatcher.handle(
        body,
        (request as WithPermissions)[PERMISSIONS] ?? ANONYMOUS_PERMISSIONS,
        signalOf,
        // The connection, for the per-connection limit of expensive calls.
        request.raw.socket,
      );
      if (!isPromise(handled)) {
        settled();
        return answer(reply, handled);
      }
      calls.add(handled);
      return handled
        .finally(() => {
          calls.delete(handled);
          settled();
        })
        .then((response) => answer(reply, response));
    });
  }
  webSockets.register(
    app,
    webSocketPaths,
    (request) => (request as WithPermissions)[PERMISSIONS] ?? ANONYMOUS_PERMISSIONS,
    noApi,
  );
  registerPlainRoutes(app, options.plainRoutes ?? []);
  return { app, webSockets };
}

/**
 * What node:http cannot parse (headers over its size limit: 431, malformed requests: 400, a
 * request too slow to arrive: 408) never reaches fastify's routes: the answer is written on the
 * socket here, with a JSON-RPC error object as its body, and the connection closed, as node:http
 * does by default.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Invalid request: HTTP headers too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Invalid request: the request took too long to arrive']
        : [400, `Invalid request: malformed HTTP request (${error.code ?? error.message})`];
  const body = rpcErrorBody(JsonRpcErrorCode.InvalidRequest, message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
