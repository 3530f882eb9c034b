/** Methods every Lotus node serves (`lotus:api/api_common.go`): Version and Discover. */
import { declareMethod, packApiSemver } from '../method.js';
import { buildOpenRpcDocument, type OpenRpcDocument } from '../openrpc.js';
import { jsonResult } from '../results.js';
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

export const commonMethods = [version, discover];
