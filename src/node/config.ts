/**
 * `config.toml` of the repo, in Lotus's style (PascalCase sections and keys). Every key is
 * optional; unknown sections or keys are refused so a typo does not silently keep a default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { parseListenAddress } from '../rpc/endpoint.js';
import { DEFAULT_MAX_REQUEST_BYTES } from '../rpc/limits.js';
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
  };
  readonly chain: {
    readonly network: NetworkName;
    readonly blockDelaySecs: number;
  };
  readonly logging: { readonly level: LogLevel };
}

export const DEFAULT_LISTEN_ADDRESS = '/ip4/127.0.0.1/tcp/1234/http';

/** What `ledger daemon` writes to a new repo: the defaults, each explained. */
export const DEFAULT_CONFIG_TOML = `# ledger-node configuration. Every key is optional; the values shown are the defaults.

[API]
  # Where the JSON-RPC API listens (a multiaddr, as in Lotus). Port 0 picks a free port;
  # the address actually used is written to the repo's \`api\` file.
  ListenAddress = "${DEFAULT_LISTEN_ADDRESS}"
  # The largest request body accepted, in bytes.
  MaxRequestSize = ${DEFAULT_MAX_REQUEST_BYTES}

[Chain]
  # The network preset: "mainnet" (f addresses, 30 s epochs) or "devnet" (t addresses, 4 s epochs).
  Network = "mainnet"
  # Seconds per epoch, to override the preset's.
  # BlockDelaySecs = 30

[Logging]
  # trace, debug, info, warn, error, fatal or silent.
  Level = "info"
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

  table(root: Table, name: string, keys: readonly string[]): Table {
    const value = root[name] ?? {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(name, 'expected a [section]');
    for (const key of Object.keys(value)) {
      if (!keys.includes(key)) this.fail(`${name}.${key}`, `unknown key (known: ${keys.join(', ')})`);
    }
    return value as Table;
  }

  string(table: Table, path: string, key: string, fallback: string): string {
    const value = table[key] ?? fallback;
    return typeof value === 'string' ? value : this.fail(`${path}.${key}`, 'expected a string');
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
    if (!['API', 'Chain', 'Logging'].includes(section)) {
      reader.fail(section, 'unknown section (known: API, Chain, Logging)');
    }
  }

  const api = reader.table(root, 'API', ['ListenAddress', 'MaxRequestSize']);
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

  return {
    api: {
      listenAddress,
      maxRequestSize: reader.integer(api, 'API', 'MaxRequestSize', DEFAULT_MAX_REQUEST_BYTES, 1024),
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
  };
}

/** The config in `file`, or the defaults when there is no such file. */
export function loadConfig(file: string): NodeConfig {
  return parseConfig(existsSync(file) ? readFileSync(file, 'utf8') : '', file);
}
