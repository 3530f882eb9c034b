/**
 * A JSON-RPC client over WebSocket that speaks go-jsonrpc's protocol as Lotus's clients do
 * (filecoin-project/go-jsonrpc `websocket.go`, `client.go`; docs/websocket.md): the token goes as a
 * Bearer header at the upgrade, ids count from 1, calls are matched to answers by id, a channel
 * method answers with a numeric channel id whose values arrive as `xrpc.ch.val [chanId, value]`
 * until `xrpc.ch.close [chanId]`, and `xrpc.cancel [requestId]` ends a channel from this side.
 * It serves the CLI's follow commands and the tests, for this node and for Lotus.
 *
 * Values wait in their subscription until read; while more than `MAX_WAITING_VALUES` wait, the
 * client stops reading its socket, so a slow reader holds the server back (the server's buffer
 * then decides: ChainExport waits, ChainNotify closes the channel) instead of filling memory.
 */
import WebSocket from 'ws';
import { stringifyJsonLossless } from '../types/index.js';
import { JsonRpcError, NodeUnreachableError, RpcHttpError } from './errors.js';
import { parseRequestBody, plainJson } from './request-json.js';

/** Values waiting in all subscriptions before the socket is paused. */
const MAX_WAITING_VALUES = 64;
/**
 * With nothing received for this long (the server pings every 5 s) the connection is dead: it is
 * cut, as the Go client does after 30 s (go-jsonrpc `options.go`, timeout).
 */
const SILENCE_TIMEOUT_MS = 30_000;

