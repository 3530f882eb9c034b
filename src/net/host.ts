/**
 * The libp2p host: TCP, noise, yamux, identify, ping and gossipsub with Filecoin's parameters
 * (filecoin-project/lotus `node/modules/lp2p/pubsub.go`: D 8, Dlo 6, Dhi 12, history 10, flood
 * publish, content-addressed message ids, no author signatures — Filecoin validates the payload
 * instead).
 */
import './promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { type GossipSub, gossipsub, StrictNoSign } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import type { PrivateKey } from '@libp2p/interface';
import { type Ping, ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { createLibp2p, type Libp2p } from 'libp2p';
import { blake2b256 } from '../crypto/index.js';
import { toHex } from '../utils/bytes.js';
import { type BandwidthCounter, countedTransport } from './bandwidth.js';
import type { PeerBlockList } from './peer-block-list.js';

/** Pubsub's default max message size; blocks above 1 MiB − 32 KiB are ignored by the validator. */
export const MAX_GOSSIP_MESSAGE_BYTES = 1 << 20;

export type HostServices = {
  pubsub: GossipSub;
  identify: unknown;
  ping: Ping;
};

export type LedgerHost = Libp2p<HostServices>;

export interface HostOptions {
  readonly privateKey: PrivateKey;
  /** Multiaddrs to listen on, e.g. `/ip4/127.0.0.1/tcp/0`. */
  readonly listen: readonly string[];
  /** Peers refused at dial and at accept (banned by our peer scores). */
  readonly isBanned?: (peer: string) => boolean;
  /** Counts the bytes of every connection (NetBandwidthStats). */
  readonly bandwidth?: BandwidthCounter;
  /** Peers, IPs and subnets refused at dial and at accept (NetBlockAdd). */
  readonly blockList?: PeerBlockList;
}

export async function createHost(options: HostOptions): Promise<LedgerHost> {
  const banned = options.isBanned ?? (() => false);
  const blockList = options.blockList;
  const isBanned = (peer: string) => banned(peer) || blockList?.hasPeer(peer) === true;
  return createLibp2p({
    privateKey: options.privateKey,
    addresses: { listen: [...options.listen] },
    transports: [options.bandwidth === undefined ? tcp() : countedTransport(tcp(), options.bandwidth)],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    connectionGater: {
      // Loopback and private addresses are where devnets live; libp2p refuses them by default.
      denyDialMultiaddr: (address) => blockList?.blocksAddress(address) === true,
      denyDialPeer: (peerId) => isBanned(peerId.toString()),
      denyInboundConnection: (connection) => blockList?.blocksAddress(connection.remoteAddr) === true,
      denyInboundEncryptedConnection: (peerId) => isBanned(peerId.toString()),
      // A dial by address learns the peer only in the handshake.
      denyOutboundEncryptedConnection: (peerId) => isBanned(peerId.toString()),
    },
    services: {
      identify: identify(),
      ping: ping(),
      pubsub: gossipsub({
        globalSignaturePolicy: StrictNoSign,
        msgIdFn: (message) => blake2b256(message.data),
        fastMsgIdFn: (message) => toHex(blake2b256(message.data ?? new Uint8Array(0))),
        D: 8,
        Dlo: 6,
        Dhi: 12,
        mcacheLength: 10,
        floodPublish: true,
        allowPublishToZeroTopicPeers: true,
        maxInboundDataLength: MAX_GOSSIP_MESSAGE_BYTES,
      }),
    },
    start: false,
  });
}
