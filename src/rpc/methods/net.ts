/**
 * Network methods (`lotus:api/api_net.go`): the node's peer id and listen addresses, its peers,
 * and dialling a peer. AddrInfo is Lotus's `{ID, Addrs}`.
 */
import {
  type BandwidthStats,
  type BlockedEntries,
  type LedgerNetwork,
  NetError,
  NetErrorCode,
} from '../../net/index.js';
import { jsonFail, readJsonArray, readJsonObject } from '../../types/index.js';
import { declareMethod, methodsNeeding, type ParamDeclaration } from '../method.js';
import { stringParam } from '../params.js';
import { booleanResult, jsonResult, voidResult } from '../results.js';
import { stringSchema } from '../schemas.js';

/** The Net* and Sync* methods need the libp2p host and the sync manager. */
export const declareNetMethod = methodsNeeding('net');

export interface AddrInfoJson {
  ID: string;
  Addrs: string[];
}

const addrInfoSchema = {
  title: 'AddrInfo',
  type: 'object',
  properties: { ID: { type: 'string' }, Addrs: { type: 'array', items: { type: 'string' } } },
  required: ['ID', 'Addrs'],
} as const;

function readAddrInfo(json: unknown, path: string): AddrInfoJson {
  const object = readJsonObject(json, path);
  const id = object.ID;
  if (typeof id !== 'string' || id.length === 0) jsonFail(path, 'an ID (peer id string)', id);
  const addrs = readJsonArray(object.Addrs ?? [], `${path}.Addrs`, (value, itemPath) => {
    if (typeof value !== 'string') jsonFail(itemPath, 'a multiaddr string', value);
    return value as string;
  });
  return { ID: id as string, Addrs: addrs };
}

const addrInfoParam: ParamDeclaration<AddrInfoJson, AddrInfoJson> = {
  name: 'addrInfo',
  description: 'the peer: {ID, Addrs}',
  schema: addrInfoSchema,
  decode: readAddrInfo,
};

export const id = declareNetMethod({
  name: 'ID',
  description: "The node's libp2p peer id.",
  permission: 'read',
  params: [],
  result: jsonResult<string>('peerId', 'a peer id', stringSchema),
  handler: (_params, { net }) => net.network.peerId,
});

export const netAddrsListen = declareNetMethod({
  name: 'NetAddrsListen',
  description: 'The peer id and the multiaddrs the node listens on.',
  permission: 'read',
  params: [],
  result: jsonResult<AddrInfoJson>('addrInfo', 'Lotus AddrInfo', addrInfoSchema),
  handler: (_params, { net: { network } }) => {
    const suffix = `/p2p/${network.peerId}`;
    return {
      ID: network.peerId,
      Addrs: network.listenAddresses().map((a) => (a.endsWith(suffix) ? a.slice(0, -suffix.length) : a)),
    };
  },
});

export const netPeers = declareNetMethod({
  name: 'NetPeers',
  description: 'The connected peers and the addresses of their connections.',
  permission: 'read',
  params: [],
  result: jsonResult<AddrInfoJson[]>('peers', 'Lotus []AddrInfo', { type: 'array', items: addrInfoSchema }),
  handler: (_params, { net }) => net.network.peers().map((peer) => ({ ID: peer.id, Addrs: peer.addrs })),
});

