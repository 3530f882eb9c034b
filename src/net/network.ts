/**
 * The node's place on the network: the libp2p host with Filecoin's protocols on it.
 *
 * - hello (`/fil/hello/1.0.0`): said to every peer that speaks it once identify completes; a peer
 *   on another genesis is disconnected, the others' heads go to `onHello` (the sync manager);
 * - chain exchange (`/fil/chain/xchg/0.0.1`): served from the chain store, rate-limited per peer;
 *   `exchange` is the client;
 * - gossip on `/fil/blocks/<network>` and `/fil/msgs/<network>`: each message is validated by the
 *   node's hooks before gossipsub forwards it; rejects cost the sender points (and gossipsub score).
 */
import './promise-with-resolvers.js';
import { TopicValidatorResult } from '@libp2p/gossipsub';
import type { Connection, PrivateKey, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import type { CID } from 'multiformats/cid';
import type { Logger } from 'pino';
import type { NetBlockStore } from '../db/index.js';
import {
  type BlockMsg,
  decodeBlockMsg,
  decodeSignedMessage,
  encodeBlockMsg,
  encodeSignedMessage,
  type SignedMessage,
  type TipSet,
} from '../types/index.js';
import { BandwidthCounter } from './bandwidth.js';
import { ChainExchangeClient } from './chain-exchange-client.js';
import { CHAIN_EXCHANGE_PROTOCOL, ExchangeStatus, encodeExchangeResponse } from './chain-exchange-codec.js';
import { type ExchangeChainSource, exchangeFailure, serveExchangeBytes } from './chain-exchange-server.js';
import { NetError, NetErrorCode } from './errors.js';
import { blocksTopic, type GossipVerdict, MAX_BLOCK_GOSSIP_BYTES, messagesTopic } from './gossip-topics.js';
import {
  decodeHelloMessage,
  decodeLatencyMessage,
  encodeHelloMessage,
  encodeLatencyMessage,
  HELLO_PROTOCOL,
  type HelloMessage,
  nowNanos,
} from './hello-message.js';
import { createHost, type LedgerHost } from './host.js';
import { type BlockedEntries, PeerBlockList } from './peer-block-list.js';
import { parsePeerId } from './peer-ids.js';
import { PeerScores, Penalty } from './peer-scores.js';
import { PeerRateLimiter, type RateLimit } from './rate-limiter.js';
import { readCborObject, writeAndClose } from './stream-io.js';

const HELLO_TIMEOUT_MS = 10_000;
const HELLO_MAX_BYTES = 4096;
const EXCHANGE_REQUEST_MAX_BYTES = 64 * 1024;
/** Lotus: 5 s to read a response plus a minimum speed; generous for 900 tipsets with messages. */
const EXCHANGE_RESPONSE_TIMEOUT_MS = 60_000;
const EXCHANGE_RESPONSE_MAX_BYTES = 256 * 1024 * 1024;
/** Lotus logs a clock offset above this between peers. */
const MAX_CLOCK_OFFSET_NS = 5_000_000_000n;
const DEFAULT_EXCHANGE_RATE: RateLimit = { perSecond: 50, burst: 200 };

/** The chain as the network layer sees it: hello reports the head, chain exchange serves it. */
export interface NetworkChain extends ExchangeChainSource {
  readonly genesis: TipSet;
  head(): TipSet;
  headWeight(): bigint;
}

export interface NetworkHooks {
  /** A peer on our genesis announced its head. */
  onHello?(peer: string, hello: HelloMessage): void;
  /** Decides whether a gossiped block is forwarded (and then delivered through `onBlock`). */
  validateBlock?(peer: string, block: BlockMsg): Promise<GossipVerdict> | GossipVerdict;
  onBlock?(peer: string, block: BlockMsg): void;
  /** Decides whether a gossiped message is forwarded (the message pool's admission). */
  validateMessage?(peer: string, message: SignedMessage): Promise<GossipVerdict> | GossipVerdict;
}

export interface NetworkOptions {
  readonly chain: NetworkChain;
  readonly networkName: string;
  readonly privateKey: PrivateKey;
  readonly listen: readonly string[];
  readonly bootstrap?: readonly string[];
  readonly logger: Logger;
  readonly exchangeRate?: RateLimit;
  /** Where NetBlockAdd's list is kept across restarts (in memory only without one). */
  readonly blockStore?: Pick<NetBlockStore, 'list' | 'update'>;
}

export interface PeerInfo {
  readonly id: string;
  readonly addrs: string[];
}

/** What the peer store knows of a peer: identify's agent and protocols, its addresses and tags. */
export interface PeerRecord {
  readonly id: string;
  /** Undefined until identify has run. */
  readonly agentVersion: string | undefined;
  readonly addrs: string[];
  readonly protocols: string[];
  readonly tags: ReadonlyMap<string, number>;
}

const VERDICTS: Record<GossipVerdict, TopicValidatorResult> = {
  accept: TopicValidatorResult.Accept,
  ignore: TopicValidatorResult.Ignore,
  reject: TopicValidatorResult.Reject,
};

export class LedgerNetwork {
  readonly host: LedgerHost;
  readonly scores: PeerScores;
  readonly exchange: ChainExchangeClient;
  /** Bytes in and out over every connection. */
  readonly bandwidth: BandwidthCounter;
  /** Peers, IPs and subnets the host refuses (NetBlockAdd). */
  readonly blockList: PeerBlockList;
  readonly blocksTopic: string;
  readonly messagesTopic: string;
  hooks: NetworkHooks = {};
  readonly #chain: NetworkChain;
  readonly #logger: Logger;
  readonly #bootstrap: readonly string[];
  readonly #exchangeLimiter: PeerRateLimiter;
  /** Last measured latency per peer (ns), from hello. */
  readonly #latency = new Map<string, bigint>();

  private constructor(
    host: LedgerHost,
    scores: PeerScores,
    bandwidth: BandwidthCounter,
    blockList: PeerBlockList,
    options: NetworkOptions,
  ) {
    this.host = host;
    this.scores = scores;
    this.bandwidth = bandwidth;
    this.blockList = blockList;
    this.#chain = options.chain;
    this.#logger = options.logger;
    this.#bootstrap = options.bootstrap ?? [];
    this.#exchangeLimiter = new PeerRateLimiter(options.exchangeRate ?? DEFAULT_EXCHANGE_RATE);
    this.blocksTopic = blocksTopic(options.networkName);
    this.messagesTopic = messagesTopic(options.networkName);
    this.exchange = new ChainExchangeClient((peer, request) => this.#requestExchange(peer, request));
    scores.onBan = (peer, reason) => {
      this.#logger.warn({ peer, reason }, 'peer banned');
      void this.host.hangUp(peerIdFromString(peer)).catch(() => undefined);
    };
  }

  static async create(options: NetworkOptions): Promise<LedgerNetwork> {
    const scores = new PeerScores();
    const bandwidth = new BandwidthCounter();
    const blockList = new PeerBlockList(options.blockStore);
    const host = await createHost({
      privateKey: options.privateKey,
      listen: options.listen,
      isBanned: (peer) => scores.isBanned(peer),
      bandwidth,
      blockList,
    });
    return new LedgerNetwork(host, scores, bandwidth, blockList, options);
  }

  get peerId(): string {
    return this.host.peerId.toString();
  }

  async start(): Promise<void> {
    await this.host.handle(HELLO_PROTOCOL, (stream, connection) => this.#answerHello(stream, connection), {
      runOnLimitedConnection: false,
    });
    await this.host.handle(CHAIN_EXCHANGE_PROTOCOL, (stream, connection) => this.#serveExchange(stream, connection));
    this.host.addEventListener('connection:open', ({ detail: connection }) => {
      this.bandwidth.attribute(connection.remoteAddr.toString(), connection.remotePeer.toString());
    });
    this.host.addEventListener('peer:identify', (event) => {
      if (event.detail.protocols.includes(HELLO_PROTOCOL)) {
        void this.sayHello(event.detail.peerId.toString()).catch((error: unknown) => {
          this.#logger.debug({ peer: event.detail.peerId.toString(), err: error }, 'hello failed');
        });
      }
    });
    const pubsub = this.host.services.pubsub;
    pubsub.topicValidators.set(this.blocksTopic, (peer, message) => this.#validateBlock(peer.toString(), message.data));
    pubsub.topicValidators.set(this.messagesTopic, (peer, message) =>
      this.#validateMessage(peer.toString(), message.data),
    );
    await this.host.start();
    pubsub.subscribe(this.blocksTopic);
    pubsub.subscribe(this.messagesTopic);
    for (const address of this.#bootstrap) {
      void this.connect(address).catch((error: unknown) => {
        this.#logger.warn({ address, err: error }, 'cannot reach a bootstrap peer');
      });
    }
    this.#logger.info({ peerId: this.peerId, addrs: this.listenAddresses() }, 'libp2p host started');
  }

  async stop(): Promise<void> {
    await this.host.stop();
  }

  /** The addresses we listen on, each ending in `/p2p/<peer id>` (Lotus `NetAddrsListen`). */
  listenAddresses(): string[] {
    return this.host.getMultiaddrs().map((address) => address.toString());
  }

  /** Dials a peer by a multiaddr that names it (`…/p2p/<id>`); returns its peer id. */
  async connect(address: string): Promise<string> {
    let target: Multiaddr;
    try {
      target = multiaddr(address);
    } catch (error) {
      throw new NetError(
        NetErrorCode.BadAddress,
        `invalid multiaddr ${JSON.stringify(address)}: ${(error as Error).message}`,
      );
    }
    if (target.getComponents().every((component) => component.name !== 'p2p')) {
      throw new NetError(NetErrorCode.BadAddress, `multiaddr ${address} does not end in /p2p/<peer id>`);
    }
    try {
      const connection = await this.host.dial(target, { signal: AbortSignal.timeout(15_000) });
      return connection.remotePeer.toString();
    } catch (error) {
      throw new NetError(NetErrorCode.BadAddress, `cannot connect to ${address}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async disconnect(peer: string): Promise<void> {
    await this.host.hangUp(parsePeerId(peer));
  }

  /**
   * Refuses peers, IPs and subnets from now on and closes the connections to them (Lotus
   * `NetBlockAdd`); a bad entry refuses the whole list.
   */
  async block(entries: BlockedEntries): Promise<void> {
    this.blockList.add(entries);
    const blocked = this.host
      .getConnections()
      .filter((c) => this.blockList.hasPeer(c.remotePeer.toString()) || this.blockList.blocksAddress(c.remoteAddr));
    await Promise.all(
      blocked.map((c) =>
        c.close().catch((error: unknown) => {
          this.#logger.warn({ peer: c.remotePeer.toString(), err: error }, 'cannot close a blocked connection');
        }),
      ),
    );
  }

  /** Lets blocked peers, IPs and subnets connect again (Lotus `NetBlockRemove`). */
  unblock(entries: BlockedEntries): void {
    this.blockList.remove(entries);
  }

  /** Whether the node has an open connection to a peer (go-libp2p `network.Connectedness`). */
  isConnected(peer: string): boolean {
    return this.host.getConnections(parsePeerId(peer)).some((c) => c.status === 'open');
  }

  /** The round trip of a ping to a peer, in milliseconds (libp2p's ping protocol; dials it if needed). */
  async ping(peer: string, signal?: AbortSignal): Promise<number> {
    const timeout = AbortSignal.timeout(15_000);
    try {
      return await this.host.services.ping.ping(parsePeerId(peer), {
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
    } catch (error) {
      throw new NetError(NetErrorCode.UnknownPeer, `cannot ping ${peer}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /** The peer store's record of a peer; undefined for a peer this node never met. */
  async peerRecord(peer: string): Promise<PeerRecord | undefined> {
    const id = parsePeerId(peer);
    if (!(await this.host.peerStore.has(id))) return undefined;
    const record = await this.host.peerStore.get(id);
    const agent = record.metadata.get('AgentVersion');
    return {
      id: peer,
      agentVersion: agent === undefined ? undefined : new TextDecoder().decode(agent),
      addrs: record.addresses.map((address) => address.multiaddr.toString()),
      protocols: [...record.protocols],
      tags: new Map([...record.tags].map(([name, tag]) => [name, tag.value])),
    };
  }

  peers(): PeerInfo[] {
    const byPeer = new Map<string, string[]>();
    for (const connection of this.host.getConnections()) {
      const id = connection.remotePeer.toString();
      byPeer.set(id, [...(byPeer.get(id) ?? []), connection.remoteAddr.toString()]);
    }
    return [...byPeer].map(([id, addrs]) => ({ id, addrs }));
  }

  latency(peer: string): bigint | undefined {
    return this.#latency.get(peer);
  }

  /** Tells a peer our head and genesis; records the latency it answers with. */
  async sayHello(peer: string): Promise<void> {
    const head = this.#chain.head();
    const hello: HelloMessage = {
      heaviestTipSet: head.cids,
      heaviestTipSetHeight: head.height,
      heaviestTipSetWeight: this.#chain.headWeight(),
      genesisHash: this.#chain.genesis.cids[0] as CID,
    };
    const sent = nowNanos();
    const stream = await this.host.dialProtocol(peerIdFromString(peer), HELLO_PROTOCOL, {
      signal: AbortSignal.timeout(HELLO_TIMEOUT_MS),
    });
    await writeAndClose(stream, encodeHelloMessage(hello));
    const latency = decodeLatencyMessage(
      await readCborObject(stream, {
        maxBytes: HELLO_MAX_BYTES,
        timeoutMs: HELLO_TIMEOUT_MS,
        what: `latency message from ${peer}`,
      }),
    );
    const received = nowNanos();
    this.#latency.set(peer, (received - sent) / 2n);
    const offset = (latency.tArrival - sent + (latency.tSent - received)) / 2n;
    if (offset > MAX_CLOCK_OFFSET_NS || offset < -MAX_CLOCK_OFFSET_NS) {
      this.#logger.warn({ peer, offsetMs: Number(offset / 1_000_000n) }, 'clock offset with a peer above 5 s');
    }
  }

  async publishBlock(block: BlockMsg): Promise<void> {
    await this.host.services.pubsub.publish(this.blocksTopic, encodeBlockMsg(block));
  }

  /**
   * Gossips a pool message. With no peer subscribed to the topic there is no one to send it to
   * (and no one to ask for it later), so the encoding and gossipsub's bookkeeping are skipped: the
   * pool republishes its local messages periodically, which reaches peers that join afterwards.
   */
  async publishMessage(message: SignedMessage): Promise<void> {
    const pubsub = this.host.services.pubsub;
    if (pubsub.getSubscribers(this.messagesTopic).length === 0) return;
    await pubsub.publish(this.messagesTopic, encodeSignedMessage(message));
  }

  async #answerHello(stream: Stream, connection: Connection): Promise<void> {
    const peer = connection.remotePeer.toString();
    try {
      const bytes = await readCborObject(stream, {
        maxBytes: HELLO_MAX_BYTES,
        timeoutMs: HELLO_TIMEOUT_MS,
        what: `hello from ${peer}`,
      });
      const arrival = nowNanos();
      const hello = decodeHelloMessage(bytes);
      const genesis = this.#chain.genesis.cids[0] as CID;
      if (!hello.genesisHash.equals(genesis)) {
        this.#logger.warn({ peer, theirs: hello.genesisHash.toString() }, 'peer has another genesis; disconnecting');
        stream.abort(new Error('genesis mismatch'));
        await connection.close();
        return;
      }
      await writeAndClose(stream, encodeLatencyMessage({ tArrival: arrival, tSent: nowNanos() }));
      this.hooks.onHello?.(peer, hello);
    } catch (error) {
      this.#penalizeFor(peer, error);
      stream.abort(error as Error);
    }
  }

  async #serveExchange(stream: Stream, connection: Connection): Promise<void> {
    const peer = connection.remotePeer.toString();
    try {
      if (!this.#exchangeLimiter.tryTake(peer)) {
        this.scores.penalize(peer, Penalty.RateLimited, 'chain exchange requests above the rate limit');
        await writeAndClose(
          stream,
          encodeExchangeResponse(exchangeFailure(ExchangeStatus.GoAway, 'rate limit exceeded')),
        );
        return;
      }
      const request = await readCborObject(stream, {
        maxBytes: EXCHANGE_REQUEST_MAX_BYTES,
        timeoutMs: HELLO_TIMEOUT_MS,
        what: `chain exchange request from ${peer}`,
      });
      const response = serveExchangeBytes(this.#chain, request, this.#logger);
      if (response.status === ExchangeStatus.BadRequest)
        this.scores.penalize(peer, Penalty.BadMessage, response.errorMessage);
      await writeAndClose(stream, encodeExchangeResponse(response));
    } catch (error) {
      this.#penalizeFor(peer, error);
      stream.abort(error as Error);
    }
  }

  async #requestExchange(peer: string, request: Uint8Array): Promise<Uint8Array> {
    if (this.scores.isBanned(peer)) throw new NetError(NetErrorCode.ExchangeFailed, `peer ${peer} is banned`);
    const stream = await this.host.dialProtocol(peerIdFromString(peer), CHAIN_EXCHANGE_PROTOCOL, {
      signal: AbortSignal.timeout(5_000),
    });
    try {
      await writeAndClose(stream, request);
      return await readCborObject(stream, {
        maxBytes: EXCHANGE_RESPONSE_MAX_BYTES,
        timeoutMs: EXCHANGE_RESPONSE_TIMEOUT_MS,
        what: `chain exchange response from ${peer}`,
      });
    } catch (error) {
      this.#penalizeFor(peer, error);
      stream.abort(error as Error);
      throw error;
    }
  }

  #penalizeFor(peer: string, error: unknown): void {
    const code = (error as { code?: string }).code;
    if (code === NetErrorCode.Timeout) this.scores.penalize(peer, Penalty.Timeout, (error as Error).message);
    else if (code === NetErrorCode.BadMessage || code === 'ERR_CBOR_DECODE') {
      this.scores.penalize(peer, Penalty.BadMessage, (error as Error).message);
    }
  }

  async #validateBlock(peer: string, data: Uint8Array): Promise<TopicValidatorResult> {
    if (data.length > MAX_BLOCK_GOSSIP_BYTES) return TopicValidatorResult.Ignore;
    let block: BlockMsg;
    try {
      block = decodeBlockMsg(data);
    } catch (error) {
      this.scores.penalize(peer, Penalty.BadMessage, `undecodable block gossip: ${(error as Error).message}`);
      return TopicValidatorResult.Reject;
    }
    const verdict = (await this.hooks.validateBlock?.(peer, block)) ?? 'accept';
    if (verdict === 'reject') this.scores.penalize(peer, Penalty.InvalidBlock, 'invalid block gossip');
    if (verdict === 'accept') setImmediate(() => this.hooks.onBlock?.(peer, block));
    return VERDICTS[verdict];
  }

  async #validateMessage(peer: string, data: Uint8Array): Promise<TopicValidatorResult> {
    let message: SignedMessage;
    try {
      message = decodeSignedMessage(data);
    } catch (error) {
      this.scores.penalize(peer, Penalty.BadMessage, `undecodable message gossip: ${(error as Error).message}`);
      return TopicValidatorResult.Reject;
    }
    const verdict = (await this.hooks.validateMessage?.(peer, message)) ?? 'ignore';
    if (verdict === 'reject') this.scores.penalize(peer, Penalty.BadMessage, 'invalid message gossip');
    return VERDICTS[verdict];
  }
}