/** An open channel: its values as an async iterator, which ends when the channel closes. */
export class RpcSubscription implements AsyncIterable<unknown> {
  readonly #client: WebSocketRpcClient;
  #queue: unknown[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(
    client: WebSocketRpcClient,
    /** The id of the call that opened it: what `xrpc.cancel` names. */
    readonly requestId: number,
    readonly channelId: number,
  ) {
    this.#client = client;
  }

  /** Whether the channel has closed (values may still wait to be read). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Values received and not read yet. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Asks the server to end the channel; its close follows, and the iterator ends after it. */
  cancel(): void {
    this.#client.cancel(this.requestId);
  }

  /** Called by the client with each value of this channel. */
  deliver(value: unknown): void {
    this.#queue.push(value);
    this.#client.valueQueued();
    this.#wakeReader();
  }

  /** Called by the client when the channel closes or the connection ends. */
  end(): void {
    this.#closed = true;
    this.#wakeReader();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<unknown> {
    for (;;) {
      if (this.#queue.length > 0) {
        const value = this.#queue.shift();
        this.#client.valueTaken();
        yield value;
      } else if (this.#closed) {
        return;
      } else {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    }
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  /** A channel call: its answer is a channel id. */
  readonly channel: boolean;
}

export class WebSocketRpcClient {
  readonly #socket: WebSocket;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #channels = new Map<number, RpcSubscription>();
  #waitingValues = 0;
  #lastSeen = Date.now();
  readonly #watchdog: NodeJS.Timeout;
  /** Resolves with the close code once the socket is closed. */
  readonly closed: Promise<number>;

  /**
   * Dials `url` (`ws://…/rpc/v1`; http(s):// is turned into ws(s)://), with `token` as a Bearer
   * header when given. Rejects with RpcHttpError when the upgrade is refused (401: a bad token),
   * NodeUnreachableError when nothing answers.
   */
  static connect<C extends WebSocketRpcClient>(
    this: new (
      socket: WebSocket,
    ) => C,
    url: string,
    token?: string,
    options: WebSocket.ClientOptions = {},
  ): Promise<C> {
    const headers: Record<string, string> =
      token === undefined || token === '' ? {} : { authorization: `Bearer ${token}` };
    const wsUrl = url.replace(/^http/, 'ws');
    const socket = new WebSocket(wsUrl, { ...options, headers: { ...headers, ...options.headers } });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new this(socket)));
      socket.once('unexpected-response', (request, response) => {
        request.destroy();
        reject(new RpcHttpError(wsUrl, response.statusCode ?? 0, ''));
      });
      socket.once('error', (error) => reject(new NodeUnreachableError(wsUrl, error)));
    });
  }

  constructor(socket: WebSocket) {
    this.#socket = socket;
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
    const seen = () => {
      this.#lastSeen = Date.now();
    };
    socket.on('message', (data) => {
      seen();
      this.#onFrame(String(data));
    });
    socket.on('ping', seen);
    socket.on('pong', seen);
    socket.once('close', () => this.#ended());
    this.#watchdog = setInterval(() => {
      if (Date.now() - this.#lastSeen > SILENCE_TIMEOUT_MS && !socket.isPaused) socket.terminate();
    }, SILENCE_TIMEOUT_MS / 3);
    this.#watchdog.unref();
  }

  get socket(): WebSocket {
    return this.#socket;
  }

  /** Calls a method; resolves with its result JSON, rejects with JsonRpcError. */
  call(method: string, params: readonly unknown[] = []): Promise<unknown> {
    return this.#request(method, params, false) as Promise<unknown>;
  }

  /** Calls a channel method; resolves with the subscription once its channel id arrived. */
  subscribe(method: string, params: readonly unknown[] = []): Promise<RpcSubscription> {
    return this.#request(method, params, true) as Promise<RpcSubscription>;
  }

  /** Cancels the call or channel opened by request `requestId` (never answered). */
  cancel(requestId: number): void {
    this.send({ jsonrpc: '2.0', method: 'xrpc.cancel', params: [requestId] });
  }

  /** Sends one frame (an object is written as JSON, a string as is). */
  send(frame: unknown): void {
    this.#socket.send(typeof frame === 'string' ? frame : stringifyJsonLossless(frame));
  }

  /** Closes the connection (the server ends its calls and channels); resolves with the close code. */
  close(): Promise<number> {
    this.#socket.close();
    return this.closed;
  }

  /** Drops the connection without a close handshake, as a vanished client does. */
  terminate(): Promise<number> {
    this.#socket.terminate();
    return this.closed;
  }

  /** A value waits in a subscription: the socket stops reading while too many wait. */
  valueQueued(): void {
    this.#waitingValues++;
    if (this.#waitingValues > MAX_WAITING_VALUES && !this.#socket.isPaused) this.#socket.pause();
  }

  /** A subscription's reader took a value: the socket reads again once few wait. */
  valueTaken(): void {
    this.#waitingValues--;
    if (this.#socket.isPaused && this.#waitingValues <= MAX_WAITING_VALUES / 2) this.#socket.resume();
  }

  /** Makes the subscription a channel's values go to (tests record more). */
  protected newSubscription(requestId: number, channelId: number): RpcSubscription {
    return new RpcSubscription(this, requestId, channelId);
  }

  /** Every frame received, parsed (tests record them). */
  protected onFrame(_frame: unknown): void {}

  /** What the server did against the protocol; a Go client logs it and drops the frame. */
  protected onViolation(_what: string): void {}

  /** An answer whose id no call of this client has. */
  protected onUnmatchedAnswer(frame: Record<string, unknown>): void {
    if (frame.id !== null) this.onViolation(`answer for unknown id ${JSON.stringify(frame.id)}`);
  }

  #request(method: string, params: readonly unknown[], channel: boolean): Promise<unknown> {
    const id = this.#nextId++;
    if (this.#socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new NodeUnreachableError(this.#socket.url, new Error('websocket connection closed')));
    }
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, channel });
      // Go clients send a tracing span with every call; servers ignore it.
      this.send({ jsonrpc: '2.0', id, method, params, meta: { SpanContext: 'AAAAAAAAAAAAAAAAAAAAAAAA' } });
    });
  }

  #onFrame(text: string): void {
    let frame: unknown;
    try {
      const parsed = parseRequestBody(text);
      frame = parsed.plain ? parsed.value : plainJson(parsed.value);
    } catch {
      this.onViolation(`unparseable frame ${text.slice(0, 100)}`);
      return;
    }
    this.onFrame(frame);
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      this.onViolation(`a frame that is no object: ${text.slice(0, 100)}`);
      return;
    }
    const message = frame as Record<string, unknown>;
    if (message.method === 'xrpc.ch.val' || message.method === 'xrpc.ch.close') {
      this.#onChannelFrame(message);
      return;
    }
    if (typeof message.method === 'string') return; // a call from the server: no handlers here
    const pending = typeof message.id === 'number' ? this.#pending.get(message.id) : undefined;
    if (pending === undefined) {
      this.onUnmatchedAnswer(message);
      return;
    }
    const id = message.id as number;
    this.#pending.delete(id);
    if (message.error !== undefined) {
      const {
        code,
        message: text,
        data,
      } = (message.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
      pending.reject(
        new JsonRpcError(Number(code), typeof text === 'string' ? text : 'JSON-RPC error without a message', { data }),
      );
      return;
    }
    if (!pending.channel) {
      pending.resolve(message.result);
      return;
    }
    const channelId = message.result;
    if (typeof channelId !== 'number' || !Number.isInteger(channelId) || channelId < 0) {
      this.onViolation(`channel id ${JSON.stringify(channelId)} is no unsigned integer`);
      pending.reject(
        new Error(`the server answered a channel call with ${JSON.stringify(channelId)}, not a channel id`),
      );
      return;
    }
    const subscription = this.newSubscription(id, channelId);
    this.#channels.set(channelId, subscription);
    pending.resolve(subscription);
  }

  #onChannelFrame(frame: Record<string, unknown>): void {
    if (Object.hasOwn(frame, 'id')) this.onViolation(`${frame.method} with an id`);
    const [channelId, value] = Array.isArray(frame.params) ? frame.params : [];
    const channel = typeof channelId === 'number' ? this.#channels.get(channelId) : undefined;
    if (channel === undefined) {
      this.onViolation(`${frame.method} for unknown channel ${JSON.stringify(channelId)}`);
      return;
    }
    if (frame.method === 'xrpc.ch.close') {
      this.#channels.delete(channelId as number);
      channel.end();
      return;
    }
    channel.deliver(value);
  }

  #ended(): void {
    clearInterval(this.#watchdog);
    for (const pending of this.#pending.values()) {
      pending.reject(new NodeUnreachableError(this.#socket.url, new Error('websocket connection closed')));
    }
    this.#pending.clear();
    for (const channel of this.#channels.values()) channel.end();
    this.#channels.clear();
  }
}
