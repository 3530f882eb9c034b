/**
 * Network methods (`lotus:api/api_net.go`): the node's peer id and listen addresses, its peers,
 * and dialling a peer. AddrInfo is Lotus's `{ID, Addrs}`.
 */
import { NetError, NetErrorCode } from '../../net/index.js';
import { jsonFail, readJsonArray, readJsonObject } from '../../types/index.js';
import type { NetContext, RpcContext } from '../context.js';
import { declareMethod, type ParamDeclaration } from '../method.js';
import { jsonResult, voidResult } from '../results.js';
import { stringSchema } from '../schemas.js';

const BOTH = [0, 1] as const;

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

/** The network, or a clear error on a node that runs without one. */
export function netOf(context: RpcContext): NetContext {
  if (context.net === undefined) {
    throw new NetError(NetErrorCode.BadAddress, 'this node has no libp2p host (it runs without a chain)');
  }
  return context.net;
}

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

const addrInfoParam: ParamDeclaration<AddrInfoJson> = {
  name: 'addrInfo',
  description: 'the peer: {ID, Addrs}',
  schema: addrInfoSchema,
  decode: readAddrInfo,
};

export const id = declareMethod({
  name: 'ID',
  description: "The node's libp2p peer id.",
  permission: 'read',
  apiVersions: BOTH,
  params: [],
  result: jsonResult<string>('peerId', 'a peer id', stringSchema),
  handler: (_params, context) => netOf(context).network.peerId,
});

export const netAddrsListen = declareMethod({
  name: 'NetAddrsListen',
  description: 'The peer id and the multiaddrs the node listens on.',
  permission: 'read',
  apiVersions: BOTH,
  params: [],
  result: jsonResult<AddrInfoJson>('addrInfo', 'Lotus AddrInfo', addrInfoSchema),
  handler: (_params, context) => {
    const { network } = netOf(context);
    const suffix = `/p2p/${network.peerId}`;
    return {
      ID: network.peerId,
      Addrs: network.listenAddresses().map((a) => (a.endsWith(suffix) ? a.slice(0, -suffix.length) : a)),
    };
  },
});

export const netPeers = declareMethod({
  name: 'NetPeers',
  description: 'The connected peers and the addresses of their connections.',
  permission: 'read',
  apiVersions: BOTH,
  params: [],
  result: jsonResult<AddrInfoJson[]>('peers', 'Lotus []AddrInfo', { type: 'array', items: addrInfoSchema }),
  handler: (_params, context) =>
    netOf(context)
      .network.peers()
      .map((peer) => ({ ID: peer.id, Addrs: peer.addrs })),
});

export const netConnect = declareMethod({
  name: 'NetConnect',
  description: 'Dials a peer at one of its addresses.',
  permission: 'write',
  apiVersions: BOTH,
  params: [addrInfoParam],
  result: voidResult,
  handler: async ([info], context) => {
    const { network } = netOf(context);
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

export const netDisconnect = declareMethod({
  name: 'NetDisconnect',
  description: 'Closes the connections to a peer.',
  permission: 'write',
  apiVersions: BOTH,
  params: [
    {
      name: 'peerId',
      description: 'the peer id',
      schema: stringSchema,
      decode: (v, p) => (typeof v === 'string' ? v : jsonFail(p, 'a peer id string', v)),
    },
  ],
  result: voidResult,
  handler: async ([peer], context) => netOf(context).network.disconnect(peer),
});

export const netMethods = [id, netAddrsListen, netPeers, netConnect, netDisconnect];
