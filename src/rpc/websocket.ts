/**
 * JSON-RPC over WebSocket on the API paths (`GET /rpc/v0`, `/rpc/v1` with an upgrade), as
 * go-jsonrpc serves it (filecoin-project/go-jsonrpc `websocket.go`, `handler.go`): one JSON-RPC
 * object per message, calls run concurrently and are answered by id, the permissions are the
 * token's at the upgrade, and channel methods answer with a channel id followed by
 * `xrpc.ch.val` notifications and one `xrpc.ch.close`. `xrpc.cancel [requestId]` cancels a call or
 * a channel; a client's `xrpc.ch.close` is ignored, as go-jsonrpc ignores it.
 *
 * What a connection holds stays bounded: a channel whose client does not drain its socket keeps at
 * most its declared buffer of values and is then closed (Lotus closes a slow ChainNotify reader),
 * a client whose unsent answers pass `maxSendBacklogBytes` is dropped, pings go out every
 * `pingIntervalMs` (pongs are never required: go-jsonrpc clients do not send them, they ping) and a
 * connection silent for `idleTimeoutMs` is dropped. A connection that ends, for whatever reason,
 * cancels its calls and ends its channels, so their producers unsubscribe. docs/rpc-limits.md.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isLosslessNumber } from 'lossless-json';
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { stringifyJsonLossless } from '../types/index.js';
import { AbortedError } from '../utils/abort.js';
import type { ChannelHost, ChannelSink, OpenChannel } from './channel.js';
import type { Dispatcher } from './dispatcher.js';
import type { JsonRpcError } from './errors.js';
import { LIMIT_CONFIG_KEYS, limitExceeded, type RpcLimits } from './limits.js';
import { isPromise } from './method.js';
import { type ParsedBody, parseRequestBody } from './request-json.js';
import { sharedResultBytes } from './shared-results.js';

export interface WebSocketOptions {
  /** How often the server pings (go-jsonrpc: every 5 s). */
  readonly pingIntervalMs: number;
  /**
   * A connection with no message, ping or pong for this long is dropped (go-jsonrpc never drops
   * one; its clients ping every 5 s and time out after 30 s, so a live one is never this quiet).
   */
  readonly idleTimeoutMs: number;
  /** Channels open at once on one connection. */
  readonly maxChannelsPerConnection: number;
}

export const DEFAULT_WEBSOCKET_OPTIONS: WebSocketOptions = {
  pingIntervalMs: 5_000,
  idleTimeoutMs: 60_000,
  maxChannelsPerConnection: 1_000,
};

/** How long a client has to answer the close handshake when the node stops, before its socket is cut. */
const CLOSE_GRACE_MS = 1_000;
/** RFC 6455 "going away": the server is shutting down. */
const CLOSE_GOING_AWAY = 1001;

/** What one API path needs to serve a connection. */
export interface WebSocketPath {
  readonly url: string;
  readonly dispatcher: Dispatcher;
}

/**
 * Every WebSocket connection of a server: accepts them on the API paths, pings them, and closes
 * them when the node stops (each channel gets its `xrpc.ch.close` first, then the socket closes
 * with 1001).
 */
export class WebSocketHub {
  readonly #connections = new Set<RpcConnection>();
  readonly #options: WebSocketOptions;
  readonly #limits: RpcLimits;
  readonly #logger: Logger;
  readonly #calls: Set<Promise<unknown>>;
  #pinger: NodeJS.Timeout | undefined;
  #stopped = false;

