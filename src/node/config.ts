/**
 * `config.toml` of the repo, in Lotus's style (PascalCase sections and keys). Every key is
 * optional; unknown sections or keys are refused so a typo does not silently keep a default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { parseListenAddress } from '../rpc/endpoint.js';
import { DEFAULT_RPC_LIMITS } from '../rpc/limits.js';
import { LedgerError } from '../utils/errors.js';
import { ConfigError } from './errors.js';
import { isNetworkName, NETWORK_NAMES, NETWORK_PRESETS, type NetworkName } from './network.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface NodeConfig {
  readonly api: {
    /** A multiaddr, as in Lotus: `/ip4/127.0.0.1/tcp/1234/http`. */
    readonly listenAddress: string;
    readonly maxRequestSize: number;
    /** The API limits of docs/rpc-limits.md. */
    readonly maxResponseSize: number;
    readonly maxBatchSize: number;
    readonly maxConcurrentExpensiveCalls: number;
    readonly maxConcurrentExpensiveCallsPerConnection: number;
    readonly expensiveCallQueueTimeoutMs: number;
  };
  readonly chain: {
    readonly network: NetworkName;
    readonly blockDelaySecs: number;
  };
  readonly logging: { readonly level: LogLevel };
  /** `[Chainstore.Prune]`: dropping old state and receipts (src/chain/prune.ts, docs/operations.md). */
  readonly chainstore: {
    readonly prune: {
      /** Unset: archival on devnets, pruned on other networks (resolved by the node, which knows the network). */
      readonly enable: boolean | undefined;
      /** Epochs of state kept below the head. */
      readonly window: number;
      /** Epochs between two background prunes. */
      readonly intervalEpochs: number;
    };
  };
}

/** What a minimal snapshot holds (src/chain/snapshot/export.ts), and how often the node prunes down to it. */
export const DEFAULT_PRUNE_WINDOW_EPOCHS = 2000;
export const DEFAULT_PRUNE_INTERVAL_EPOCHS = 1000;

export const DEFAULT_LISTEN_ADDRESS = '/ip4/127.0.0.1/tcp/1234/http';

/** What `ledger daemon` writes to a new repo: the defaults, each explained. */
export const DEFAULT_CONFIG_TOML = `# ledger-node configuration. Every key is optional; the values shown are the defaults.

[API]
  # Where the JSON-RPC API listens (a multiaddr, as in Lotus). Port 0 picks a free port;
  # the address actually used is written to the repo's \`api\` file.
  ListenAddress = "${DEFAULT_LISTEN_ADDRESS}"
  # The largest request body accepted, in bytes (HTTP 413 beyond).
  MaxRequestSize = ${DEFAULT_RPC_LIMITS.maxRequestBytes}
  # The largest answer, in bytes; the answers of a batch count together. A call whose answer
  # would be larger gets error -32005 instead (docs/rpc-limits.md).
  MaxResponseSize = ${DEFAULT_RPC_LIMITS.maxResponseBytes}
  # The most calls in one JSON-RPC batch; a longer batch is refused whole (-32600).
  MaxBatchSize = ${DEFAULT_RPC_LIMITS.maxBatchSize}
  # Expensive calls (StateCompute, StateReplay, StateSearchMsg, gas estimation, MinerGetBaseInfo,
  # MinerCreateBlock, MpoolSelect) running at once, all clients together, and per connection.
  MaxConcurrentExpensiveCalls = ${DEFAULT_RPC_LIMITS.maxConcurrentExpensiveCalls}
  MaxConcurrentExpensiveCallsPerConnection = ${DEFAULT_RPC_LIMITS.maxConcurrentExpensiveCallsPerConnection}
  # How long an expensive call over those limits waits for its turn before it is refused (-32005).
  ExpensiveCallQueueTimeout = "${DEFAULT_RPC_LIMITS.expensiveCallQueueMs / 1000}s"

[Chain]
  # The network preset: "mainnet" (f addresses, 30 s epochs) or "devnet" (t addresses, 4 s epochs).
  Network = "mainnet"
  # Seconds per epoch, to override the preset's.
  # BlockDelaySecs = 30

[Logging]
  # trace, debug, info, warn, error, fatal or silent.
  Level = "info"

[Chainstore.Prune]
  # Drop state trees and receipts older than Window epochs, in the background, every IntervalEpochs
  # epochs (headers and messages are kept). Unset: archival on devnets, pruned on other networks.
  # Enable = false
  Window = ${DEFAULT_PRUNE_WINDOW_EPOCHS}
  IntervalEpochs = ${DEFAULT_PRUNE_INTERVAL_EPOCHS}
`;

type Table = Record<string, unknown>;

class ConfigReader {
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  fail(key: string, message: string): never {
    throw new ConfigError(`${this.#file}: ${key}: ${message}`);
  }

  /** `path` names a nested section in errors (`Chainstore.Prune`). */
  table(root: Table, name: string, keys: readonly string[], path = name): Table {
    const value = root[name] ?? {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, 'expected a [section]');
    for (const key of Object.keys(value)) {
      if (!keys.includes(key)) this.fail(`${path}.${key}`, `unknown key (known: ${keys.join(', ')})`);
    }
    return value as Table;
  }

  optionalBoolean(table: Table, path: string, key: string): boolean | undefined {
    const value = table[key];
    return value === undefined || typeof value === 'boolean'
      ? value
      : this.fail(`${path}.${key}`, 'expected true or false');
  }

  string(table: Table, path: string, key: string, fallback: string): string {
    const value = table[key] ?? fallback;
    return typeof value === 'string' ? value : this.fail(`${path}.${key}`, 'expected a string');
  }

