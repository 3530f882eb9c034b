/**
 * The node's WebSocket client (src/rpc/ws-client.ts, written from go-jsonrpc's protocol, not from
 * the server) with what the tests look at: every frame received, each channel's values as they
 * arrived, raw frames, and what a Go client would reject — a value for a channel whose id it has
 * not been given yet, anything after a close, a value sent as a JSON string, an answer nobody asked for.
 */
import { JsonRpcError } from '../../src/rpc/errors.js';
import { RpcSubscription, WebSocketRpcClient } from '../../src/rpc/ws-client.js';

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
}

export class RpcCallError extends Error {
  constructor(readonly error: RpcErrorObject) {
    super(`${error.code}: ${error.message}`);
  }
}

/** The values a channel delivered, and whether it closed. */
export class ClientChannel extends RpcSubscription {
  readonly values: unknown[] = [];
  readonly #client: GoJsonRpcClient;
  #waiters: Array<() => void> = [];

  constructor(client: GoJsonRpcClient, requestId: number, channelId: number) {
    super(client, requestId, channelId);
    this.#client = client;
  }

  /** Resolves once `count` values arrived (or the channel closed: then it rejects). */
  async waitForValues(count: number, timeoutMs = 10_000): Promise<unknown[]> {
    await this.#until(() => this.values.length >= count || this.closed, timeoutMs, `${count} values`);
    if (this.values.length < count)
      throw new Error(`channel ${this.channelId} closed after ${this.values.length} values`);
    return this.values.slice(0, count);
  }

  waitForClose(timeoutMs = 10_000): Promise<void> {
    return this.#until(() => this.closed, timeoutMs, 'the close');
  }

  /** Recorded in `values` (not queued for an iterator: the tests read `values`). */
  override deliver(value: unknown): void {
    if (this.closed) this.#client.violations.push(`a value after the close of channel ${this.channelId}`);
    if (typeof value === 'string' && /^[[{]/.test(value)) this.#client.violations.push('a value sent as a JSON string');
    this.values.push(value);
    this.#notify();
  }

  override end(): void {
    super.end();
    this.#notify();
  }

  #notify(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  async #until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`channel ${this.channelId}: no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** The error object of a JSON-RPC error answer, as the tests compare it. */
function asCallError(error: unknown): never {
  if (error instanceof JsonRpcError) throw new RpcCallError({ code: error.rpcCode, message: error.message });
  throw error;
}

export class GoJsonRpcClient extends WebSocketRpcClient {
  /** Ids of frames sent with sendRaw: their answers are expected. */
  readonly #rawIds = new Set<string>();
  /** What a Go client would log and drop: protocol violations by the server. */
  readonly violations: string[] = [];
  /** Every frame received, parsed. */
  readonly frames: unknown[] = [];

  /** Calls a method; resolves with its result, rejects with RpcCallError. */
  override call(method: string, params: readonly unknown[] = []): Promise<unknown> {
    return super.call(method, params).catch(asCallError);
  }

  /** Calls a channel method; resolves with the channel once its id arrived, rejects with RpcCallError. */
  override subscribe(method: string, params: readonly unknown[] = []): Promise<ClientChannel> {
    return (super.subscribe(method, params) as Promise<ClientChannel>).catch(asCallError);
  }

  /** Sends a frame as is; its answer (if it has an id) is the test's to read in `frames`. */
  sendRaw(frame: unknown): void {
    const id = (frame as { id?: unknown } | null)?.id;
    if (id !== undefined) this.#rawIds.add(JSON.stringify(id));
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends a frame and resolves with the next frame received (for frames answered out of band). */
  async exchange(frame: unknown, timeoutMs = 5_000): Promise<unknown> {
    const seen = this.frames.length;
    this.sendRaw(frame);
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === seen) {
      if (Date.now() > deadline) throw new Error(`no frame within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return this.frames[seen];
  }

  protected override newSubscription(requestId: number, channelId: number): ClientChannel {
    return new ClientChannel(this, requestId, channelId);
  }

  protected override onFrame(frame: unknown): void {
    this.frames.push(frame);
  }

  protected override onViolation(what: string): void {
    this.violations.push(what);
  }

  protected override onUnmatchedAnswer(frame: Record<string, unknown>): void {
    if (!this.#rawIds.has(JSON.stringify(frame.id))) super.onUnmatchedAnswer(frame);
  }
}
