/**
 * JSON-RPC errors, on both sides of the wire. The server turns every failure into a
 * `JsonRpcError` (the only place in the node that picks JSON-RPC codes); the client raises the
 * same class for an error object it receives, so callers branch on `rpcCode` or the stable `code`.
 */
import { LedgerError } from '../utils/errors.js';
import { SERVICES, type Service } from './context.js';

export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A call refused because it is over one of the API limits (EIP-1474 "limit exceeded"; docs/rpc-limits.md). */
  LimitExceeded: -32005,
  /** go-jsonrpc's code for an error a method returns, permission denials included (Lotus clients expect it). */
  CallFailed: 1,
} as const;

const LEDGER_CODES: Readonly<Record<number, string>> = {
  [JsonRpcErrorCode.ParseError]: 'ERR_RPC_PARSE',
  [JsonRpcErrorCode.InvalidRequest]: 'ERR_RPC_INVALID_REQUEST',
  [JsonRpcErrorCode.MethodNotFound]: 'ERR_RPC_METHOD_NOT_FOUND',
  [JsonRpcErrorCode.InvalidParams]: 'ERR_RPC_INVALID_PARAMS',
  [JsonRpcErrorCode.InternalError]: 'ERR_RPC_INTERNAL',
  [JsonRpcErrorCode.LimitExceeded]: 'ERR_RPC_LIMIT_EXCEEDED',
};

/** A JSON-RPC error object `{code, message, data?}` as a LedgerError (`code` `ERR_RPC_*`). */
export class JsonRpcError extends LedgerError {
  readonly rpcCode: number;
  readonly data: unknown;

  constructor(rpcCode: number, message: string, options?: { data?: unknown; cause?: unknown }) {
    super(LEDGER_CODES[rpcCode] ?? 'ERR_RPC_CALL', message, { cause: options?.cause });
    this.rpcCode = rpcCode;
    this.data = options?.data;
  }
}

/** Lotus's exact denial (go-jsonrpc `auth.PermissionedProxy`): the bare method name and the missing permission. */
export function permissionDenied(method: string, permission: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.CallFailed,
    `missing permission to invoke '${method}' (need '${permission}')`,
  );
}

/**
 * A method called on a node that lacks a service the method needs (its declaration's `needs`): one
 * error for every such method, answered as a refused call (JSON-RPC code 1, as the method's own
 * errors are).
 */
export class ServiceUnavailableError extends LedgerError {
  readonly service: Service;

  constructor(method: string, service: Service) {
    super(
      'ERR_SERVICE_UNAVAILABLE',
      `${method}: this node does not serve ${SERVICES[service]} (no ${service} service)`,
    );
    this.service = service;
  }
}

/** The node could not be reached at all (refused, unresolvable, timed out). */
export class NodeUnreachableError extends LedgerError {
  constructor(url: string, cause: unknown) {
    const reason = errorCode(cause) ?? (cause as { message?: unknown } | null)?.message ?? String(cause);
    super('ERR_NODE_UNREACHABLE', `cannot reach the node at ${url} (${reason}): is \`ledger daemon\` running?`, {
      cause,
    });
  }
}

/** The node answered with an HTTP status instead of a JSON-RPC response (401 for a refused token). */
export class RpcHttpError extends LedgerError {
  readonly status: number;

  constructor(url: string, status: number, body: string) {
    const why =
      status === 401
        ? 'the node refused the API token (check LEDGER_API_INFO or the repo token file)'
        : `unexpected HTTP status ${status}${body === '' ? '' : `: ${body.slice(0, 200)}`}`;
    super(status === 401 ? 'ERR_RPC_UNAUTHORIZED' : 'ERR_RPC_HTTP', `${url}: ${why}`);
    this.status = status;
  }
}

/**
 * The code of a network error, which undici hides in `cause` (ECONNREFUSED, ENOTFOUND, …).
 * Duck-typed: the errors may come from another realm.
 */
function errorCode(error: unknown): string | undefined {
  for (let e = error; typeof e === 'object' && e !== null; e = (e as { cause?: unknown }).cause) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string') return code;
  }
  return undefined;
}
