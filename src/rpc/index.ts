export { type LotusMethodList, renderApiMarkdown } from './api-doc.js';
export {
  generateJwtSecret,
  InvalidTokenError,
  JWT_SECRET_KEY_NAME,
  JWT_SECRET_KEY_TYPE,
  TokenAuthority,
} from './auth.js';
export {
  type ChannelHost,
  type ChannelId,
  type ChannelOptions,
  type ChannelSink,
  type ChannelSource,
  channelResult,
} from './channel.js';
export { type LedgerApi, ledgerApi, RpcClient, type RpcClientOptions } from './client.js';
export {
  type ChainContext,
  type EthContext,
  type LocalMinerStatus,
  type LogContext,
  type MiningContext,
  type MpoolContext,
  type NodeInfo,
  type RpcContext,
  SERVICES,
  type ServedContext,
  type Service,
  type ShutdownContext,
  type StorageContext,
  startingNodeInfo,
} from './context.js';
export { type CallObserver, Dispatcher } from './dispatcher.js';
export { type ApiInfo, type HostPort, listenMultiaddr, parseApiInfo, parseListenAddress, rpcUrl } from './endpoint.js';
export {
  JsonRpcError,
  JsonRpcErrorCode,
  NodeUnreachableError,
  permissionDenied,
  RpcHttpError,
  ServiceUnavailableError,
} from './errors.js';
export {
  DEFAULT_ETH_FILTER_LIMITS,
  EthEvents,
  type EthFilterLimits,
  EthFilters,
  EthSubscriptions,
} from './eth-filters.js';
export { ExpensiveCallGate } from './expensive-calls.js';
export {
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_RPC_LIMITS,
  LIMIT_CONFIG_KEYS,
  MAX_JSON_DEPTH,
  type RpcLimits,
  rpcLimits,
} from './limits.js';
export {
  API_SEMVER,
  API_VERSIONS,
  type ApiVersion,
  type CallInfo,
  type DeclaredMethod,
  declareMethod,
  isPermission,
  type MethodDeclaration,
  methodNames,
  methodsNeeding,
  NAMESPACES,
  type ParamDeclaration,
  PERMISSIONS,
  type Permission,
  packApiSemver,
  permissionsUpTo,
  type ResultDeclaration,
  type RpcMethod,
} from './method.js';
export { AGENT, type ApiVersionJson } from './methods/common.js';
export { allMethods } from './methods/index.js';
export { buildOpenRpcDocument, type OpenRpcDocument } from './openrpc.js';
export type { PlainAnswer, PlainRoute } from './plain-routes.js';
export { RpcServer, type RpcServerOptions } from './server.js';
