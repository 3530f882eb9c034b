/**
 * Methods every Lotus node serves (filecoin-project/lotus `api/api_common.go`): Version, Discover,
 * the session and start time a client uses to notice a restart, and Shutdown.
 */
import { channelResult } from '../channel.js';
import { declareMethod, packApiSemver } from '../method.js';
import { buildOpenRpcDocument, type OpenRpcDocument } from '../openrpc.js';
import { jsonResult, voidResult } from '../results.js';
import { apiVersionSchema, openRpcDocumentSchema } from '../schemas.js';

/** What this node reports where Lotus reports `"lotus"`. */
export const AGENT = 'ledger';

/** Lotus `api.APIVersion`. */
export interface ApiVersionJson {
  Version: string;
  APIVersion: number;
  BlockDelay: number;
  Agent: string;
}

export const version = declareMethod({
  name: 'Version',
  description:
    'The node version with its network, the API version of this path (packed semver: v0 1.5.0, v1 2.3.0), the block delay in seconds and the agent name.',
  permission: 'read',
  params: [],
  result: jsonResult<ApiVersionJson>('version', 'Lotus APIVersion', apiVersionSchema),
  handler: (_params, { node }, { apiVersion }) => ({
    Version: node.version,
    APIVersion: packApiSemver(apiVersion),
    BlockDelay: node.blockDelaySecs,
    Agent: AGENT,
  }),
});

export const discover = declareMethod({
  name: 'Discover',
  description: 'The OpenRPC document of the methods this path serves (also served as rpc.discover).',
  permission: 'read',
  aliases: ['rpc.discover'],
  params: [],
  result: jsonResult<OpenRpcDocument>('openrpc', 'an OpenRPC 1.2 document', openRpcDocumentSchema),
  handler: (_params, _context, { methods, apiVersion }) => buildOpenRpcDocument(methods, apiVersion),
});

export const session = declareMethod({
  name: 'Session',
  description: 'A random UUID made when the node started: when it changes, the node has restarted.',
  permission: 'read',
  params: [],
  result: jsonResult<string>('session', 'a UUID', { type: 'string', format: 'uuid' }),
  handler: (_params, { node }) => node.session,
});

export const startTime = declareMethod({
  name: 'StartTime',
  description: 'When the node started, as an RFC 3339 time.',
  permission: 'read',
  params: [],
  result: {
    name: 'startTime',
    description: 'RFC 3339 time',
    schema: { type: 'string', format: 'date-time' },
    encode: (time: Date) => time.toISOString(),
  },
  handler: (_params, { node }) => node.startTime,
});

export const shutdown = declareMethod({
  name: 'Shutdown',
  description:
    'Stops the node cleanly, as a signal does: answers null, then ends the calls in flight, stops serving and closes the database.',
  permission: 'admin',
  needs: ['shutdown'],
  params: [],
  result: voidResult,
  handler: (_params, context) => context.shutdown.request(),
});

export const closing = declareMethod({
  name: 'Closing',
  description:
    'A channel (WebSocket only) that carries nothing and closes when the node stops: a client learns of the shutdown from its close.',
  permission: 'read',
  params: [],
  // Lotus's never sends and never closes: the client's copy closes with the connection
  // (filecoin-project/lotus node/impl/common/common.go). This one closes before the socket does.
  result: channelResult(jsonResult<Record<string, never>>('nothing', 'no values', { type: 'object' }), { buffer: 1 }),
  handler: () => () => {},
});

export const commonMethods = [version, discover, session, startTime, shutdown, closing];
