/**
 * What one RPC client can make the node do: request and answer sizes, batch length, and how many
 * expensive calls (methods declared `expensive`) run at once, per connection and in total. Each
 * limit is a `config.toml` key under `[API]` (docs/rpc-limits.md) and is named in the error a
 * client gets when it hits it, with the key that raises it.
 */
import { JsonRpcError, JsonRpcErrorCode } from './errors.js';

/** 10 MiB: well above any Lotus request; go-jsonrpc's own default is 100 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** Far deeper than any Lotus JSON shape, far shallower than what would strain the parser's stack. */
export const MAX_JSON_DEPTH = 512;

export interface RpcLimits {
  /** `MaxRequestSize`: the largest request body, in bytes. */
  readonly maxRequestBytes: number;
  /** `MaxResponseSize`: the largest answer, in bytes; a batch's answers count together. */
  readonly maxResponseBytes: number;
  /** `MaxBatchSize`: the most calls in one batch. */
  readonly maxBatchSize: number;
  /** `MaxConcurrentExpensiveCalls`: expensive calls running at once, all clients together. */
  readonly maxConcurrentExpensiveCalls: number;
  /** `MaxConcurrentExpensiveCallsPerConnection`: expensive calls running at once on one connection. */
  readonly maxConcurrentExpensiveCallsPerConnection: number;
  /** `ExpensiveCallQueueTimeout`: how long an expensive call over a limit waits for a turn before it is refused. */
  readonly expensiveCallQueueMs: number;
}

export const DEFAULT_RPC_LIMITS: RpcLimits = {
  maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES,
  // Above the largest honest answers (MpoolPending of a 62,000-message pool is about 37 MB, a
  // signed message ~600 bytes of JSON), far below what 300 StateCompute traces took (GBs).
  maxResponseBytes: 64 * 1024 * 1024,
  // geth's BatchRequestLimit is 1000; a batch runs in order on one connection, so a client that
  // needs more sends another batch.
  maxBatchSize: 100,
  // JavaScript runs the calls on one thread: more at once only interleaves them, and memory grows.
  maxConcurrentExpensiveCalls: 4,
  maxConcurrentExpensiveCallsPerConnection: 2,
  expensiveCallQueueMs: 10_000,
};

/** The `config.toml` key of each limit, for the errors that name it. */
export const LIMIT_CONFIG_KEYS: Readonly<Record<keyof RpcLimits, string>> = {
  maxRequestBytes: 'API.MaxRequestSize',
  maxResponseBytes: 'API.MaxResponseSize',
  maxBatchSize: 'API.MaxBatchSize',
  maxConcurrentExpensiveCalls: 'API.MaxConcurrentExpensiveCalls',
  maxConcurrentExpensiveCallsPerConnection: 'API.MaxConcurrentExpensiveCallsPerConnection',
  expensiveCallQueueMs: 'API.ExpensiveCallQueueTimeout',
};

/** The limits with the given ones in place of the defaults. */
export function rpcLimits(overrides: Partial<RpcLimits> = {}): RpcLimits {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_RPC_LIMITS, ...defined };
}

export function limitExceeded(message: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.LimitExceeded, message);
}

export function responseTooLarge(limits: RpcLimits, what: string): JsonRpcError {
  return limitExceeded(
    `${what} exceeds the answer limit of ${limits.maxResponseBytes} bytes (raise ${LIMIT_CONFIG_KEYS.maxResponseBytes} in config.toml, or ask for less)`,
  );
}
