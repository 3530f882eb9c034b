/**
 * The node's libp2p traffic, for NetBandwidthStats and NetBandwidthStatsByPeer (go-libp2p
 * `core/metrics` `Stats`, the bandwidth counter Lotus's host reports): bytes in and out over every
 * TCP connection, counted by the sockets themselves (encryption and muxing included, as go-libp2p
 * counts), in total and per peer once the connection's handshake names it, and the rates since
 * the previous reading.
 */
import type { Socket } from 'node:net';
import type { MultiaddrConnection, Transport, Upgrader } from '@libp2p/interface';

/** go-libp2p `metrics.Stats`: bytes since start, bytes per second. */
export interface BandwidthStats {
  readonly totalIn: bigint;
  readonly totalOut: bigint;
  readonly rateIn: number;
  readonly rateOut: number;
}

/**
 * Peers whose connections have all closed are remembered up to this many, the least recently closed
 * forgotten first: a node that meets peers for months keeps a bounded table (their bytes stay in the
 * node's totals).
 */
export const MAX_CLOSED_PEERS = 4096;

/** Rates are measured over at least this long, so that two readings close together do not divide by ~0. */
const MIN_RATE_WINDOW_MS = 1000;

interface Sample {
  readonly at: number;
  readonly totalIn: bigint;
  readonly totalOut: bigint;
}

/** Byte totals read over time, and the rates between the last two readings at least a window apart. */
class RateMeter {
  #previous: Sample;
  #latest: Sample;

  /** Starts from the totals at `now`, so the first rates count only what comes after. */
  constructor(now: number, totalIn = 0n, totalOut = 0n) {
    this.#previous = { at: now, totalIn, totalOut };
    this.#latest = this.#previous;
  }

