/**
 * The OpenRPC document `rpc.discover` returns, generated from the method declarations of one API
 * version. Parameters are positional (`paramStructure: by-position`) and required, as in Lotus, but
 * for the trailing ones ledger-node adds to a Lotus method (a Lotus client leaves them out);
 * `x-permission` carries the permission each method needs.
 */
import { API_SEMVER, type ApiVersion, NAMESPACES, type RpcMethod } from './method.js';

export const OPENRPC_VERSION = '1.2.6';

export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description: string };
  methods: OpenRpcMethod[];
}

export interface OpenRpcMethod {
  name: string;
  description: string;
  paramStructure: 'by-position';
  params: Array<{ name: string; description: string; required: boolean; schema: unknown }>;
  result: { name: string; description: string; schema: unknown };
  'x-permission': string;
}

export function buildOpenRpcDocument(methods: readonly RpcMethod[], apiVersion: ApiVersion): OpenRpcDocument {
  const [primary, alias] = NAMESPACES;
  return {
    openrpc: OPENRPC_VERSION,
    info: {
      title: 'Ledger RPC API',
      version: API_SEMVER[apiVersion].join('.'),
      description: `Lotus-compatible JSON-RPC 2.0 over HTTP POST and WebSocket at /rpc/v${apiVersion}. Every ${primary}.X method also answers as ${alias}.X. A result schema marked x-channel is a channel (WebSocket only): the answer is its id, and the values follow as xrpc.ch.val notifications.`,
    },
    // Only what this path serves: some methods have a v0 and a v1 form, or exist on one path only.
    methods: methods
      .filter((method) => method.apiVersions.includes(apiVersion))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((method) => ({
        name: `${primary}.${method.name}`,
        description: method.description,
        paramStructure: 'by-position',
        params: method.params.map((param) => ({
          name: param.name,
          description: param.description,
          required: param.optional !== true,
          schema: param.schema,
        })),
        result: { name: method.result.name, description: method.result.description, schema: method.result.schema },
        'x-permission': method.permission,
      })),
  };
}