export const netConnect = declareNetMethod({
  name: 'NetConnect',
  description: 'Dials a peer at one of its addresses.',
  permission: 'write',
  params: [addrInfoParam],
  result: voidResult,
  handler: async ([info], { net: { network } }) => {
    if (info.Addrs.length === 0) throw new NetError(NetErrorCode.BadAddress, `no address given for peer ${info.ID}`);
    let lastError: unknown;
    for (const address of info.Addrs) {
      const full = address.includes('/p2p/') ? address : `${address}/p2p/${info.ID}`;
      try {
        await network.connect(full);
        return;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  },
});

export const netDisconnect = declareNetMethod({
  name: 'NetDisconnect',
  description: 'Closes the connections to a peer.',
  permission: 'write',
  params: [stringParam('peerId', 'the peer id')],
  result: voidResult,
  handler: async ([peer], { net }) => net.network.disconnect(peer),
});

/** Lotus `api.ConnMgrInfo`: the connection manager's view of a connected peer. */
export interface ConnMgrInfoJson {
  FirstSeen: string;
  Value: number;
  Tags: Record<string, number>;
  Conns: Record<string, string>;
}

/** Lotus `api.ExtendedPeerInfo`. */
export interface ExtendedPeerInfoJson {
  ID: string;
  Agent: string;
  Addrs: string[] | null;
  Protocols: string[] | null;
  ConnMgrMeta: ConnMgrInfoJson | null;
}

const sortedOrNull = (values: readonly string[]) => (values.length === 0 ? null : [...values].sort());

/** A peer's tags and open connections (with when each opened); null without a connection, as Lotus has no tag info then. */
function connMgrInfo(network: LedgerNetwork, peer: string, tags: ReadonlyMap<string, number>): ConnMgrInfoJson | null {
  const connections = network.host.getConnections().filter((c) => c.remotePeer.toString() === peer);
  if (connections.length === 0) return null;
  const opened = (time: number) => new Date(time).toISOString();
  return {
    FirstSeen: opened(Math.min(...connections.map((c) => c.timeline.open))),
    Value: [...tags.values()].reduce((sum, value) => sum + value, 0),
    Tags: Object.fromEntries(tags),
    Conns: Object.fromEntries(connections.map((c) => [c.remoteAddr.toString(), opened(c.timeline.open)])),
  };
}

const peerIdParam = stringParam('peerId', 'the peer id (12D3KooW…)');

export const netPeerInfo = declareNetMethod({
  name: 'NetPeerInfo',
  description:
    'What the node knows of a peer: the agent and protocols identify reported, its addresses (sorted) and, while connected, its tags and connections; empty fields for a peer never met.',
  permission: 'read',
  params: [peerIdParam],
  result: jsonResult<ExtendedPeerInfoJson>('peerInfo', 'Lotus ExtendedPeerInfo', {
    title: 'ExtendedPeerInfo',
    type: 'object',
    properties: {
      ID: stringSchema,
      Agent: stringSchema,
      Addrs: { type: ['array', 'null'], items: stringSchema },
      Protocols: { type: ['array', 'null'], items: stringSchema },
      ConnMgrMeta: { type: ['object', 'null'] },
    },
    required: ['ID', 'Agent', 'Addrs', 'Protocols', 'ConnMgrMeta'],
  }),
  handler: async ([peer], { net: { network } }) => {
    const record = await network.peerRecord(peer);
    return {
      ID: peer,
      Agent: record?.agentVersion ?? '',
      Addrs: sortedOrNull(record?.addrs ?? []),
      Protocols: sortedOrNull(record?.protocols ?? []),
      ConnMgrMeta: connMgrInfo(network, peer, record?.tags ?? new Map()),
    };
  },
});

export const netAgentVersion = declareNetMethod({
  name: 'NetAgentVersion',
  description: "The agent version a peer's identify reported; an error for a peer that has not reported one.",
  permission: 'read',
  params: [peerIdParam],
  result: jsonResult<string>('agent', 'the agent version', stringSchema),
  handler: async ([peer], { net: { network } }) => {
    const agent = (await network.peerRecord(peer))?.agentVersion;
    if (agent === undefined)
      throw new NetError(NetErrorCode.UnknownPeer, `item not found: no agent version known for peer ${peer}`);
    return agent;
  },
});

/** go-libp2p `metrics.Stats`. */
export interface BandwidthStatsJson {
  TotalIn: number | bigint;
  TotalOut: number | bigint;
  RateIn: number;
  RateOut: number;
}

const bandwidthStatsSchema = {
  title: 'Stats',
  type: 'object',
  properties: {
    TotalIn: { type: 'integer', minimum: 0 },
    TotalOut: { type: 'integer', minimum: 0 },
    RateIn: { type: 'number' },
    RateOut: { type: 'number' },
  },
  required: ['TotalIn', 'TotalOut', 'RateIn', 'RateOut'],
} as const;

function bandwidthStatsJson(stats: BandwidthStats): BandwidthStatsJson {
  return { TotalIn: stats.totalIn, TotalOut: stats.totalOut, RateIn: stats.rateIn, RateOut: stats.rateOut };
}

export const netBandwidthStats = declareNetMethod({
  name: 'NetBandwidthStats',
  description:
    "The node's libp2p traffic: bytes in and out since it started, over every connection, and bytes per second since the previous reading (at least a second ago).",
  permission: 'read',
  params: [],
  result: jsonResult<BandwidthStatsJson>('stats', 'go-libp2p metrics.Stats', bandwidthStatsSchema),
  handler: (_params, { net: { network } }) => bandwidthStatsJson(network.bandwidth.stats()),
});

export const netBandwidthStatsByPeer = declareNetMethod({
  name: 'NetBandwidthStatsByPeer',
  description:
    "The node's libp2p traffic per peer id: bytes in and out since it started over every connection with that peer (closed ones included, counted from the socket), and bytes per second since the previous reading.",
  permission: 'read',
  params: [],
  result: jsonResult<Record<string, BandwidthStatsJson>>('stats', 'peer id → go-libp2p metrics.Stats', {
    type: 'object',
    additionalProperties: bandwidthStatsSchema,
  }),
  handler: (_params, { net: { network } }) =>
    Object.fromEntries([...network.bandwidth.statsByPeer()].map(([peer, stats]) => [peer, bandwidthStatsJson(stats)])),
});

/** go-libp2p `network.Connectedness`: what NetConnectedness answers. */
const NOT_CONNECTED = 0;
const CONNECTED = 1;

export const netConnectedness = declareNetMethod({
  name: 'NetConnectedness',
  description:
    'Whether the node has an open connection to a peer: 1 (Connected) or 0 (NotConnected), as go-libp2p numbers them.',
  permission: 'read',
  params: [peerIdParam],
  result: jsonResult<number>('connectedness', 'go-libp2p network.Connectedness', {
    type: 'integer',
    enum: [NOT_CONNECTED, CONNECTED],
  }),
  handler: ([peer], { net: { network } }) => (network.isConnected(peer) ? CONNECTED : NOT_CONNECTED),
});

const NANOSECONDS_PER_MILLISECOND = 1_000_000;

export const netPing = declareNetMethod({
  name: 'NetPing',
  description:
    "Pings a peer with libp2p's ping protocol (dialling it if needed) and returns the round trip in nanoseconds, measured in whole milliseconds; an error when the peer does not answer within 15 s.",
  permission: 'read',
  params: [peerIdParam],
  result: jsonResult<number>('rtt', 'time.Duration (ns)', { type: 'integer', minimum: 0 }),
  handler: async ([peer], { net: { network } }, { signal }) =>
    (await network.ping(peer, signal)) * NANOSECONDS_PER_MILLISECOND,
});

export const netFindPeer = declareNetMethod({
  name: 'NetFindPeer',
  description:
    "The addresses of a peer, from the node's peer store (what identify and connections taught it; the node runs no DHT, so it finds only peers it has met); an error for a peer it knows no address of.",
  permission: 'read',
  params: [peerIdParam],
  result: jsonResult<AddrInfoJson>('addrInfo', 'Lotus AddrInfo', addrInfoSchema),
  handler: async ([peer], { net: { network } }) => {
    const addrs = (await network.peerRecord(peer))?.addrs ?? [];
    if (addrs.length === 0)
      throw new NetError(NetErrorCode.UnknownPeer, `routing: not found: no address known for peer ${peer}`);
    return { ID: peer, Addrs: addrs };
  },
});

export const netListening = declareNetMethod({
  name: 'NetListening',
  description: "Ethereum's net_listening: whether the node's libp2p host listens on an address.",
  permission: 'read',
  apiVersions: [1],
  aliases: ['net_listening'],
  params: [],
  result: booleanResult('true while listening'),
  handler: (_params, { net: { network } }) => network.listenAddresses().length > 0,
});

export const netVersion = declareMethod({
  name: 'NetVersion',
  description: "Ethereum's net_version: the network's EIP-155 chain id, in decimal.",
  permission: 'read',
  apiVersions: [1],
  aliases: ['net_version'],
  needs: ['chain'],
  params: [],
  result: jsonResult<string>('chainId', 'the chain id in decimal', stringSchema),
  handler: (_params, { chain }) => chain.params.eip155ChainId.toString(),
});

/** Lotus `api.NetBlockList`: Go writes an empty list as null. */
export interface NetBlockListJson {
  Peers: string[] | null;
  IPAddrs: string[] | null;
  IPSubnets: string[] | null;
}

const stringListSchema = { type: ['array', 'null'], items: stringSchema } as const;

const netBlockListSchema = {
  title: 'NetBlockList',
  type: 'object',
  properties: { Peers: stringListSchema, IPAddrs: stringListSchema, IPSubnets: stringListSchema },
} as const;

const netBlockListParam: ParamDeclaration<BlockedEntries, Partial<NetBlockListJson>> = {
  name: 'acl',
  description: 'peer ids, IP addresses and CIDR subnets: {Peers, IPAddrs, IPSubnets}, each optional',
  schema: netBlockListSchema,
  decode: (json, path) => {
    const object = readJsonObject(json, path);
    const strings = (field: 'Peers' | 'IPAddrs' | 'IPSubnets', what: string) =>
      readJsonArray(object[field] ?? [], `${path}.${field}`, (value, itemPath) => {
        if (typeof value !== 'string') jsonFail(itemPath, what, value);
        return value as string;
      });
    return {
      peers: strings('Peers', 'a peer id string'),
      ipAddrs: strings('IPAddrs', 'an IP address string'),
      ipSubnets: strings('IPSubnets', 'a CIDR subnet string (10.0.0.0/8)'),
    };
  },
};

export const netBlockAdd = declareNetMethod({
  name: 'NetBlockAdd',
  description:
    'Refuses peers, IP addresses and subnets at dial and at accept, and closes the open connections to them; kept until the node stops (not saved). A malformed entry refuses the whole list.',
  permission: 'admin',
  params: [netBlockListParam],
  result: voidResult,
  handler: ([entries], { net: { network } }) => network.block(entries),
});

export const netBlockRemove = declareNetMethod({
  name: 'NetBlockRemove',
  description: 'Lets blocked peers, IP addresses and subnets connect again. A malformed entry refuses the whole list.',
  permission: 'admin',
  params: [netBlockListParam],
  result: voidResult,
  handler: ([entries], { net: { network } }) => network.unblock(entries),
});

export const netBlockList = declareNetMethod({
  name: 'NetBlockList',
  description: 'The blocked peers, IP addresses and subnets, each list sorted (null when empty, as Lotus writes it).',
  permission: 'read',
  params: [],
  result: jsonResult<NetBlockListJson>('acl', 'Lotus NetBlockList', netBlockListSchema),
  handler: (_params, { net: { network } }) => {
    const { peers, ipAddrs, ipSubnets } = network.blockList.list();
    return { Peers: sortedOrNull(peers), IPAddrs: sortedOrNull(ipAddrs), IPSubnets: sortedOrNull(ipSubnets) };
  },
});

export const netMethods = [
  id,
  netAddrsListen,
  netPeers,
  netConnect,
  netDisconnect,
  netPeerInfo,
  netAgentVersion,
  netBandwidthStats,
  netBandwidthStatsByPeer,
  netConnectedness,
  netPing,
  netFindPeer,
  netListening,
  netVersion,
  netBlockAdd,
  netBlockRemove,
  netBlockList,
];