  read(now: number, totalIn: bigint, totalOut: bigint): BandwidthStats {
    if (now - this.#latest.at >= MIN_RATE_WINDOW_MS) {
      this.#previous = this.#latest;
      this.#latest = { at: now, totalIn, totalOut };
    }
    const seconds = Math.max(now - this.#previous.at, MIN_RATE_WINDOW_MS) / 1000;
    return {
      totalIn,
      totalOut,
      rateIn: Number(totalIn - this.#previous.totalIn) / seconds,
      rateOut: Number(totalOut - this.#previous.totalOut) / seconds,
    };
  }
}

interface Totals {
  totalIn: bigint;
  totalOut: bigint;
}

/** An open socket: the remote multiaddr its connection was upgraded from, and its peer once known. */
interface OpenSocket {
  readonly remoteAddr: string;
  peer: string | undefined;
}

export class BandwidthCounter {
  readonly #open = new Map<Socket, OpenSocket>();
  /** Bytes of the sockets already closed, in all and per peer. */
  readonly #closed: Totals = { totalIn: 0n, totalOut: 0n };
  readonly #closedByPeer = new Map<string, Totals>();
  readonly #meter = new RateMeter(Date.now());
  readonly #meterByPeer = new Map<string, RateMeter>();

  /** Counts a connection's socket until it closes (a connection of another transport is not counted). */
  track(connection: MultiaddrConnection): void {
    const socket = (connection as { socket?: unknown }).socket;
    if (!isSocket(socket) || this.#open.has(socket)) return;
    const open: OpenSocket = { remoteAddr: withoutPeer(connection.remoteAddr.toString()), peer: undefined };
    this.#open.set(socket, open);
    socket.once('close', () => {
      this.#open.delete(socket);
      addSocket(this.#closed, socket);
      if (open.peer !== undefined) this.#closePeerSocket(open.peer, socket);
    });
  }

  /** Adds a closed socket's bytes to its peer, now the most recently closed; forgets the oldest beyond the bound. */
  #closePeerSocket(peer: string, socket: Socket): void {
    const totals = this.#peerTotals(this.#closedByPeer, peer);
    addSocket(totals, socket);
    this.#closedByPeer.delete(peer);
    this.#closedByPeer.set(peer, totals);
    for (const oldest of this.#closedByPeer.keys()) {
      if (this.#closedByPeer.size <= MAX_CLOSED_PEERS) break;
      if ([...this.#open.values()].some((open) => open.peer === oldest)) continue;
      this.#closedByPeer.delete(oldest);
      this.#meterByPeer.delete(oldest);
    }
  }

  /**
   * Names the peer of the open connection from `remoteAddr` (the handshake tells it after the
   * socket is tracked): its bytes count for that peer from then on, including those already sent.
   */
  attribute(remoteAddr: string, peer: string): void {
    const address = withoutPeer(remoteAddr);
    for (const open of this.#open.values()) {
      if (open.remoteAddr === address && open.peer === undefined) open.peer = peer;
    }
  }

  stats(now = Date.now()): BandwidthStats {
    const totals = { ...this.#closed };
    for (const socket of this.#open.keys()) addSocket(totals, socket);
    return this.#meter.read(now, totals.totalIn, totals.totalOut);
  }

  /** Per peer: every peer with an open counted connection, and the last MAX_CLOSED_PEERS whose connections closed. */
  statsByPeer(now = Date.now()): Map<string, BandwidthStats> {
    const byPeer = new Map<string, Totals>();
    for (const [peer, closed] of this.#closedByPeer) byPeer.set(peer, { ...closed });
    for (const [socket, { peer }] of this.#open) {
      if (peer !== undefined) addSocket(this.#peerTotals(byPeer, peer), socket);
    }
    const stats = new Map<string, BandwidthStats>();
    for (const [peer, totals] of byPeer) {
      let meter = this.#meterByPeer.get(peer);
      if (meter === undefined) {
        meter = new RateMeter(now, totals.totalIn, totals.totalOut);
        this.#meterByPeer.set(peer, meter);
      }
      stats.set(peer, meter.read(now, totals.totalIn, totals.totalOut));
    }
    return stats;
  }

  #peerTotals(map: Map<string, Totals>, peer: string): Totals {
    let totals = map.get(peer);
    if (totals === undefined) {
      totals = { totalIn: 0n, totalOut: 0n };
      map.set(peer, totals);
    }
    return totals;
  }
}

/** A dialled address may end in `/p2p/<peer id>`, the socket's own does not. */
function withoutPeer(address: string): string {
  const at = address.indexOf('/p2p/');
  return at < 0 ? address : address.slice(0, at);
}

function addSocket(totals: Totals, socket: Socket): void {
  totals.totalIn += BigInt(socket.bytesRead);
  totals.totalOut += BigInt(socket.bytesWritten);
}

function isSocket(value: unknown): value is Socket {
  return typeof value === 'object' && value !== null && 'bytesRead' in value && 'bytesWritten' in value;
}

/**
 * A transport whose connections `counter` tracks: the upgrader it is handed for each dial and
 * listener is wrapped to see the raw connection first. Everything else is the transport's own.
 */
export function countedTransport<C, T extends Transport>(
  factory: (components: C) => T,
  counter: BandwidthCounter,
): (components: C) => T {
  const counted = (upgrader: Upgrader): Upgrader =>
    Object.assign(Object.create(upgrader) as Upgrader, {
      upgradeInbound: (connection: MultiaddrConnection, options: Parameters<Upgrader['upgradeInbound']>[1]) => {
        counter.track(connection);
        return upgrader.upgradeInbound(connection, options);
      },
      upgradeOutbound: (connection: MultiaddrConnection, options: Parameters<Upgrader['upgradeOutbound']>[1]) => {
        counter.track(connection);
        return upgrader.upgradeOutbound(connection, options);
      },
    });
  return (components) => {
    const transport = factory(components);
    return Object.assign(Object.create(transport) as T, {
      dial: (address: Parameters<T['dial']>[0], options: Parameters<T['dial']>[1]) =>
        transport.dial(address, { ...options, upgrader: counted(options.upgrader) }),
      createListener: (options: Parameters<T['createListener']>[0]) =>
        transport.createListener({ ...options, upgrader: counted(options.upgrader) }),
    });
  };
}