  /** `calls` is the server's set of calls in flight: the close waits for them. */
  constructor(
    options: WebSocketOptions,
    limits: RpcLimits,
    logger: Logger,
    stopping: AbortSignal,
    calls: Set<Promise<unknown>>,
  ) {
    this.#options = options;
    this.#limits = limits;
    this.#logger = logger;
    this.#calls = calls;
    stopping.addEventListener('abort', () => this.#stop(), { once: true });
  }

  /** Open connections. */
  get connections(): number {
    return this.#connections.size;
  }

  /** Open channels, all connections together. */
  get channels(): number {
    let open = 0;
    for (const connection of this.#connections) open += connection.channels;
    return open;
  }

  /**
   * Serves WebSocket upgrades on the paths, inside a plugin registered after @fastify/websocket
   * (its route hook must see the routes). A plain GET on a path gets `plainGet`'s answer.
   * `permissionsOf` gives the permissions the server's auth hook granted the upgrade request.
   */
  register(
    app: FastifyInstance,
    paths: readonly WebSocketPath[],
    permissionsOf: (request: FastifyRequest) => readonly string[],
    plainGet: (request: FastifyRequest, reply: FastifyReply) => unknown,
  ): void {
    app.register(async (scoped) => {
      for (const { url, dispatcher } of paths) {
        scoped.route({
          method: 'GET',
          url,
          handler: plainGet,
          wsHandler: (socket, request) => this.#accept(socket, request, dispatcher, permissionsOf(request)),
        });
      }
    });
  }

  /**
   * Logs a socket error: a frame over the size limit (`ws` closes with 1009, Message Too Big) or
   * one that breaks the protocol (`ws` closes with 1002). `ws` has begun the close already.
   */
  readonly onSocketError = (error: Error & { code?: string }): void => {
    const why =
      error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
        ? `a message bigger than ${this.#limits.maxRequestBytes} bytes (raise ${LIMIT_CONFIG_KEYS.maxRequestBytes} in config.toml)`
        : error.message;
    this.#logger.info({ reason: why }, 'WebSocket client dropped');
  };

  #accept(socket: WebSocket, request: FastifyRequest, dispatcher: Dispatcher, permissions: readonly string[]): void {
    if (this.#stopped) {
      socket.close(CLOSE_GOING_AWAY, 'the node is stopping');
      return;
    }
    // Listeners first, synchronously: a message that arrives before them would be lost.
    const connection = new RpcConnection(socket, request.raw.socket, dispatcher, permissions, {
      options: this.#options,
      limits: this.#limits,
      logger: this.#logger,
      calls: this.#calls,
      ended: () => {
        this.#connections.delete(connection);
        if (this.#connections.size === 0) this.#stopPinging();
      },
    });
    this.#connections.add(connection);
    this.#pinger ??= setInterval(() => this.#ping(), this.#options.pingIntervalMs);
  }

  #ping(): void {
    const now = Date.now();
    for (const connection of this.#connections) connection.keepAlive(now);
  }

  #stopPinging(): void {
    clearInterval(this.#pinger);
    this.#pinger = undefined;
  }

  #stop(): void {
    this.#stopped = true;
    this.#stopPinging();
    for (const connection of this.#connections) connection.shutdown();
  }
}

interface ConnectionServices {
  readonly options: WebSocketOptions;
  readonly limits: RpcLimits;
  readonly logger: Logger;
  readonly calls: Set<Promise<unknown>>;
  /** Called once, when the connection has ended. */
  readonly ended: () => void;
}

/**
 * A request id as a map key: the number 1 and the string "1" are different requests. Numbers
 * keep the digits they were sent with (a LosslessNumber when the message had long ones).
 */
function requestKey(id: unknown): string | undefined {
  if (typeof id === 'number') return `n${id}`;
  if (isLosslessNumber(id)) return `n${id.value}`;
  if (typeof id === 'string') return `s${id}`;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON text of an encoded value, or its UTF-8 bytes when it is a shared result (see shared-results.ts). */
function valueJson(value: unknown): string | Buffer {
  const shared = sharedResultBytes(value);
  if (shared !== undefined) return shared;
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    // A bigint: the lossless writer writes it as a number.
    if (error instanceof TypeError) return stringifyJsonLossless(value);
    throw error;
  }
}

/** One client's connection: its calls in flight and its channels. */
class RpcConnection {
  readonly #socket: WebSocket;
  readonly #raw: Socket;
  readonly #dispatcher: Dispatcher;
  readonly #permissions: readonly string[];
  readonly #services: ConnectionServices;
  /** Aborted when the connection ends: every call's signal follows it. */
  readonly #ended = new AbortController();
  /** Calls in flight that asked for their signal, by request key: what `xrpc.cancel` aborts. */
  readonly #calls = new Map<string, AbortController>();
  readonly #channels = new Map<number, ServerChannel>();
  readonly #channelsByRequest = new Map<string, ServerChannel>();
  /** Channels with values waiting for the socket to drain. */
  readonly #backlogged = new Set<ServerChannel>();
  #nextChannelId = 1;
  #lastSeen = Date.now();

  constructor(
    socket: WebSocket,
    raw: Socket,
    dispatcher: Dispatcher,
    permissions: readonly string[],
    services: ConnectionServices,
  ) {
    this.#socket = socket;
    this.#raw = raw;
    this.#dispatcher = dispatcher;
    this.#permissions = permissions;
    this.#services = services;
    const seen = () => {
      this.#lastSeen = Date.now();
    };
    socket.on('message', (data: Buffer) => {
      seen();
      this.#onMessage(data.toString('utf8'));
    });
    socket.on('ping', seen);
    socket.on('pong', seen);
    socket.on('close', () => this.#end(new Error('the client went away')));
    raw.on('drain', () => this.#flushBacklog());
  }

  get channels(): number {
    return this.#channels.size;
  }

  /** Pings, or drops a connection silent for too long. */
  keepAlive(now: number): void {
    if (now - this.#lastSeen > this.#services.options.idleTimeoutMs) {
      this.#services.logger.info({ idleMs: now - this.#lastSeen }, 'WebSocket client dropped: silent too long');
      this.#socket.terminate();
      return;
    }
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.ping();
  }

  /** The node stops: every channel is closed on the wire, then the socket. */
  shutdown(): void {
    for (const channel of [...this.#channels.values()]) channel.end(true);
    this.#end(new Error('the node is stopping'));
    this.#socket.close(CLOSE_GOING_AWAY, 'the node is stopping');
    const cut = setTimeout(() => this.#socket.terminate(), CLOSE_GRACE_MS);
    this.#socket.once('close', () => clearTimeout(cut));
  }

  /** Whether the socket holds more than it can pass on now: channel values wait then. */
  get congested(): boolean {
    return this.#raw.writableNeedDrain;
  }

  send(text: string | Buffer): void {
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    // Text frames, as go-jsonrpc writes them (a browser gets a binary frame as a Blob).
    this.#socket.send(text, { binary: false });
    const backlog = this.#socket.bufferedAmount;
    if (backlog > this.#maxSendBacklog) {
      this.#services.logger.warn({ backlog }, 'WebSocket client dropped: it does not read its answers');
      this.#socket.terminate();
    }
  }

  /**
   * A client that reads nothing while its calls are answered is dropped once the unsent bytes
   * pass twice the largest answer: at most one full answer and the values of its channels.
   */
  get #maxSendBacklog(): number {
    return 2 * this.#services.limits.maxResponseBytes;
  }

  backlogged(channel: ServerChannel, waiting: boolean): void {
    if (waiting) this.#backlogged.add(channel);
    else this.#backlogged.delete(channel);
  }

  /** A channel has ended: forget it, and tell the client unless the connection is gone. */
  channelEnded(channel: ServerChannel, tell: boolean): void {
    this.#channels.delete(channel.id);
    if (this.#channelsByRequest.get(channel.requestKey) === channel) this.#channelsByRequest.delete(channel.requestKey);
    this.#backlogged.delete(channel);
    if (tell && !channel.isEthSubscription) this.sendClose(channel.id);
  }

  sendClose(channelId: number): void {
    this.send(`{"jsonrpc":"2.0","method":"xrpc.ch.close","params":[${channelId}]}`);
  }

  logger(): Logger {
    return this.#services.logger;
  }

  #flushBacklog(): void {
    for (const channel of [...this.#backlogged]) {
      if (this.congested) return;
      channel.flush();
    }
  }

  #onMessage(text: string): void {
    let parsed: ParsedBody;
    try {
      parsed = parseRequestBody(text);
    } catch (error) {
      this.send(this.#dispatcher.refusal(error as JsonRpcError));
      return;
    }
    const request = parsed.value;
    if (isRecord(request) && (request.method === 'xrpc.cancel' || request.method === 'xrpc.ch.close')) {
      // Never answered, whatever the id (go-jsonrpc clients send none, some scripts send null).
      if (request.method === 'xrpc.cancel' && Array.isArray(request.params)) this.#cancel(request.params[0]);
      return;
    }
    const key = isRecord(request) ? requestKey(request.id) : undefined;
    let signal: AbortSignal | undefined;
    let controller: AbortController | undefined;
    const signalOf = () => {
      if (signal === undefined) {
        if (key === undefined) signal = this.#ended.signal;
        else {
          controller = new AbortController();
          this.#calls.set(key, controller);
          signal = AbortSignal.any([this.#ended.signal, controller.signal]);
        }
      }
      return signal;
    };
    // The channels this message opens start once its answer, carrying their ids, is sent.
    const opened: ServerChannel[] = [];
    const host: ChannelHost = { open: (id, channel) => this.#open(id, channel, opened) };
    const settled = (answer: string | Buffer | undefined) => {
      if (controller !== undefined && this.#calls.get(key as string) === controller) this.#calls.delete(key as string);
      if (answer !== undefined) this.send(answer);
      for (const channel of opened) channel.start();
    };
    const handled = this.#dispatcher.handleParsed(parsed, this.#permissions, signalOf, this.#raw, host);
    if (!isPromise(handled)) {
      settled(handled);
      return;
    }
    const calls = this.#services.calls;
    calls.add(handled);
    handled
      .then(settled)
      .catch((error) => this.#services.logger.error({ err: error }, 'WebSocket call failed'))
      .finally(() => calls.delete(handled));
  }

  #open(requestId: unknown, channel: OpenChannel, opened: ServerChannel[]): number {
    if (this.#ended.signal.aborted) throw new AbortedError(this.#ended.signal.reason);
    const { maxChannelsPerConnection } = this.#services.options;
    if (this.#channels.size >= maxChannelsPerConnection) {
      throw limitExceeded(
        `too many channels open on this connection (${maxChannelsPerConnection}): cancel some (xrpc.cancel) or use another connection`,
      );
    }
    const id = this.#nextChannelId++;
    const key = requestKey(requestId) ?? `c${id}`;
    const state = new ServerChannel(this, id, key, channel);
    this.#channels.set(id, state);
    this.#channelsByRequest.set(key, state);
    opened.push(state);
    try {
      channel.source(state);
    } catch (error) {
      state.end(false);
      throw error;
    }
    return id;
  }

  #cancel(requestId: unknown): void {
    const key = requestKey(requestId);
    if (key === undefined) return;
    this.#calls.get(key)?.abort(new Error('the client cancelled the call'));
    this.#channelsByRequest.get(key)?.end(true);
  }

  /** Cancels every call and ends every channel (without telling a client that is gone). */
  #end(reason: Error): void {
    if (this.#ended.signal.aborted) return;
    this.#ended.abort(reason);
    for (const channel of [...this.#channels.values()]) channel.end(false);
    this.#calls.clear();
    this.#services.ended();
  }
}

/** One open channel: the sink its producer writes to, and its values waiting for the socket. */
class ServerChannel implements ChannelSink<unknown> {
  readonly id: number;
  readonly requestKey: string;
  readonly #connection: RpcConnection;
  readonly #channel: OpenChannel;
  /** Aborted once the producer must stop: the channel is ending or has ended. */
  readonly #controller = new AbortController();
  #queue: unknown[] = [];
  #started = false;
  /** No more values are taken; the ones waiting go out, then the close. */
  #ending = false;
  #ended = false;
  /** It ended before its answer was sent: the close follows the answer. */
  #closeOnStart = false;
  /** Producers waiting for room in the buffer (`writable`). */
  #roomWaiters: Array<() => void> = [];

  constructor(connection: RpcConnection, id: number, requestKey: string, channel: OpenChannel) {
    this.#connection = connection;
    this.id = id;
    this.requestKey = requestKey;
    this.#channel = channel;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** An eth_subscribe subscription: values go out as `eth_subscription` notifications, and no close. */
  get isEthSubscription(): boolean {
    return this.#channel.subscriptionId !== undefined;
  }

  send(value: unknown): void {
    if (this.#ending || this.#ended) return;
    if (this.#started && this.#queue.length === 0 && !this.#connection.congested) {
      this.#write(value);
      return;
    }
    if (this.#queue.length >= this.#channel.options.buffer) {
      // As Lotus's ChainNotify: what is buffered still goes out, then the channel closes.
      this.#connection
        .logger()
        .warn({ channel: this.id, buffered: this.#queue.length }, 'closing a channel: its client reads too slowly');
      this.close();
      return;
    }
    this.#queue.push(value);
    if (this.#started) this.#connection.backlogged(this, true);
  }

  writable(): Promise<void> {
    if (this.#hasRoom) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  get #hasRoom(): boolean {
    return this.#ending || this.#ended || this.#queue.length < this.#channel.options.buffer;
  }

  #wakeProducers(): void {
    if (this.#roomWaiters.length > 0 && this.#hasRoom) for (const wake of this.#roomWaiters.splice(0)) wake();
  }

  /** Ends it once the values waiting are sent; the producer stops now. */
  close(): void {
    if (this.#ending || this.#ended) return;
    this.#ending = true;
    this.#controller.abort(new Error('the channel is closing'));
    this.#wakeProducers();
    if (this.#started) this.flush();
  }

  /** Its answer is sent: values may follow. */
  start(): void {
    if (this.#closeOnStart && !this.isEthSubscription) this.#connection.sendClose(this.id);
    if (this.#ended) return;
    this.#started = true;
    this.flush();
  }

  /** Sends waiting values while the socket takes them; ends a closing channel once none wait. */
  flush(): void {
    while (this.#queue.length > 0 && !this.#connection.congested) this.#write(this.#queue.shift());
    const waiting = this.#queue.length > 0;
    this.#connection.backlogged(this, waiting);
    this.#wakeProducers();
    if (!waiting && this.#ending) this.end(true);
  }

  /**
   * Ends the channel now, values waiting dropped (cancelled, disconnected, node stopping); `tell`
   * sends the client `xrpc.ch.close`, after the answer carrying the channel's id if that is not sent yet.
   */
  end(tell: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#queue = [];
    this.#controller.abort(new Error('the channel is closed'));
    this.#wakeProducers();
    this.#closeOnStart = tell && !this.#started;
    this.#connection.channelEnded(this, tell && this.#started);
  }

  #write(value: unknown): void {
    const json = valueJson(this.#channel.encode(value));
    const subscription = this.#channel.subscriptionId;
    const [head, tail] =
      subscription === undefined
        ? [`{"jsonrpc":"2.0","method":"xrpc.ch.val","params":[${this.id},`, CLOSE_VALUE_FRAME]
        : [
            `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(subscription)},"result":`,
            CLOSE_SUBSCRIPTION_FRAME,
          ];
    this.#connection.send(
      typeof json === 'string' ? `${head}${json}${tail}` : Buffer.concat([Buffer.from(head), json, tail]),
    );
  }
}

const CLOSE_VALUE_FRAME = Buffer.from(']}');
const CLOSE_SUBSCRIPTION_FRAME = Buffer.from('}}');