  /** A Go duration (Lotus's `Duration` keys: "10s", "1m30s", "500ms"), in milliseconds. */
  duration(table: Table, path: string, key: string, fallbackMs: number, minMs: number): number {
    const value = table[key];
    if (value === undefined) return fallbackMs;
    const ms = typeof value === 'string' ? parseDurationMs(value) : undefined;
    if (ms === undefined || ms < minMs) {
      this.fail(`${path}.${key}`, `expected a duration of at least ${minMs} ms, such as "10s" or "500ms"`);
    }
    return ms;
  }

  integer(table: Table, path: string, key: string, fallback: number, min: number): number {
    const value = table[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      this.fail(`${path}.${key}`, `expected an integer of at least ${min}`);
    }
    return value;
  }
}

export function parseConfig(text: string, file: string): NodeConfig {
  const reader: ConfigReader = new ConfigReader(file);
  let root: Table;
  try {
    root = parse(text) as Table;
  } catch (error) {
    throw new ConfigError(`${file}: ${(error as Error).message}`, { cause: error });
  }
  for (const section of Object.keys(root)) {
    if (!['API', 'Chain', 'Logging', 'Chainstore'].includes(section)) {
      reader.fail(section, 'unknown section (known: API, Chain, Logging, Chainstore)');
    }
  }

  const api = reader.table(root, 'API', [
    'ListenAddress',
    'MaxRequestSize',
    'MaxResponseSize',
    'MaxBatchSize',
    'MaxConcurrentExpensiveCalls',
    'MaxConcurrentExpensiveCallsPerConnection',
    'ExpensiveCallQueueTimeout',
  ]);
  const listenAddress = reader.string(api, 'API', 'ListenAddress', DEFAULT_LISTEN_ADDRESS);
  try {
    parseListenAddress(listenAddress);
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    reader.fail('API.ListenAddress', error.message);
  }

  const chain = reader.table(root, 'Chain', ['Network', 'BlockDelaySecs']);
  const network = reader.string(chain, 'Chain', 'Network', 'mainnet');
  if (!isNetworkName(network)) reader.fail('Chain.Network', `expected one of ${NETWORK_NAMES.join(', ')}`);

  const logging = reader.table(root, 'Logging', ['Level']);
  const level = reader.string(logging, 'Logging', 'Level', 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    reader.fail('Logging.Level', `expected one of ${LOG_LEVELS.join(', ')}`);
  }

  const prune = reader.table(
    reader.table(root, 'Chainstore', ['Prune']),
    'Prune',
    ['Enable', 'Window', 'IntervalEpochs'],
    'Chainstore.Prune',
  );

  const limits = DEFAULT_RPC_LIMITS;
  const maxConcurrentExpensiveCalls = reader.integer(
    api,
    'API',
    'MaxConcurrentExpensiveCalls',
    limits.maxConcurrentExpensiveCalls,
    1,
  );
  const maxConcurrentExpensiveCallsPerConnection = reader.integer(
    api,
    'API',
    'MaxConcurrentExpensiveCallsPerConnection',
    Math.min(limits.maxConcurrentExpensiveCallsPerConnection, maxConcurrentExpensiveCalls),
    1,
  );
  if (maxConcurrentExpensiveCallsPerConnection > maxConcurrentExpensiveCalls) {
    reader.fail(
      'API.MaxConcurrentExpensiveCallsPerConnection',
      `${maxConcurrentExpensiveCallsPerConnection} is more than API.MaxConcurrentExpensiveCalls (${maxConcurrentExpensiveCalls})`,
    );
  }

  return {
    api: {
      listenAddress,
      maxRequestSize: reader.integer(api, 'API', 'MaxRequestSize', limits.maxRequestBytes, 1024),
      maxResponseSize: reader.integer(api, 'API', 'MaxResponseSize', limits.maxResponseBytes, 1024),
      maxBatchSize: reader.integer(api, 'API', 'MaxBatchSize', limits.maxBatchSize, 1),
      maxConcurrentExpensiveCalls,
      maxConcurrentExpensiveCallsPerConnection,
      expensiveCallQueueTimeoutMs: reader.duration(
        api,
        'API',
        'ExpensiveCallQueueTimeout',
        limits.expensiveCallQueueMs,
        0,
      ),
    },
    chain: {
      network,
      blockDelaySecs: reader.integer(
        chain,
        'Chain',
        'BlockDelaySecs',
        Number(NETWORK_PRESETS[network].blockDelaySecs),
        1,
      ),
    },
    logging: { level: level as LogLevel },
    chainstore: {
      prune: {
        enable: reader.optionalBoolean(prune, 'Chainstore.Prune', 'Enable'),
        window: reader.integer(prune, 'Chainstore.Prune', 'Window', DEFAULT_PRUNE_WINDOW_EPOCHS, 1),
        intervalEpochs: reader.integer(prune, 'Chainstore.Prune', 'IntervalEpochs', DEFAULT_PRUNE_INTERVAL_EPOCHS, 1),
      },
    },
  };
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's `time.ParseDuration` for non-negative values ("1m30s", "1.5s", "0"), in whole milliseconds; undefined if malformed. */
export function parseDurationMs(text: string): number | undefined {
  if (text === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const match = part.exec(text);
    if (match === null) return undefined;
    total += Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number);
    at = part.lastIndex;
  }
  return at === 0 ? undefined : Math.round(total);
}

/** The config in `file`, or the defaults when there is no such file. */
export function loadConfig(file: string): NodeConfig {
  return parseConfig(existsSync(file) ? readFileSync(file, 'utf8') : '', file);
}
