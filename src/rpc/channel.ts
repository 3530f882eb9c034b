/**
 * Methods that answer with a channel (Lotus `<-chan T` results: ChainNotify, MpoolSub, Closing),
 * carried by go-jsonrpc's channel protocol over WebSocket (filecoin-project/go-jsonrpc
 * `websocket.go`, `handler.go`): the call's answer is a channel id, each value follows as an
 * `xrpc.ch.val` notification `[chanId, value]`, and `xrpc.ch.close` `[chanId]` ends it. A method
 * declares its result with `channelResult(values, {buffer})`; its handler returns a
 * `ChannelSource`, which the transport starts once the call's answer is on its way. Over HTTP POST
 * there is nowhere to send values, so such calls are refused, in go-jsonrpc's words.
 */

import { JsonRpcError, JsonRpcErrorCode } from './errors.js';
import type { JsonSchema, ResultDeclaration } from './method.js';

/** What a producer writes to. Values after the end are ignored. */
export interface ChannelSink<V> {
  send(value: V): void;
  /** Ends the channel from the producer's side (the client gets `xrpc.ch.close`). */
  close(): void;
  /**
   * Aborted when the channel ends, whoever ends it: the client cancels it or hangs up, the node
   * stops, the client reads too slowly, or the producer closes it. The producer unsubscribes then.
   */
  readonly signal: AbortSignal;
  /**
   * Resolves once the channel holds fewer values than its buffer (at once when it does), or once it
   * has ended. A producer that must not lose values (ChainExport's stream, which Lotus writes into
   * an unbuffered channel) awaits it before each `send`, so it keeps pace with its client.
   */
  writable(): Promise<void>;
}

/**
 * Starts producing into `sink`. Called synchronously when the channel opens, so a producer that
 * subscribes and samples in this call (ChainNotify's `current`) loses and repeats nothing.
 */
export type ChannelSource<V> = (sink: ChannelSink<V>) => void;

export interface ChannelOptions {
  /**
   * Values held for a client that does not keep up (its socket is not draining); one more closes
   * the channel, as Lotus closes a ChainNotify subscription whose buffer of 16 is full.
   */
  readonly buffer: number;
  /**
   * eth_subscribe's framing instead of go-jsonrpc's (geth's, which Lotus sends through its reverse
   * client, filecoin-project/lotus `node/impl/eth/subscriptions.go`): the call answers with the
   * subscription id, each value is an `eth_subscription` notification `{subscription, result}`, and
   * nothing marks the end.
   */
  readonly ethSubscription?: true;
}

declare const channelValues: unique symbol;

/**
 * The Lotus JSON a channel method answers with: the channel id (a number). `J`, the values' JSON,
 * is carried for the type only (the typed client leaves channel methods out: HTTP cannot carry them).
 */
export type ChannelId<J> = number & { readonly [channelValues]: J };

/** A channel method's source with the encoder of its values: what `invoke` returns for such a method. */
export class OpenChannel {
  constructor(
    readonly source: ChannelSource<unknown>,
    readonly encode: (value: unknown) => unknown,
    readonly options: ChannelOptions,
    /** An eth_subscribe subscription's id: the call's answer, and the `subscription` of each value. */
    readonly subscriptionId?: string,
  ) {}
}

/** What a transport that can carry channels gives the dispatcher. */
export interface ChannelHost {
  /** Opens the channel a call with request id `requestId` answered; returns its channel id. Throws what it refuses. */
  open(requestId: unknown, channel: OpenChannel): number;
}

/** A channel method's result: the channel of `values`, `options.buffer` of them held for a slow reader. */
export function channelResult<V, J>(
  values: ResultDeclaration<V, J>,
  options: ChannelOptions,
): ResultDeclaration<ChannelSource<V>, ChannelId<J>> {
  const schema: JsonSchema = { ...values.schema, 'x-channel': true };
  return {
    name: values.name,
    description: `a channel (WebSocket only) of ${values.description}`,
    schema,
    channel: options,
    encode: (source) =>
      new OpenChannel(source as ChannelSource<unknown>, values.encode as (value: unknown) => unknown, options) as never,
  };
}

/** What an eth_subscribe handler returns: the subscription's id and the source of its values. */
export interface EthSubscriptionSource<V> {
  readonly id: string;
  readonly source: ChannelSource<V>;
}

/** eth_subscribe's result: a subscription id, then `eth_subscription` notifications of `values`. */
export function ethSubscriptionResult<V, J>(
  values: ResultDeclaration<V, J>,
  options: { readonly buffer: number },
): ResultDeclaration<EthSubscriptionSource<V>, string> {
  const channel: ChannelOptions = { ...options, ethSubscription: true };
  return {
    name: values.name,
    description: `a subscription id (WebSocket only); eth_subscription notifications carry ${values.description}`,
    schema: { type: 'string', 'x-eth-subscription': true, description: 'the subscription id' },
    channel,
    encode: ({ id, source }) =>
      new OpenChannel(
        source as ChannelSource<unknown>,
        values.encode as (value: unknown) => unknown,
        channel,
        id,
      ) as never,
  };
}

/**
 * go-jsonrpc's answer to a channel method called where no channel can be carried (HTTP POST);
 * geth's for eth_subscribe (`notifications not supported`, which Ethereum clients know).
 */
export function noChannelSupport(method: string, options?: ChannelOptions): JsonRpcError {
  if (options?.ethSubscription === true) {
    return new JsonRpcError(JsonRpcErrorCode.MethodNotFound, 'notifications not supported');
  }
  return new JsonRpcError(
    JsonRpcErrorCode.MethodNotFound,
    `method '${method}' not supported in this mode (no out channel support): call it over a WebSocket at the same path`,
  );
}
