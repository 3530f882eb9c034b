/**
 * Network methods (`lotus:api/api_net.go`): the node's peer id and listen addresses, its peers,
 * and dialling a peer. AddrInfo is Lotus's `{ID, Addrs}`.
 */
import { NetError, NetErrorCode } from '../../net/index.js';
import { jsonFail, readJsonArray, readJsonObject } from '../../types/index.js';
import { methodsNeeding, type ParamDeclaration } from '../method.js';
import { stringParam } from '../params.js';
import { jsonResult, voidResult } from '../results.js';
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

export const netMethods = [id, netAddrsListen, netPeers, netConnect, netDisconnect];
