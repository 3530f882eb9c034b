/**
 * The composition root: builds the node from its repo and config, starts it, and stops it in
 * reverse order. Today that is the repo (lock, config, keystore, API secret and admin token), the
 * wallet and the JSON-RPC server; the chain, sync and mpool join here as they arrive, each added
 * to the RPC context its methods read.
 */
import type { Logger } from 'pino';
import {
  generateJwtSecret,
  JWT_SECRET_KEY_NAME,
  JWT_SECRET_KEY_TYPE,
  listenMultiaddr,
  PERMISSIONS,
  parseListenAddress,
  type RpcContext,
  RpcServer,
  TokenAuthority,
} from '../rpc/index.js';
import { setDefaultNetwork } from '../types/index.js';
import { Keystore, Wallet } from '../wallet/index.js';
import { loadConfig, type NodeConfig } from './config.js';
import { createLogger } from './logger.js';
import { NETWORK_PRESETS, type NetworkName } from './network.js';
import { Repo } from './repo.js';
import type { RepoLock } from './repo-lock.js';
import { packageVersion } from './version.js';

/** Command-line settings that take precedence over config.toml. */
export interface NodeOverrides {
  /** The API port (Lotus's `daemon --api`); 0 picks a free one. */
  readonly apiPort?: number;
  readonly network?: NetworkName;
  readonly maxRequestSize?: number;
}

export interface StartOptions {
  readonly repoPath: string;
  readonly overrides?: NodeOverrides;
  /** A logger to use instead of one built from the config (tests pass a silent one). */
  readonly logger?: Logger;
}

function applyOverrides(config: NodeConfig, overrides: NodeOverrides): NodeConfig {
  const network = overrides.network ?? config.chain.network;
  let listenAddress = config.api.listenAddress;
  if (overrides.apiPort !== undefined) {
    listenAddress = listenMultiaddr(parseListenAddress(listenAddress).host, overrides.apiPort);
  }
  return {
    api: { listenAddress, maxRequestSize: overrides.maxRequestSize ?? config.api.maxRequestSize },
    chain: {
      network,
      // A network chosen on the command line brings its own epoch length.
      blockDelaySecs:
        overrides.network === undefined ? config.chain.blockDelaySecs : Number(NETWORK_PRESETS[network].blockDelaySecs),
    },
    logging: config.logging,
  };
}

/** The API secret, created with the admin token on first start (Lotus `modules.APISecret`). */
async function loadTokenAuthority(keystore: Keystore, repo: Repo): Promise<TokenAuthority> {
  let secret = keystore.tryGet(JWT_SECRET_KEY_NAME);
  if (secret === undefined) {
    secret = { type: JWT_SECRET_KEY_TYPE, privateKey: generateJwtSecret() };
    keystore.put(JWT_SECRET_KEY_NAME, secret);
  }
  const tokens = new TokenAuthority(secret.privateKey);
  if (repo.readToken() === undefined) repo.writeToken(await tokens.create(PERMISSIONS));
  return tokens;
}

export class LedgerNode {
  readonly repo: Repo;
  readonly logger: Logger;
  /** The API address, as written to the repo's `api` file. */
  readonly apiAddress: string;
  readonly #server: RpcServer;
  readonly #lock: RepoLock;
  #stopping: Promise<void> | undefined;

  private constructor(parts: {
    repo: Repo;
    logger: Logger;
    server: RpcServer;
    lock: RepoLock;
    apiAddress: string;
  }) {
    this.repo = parts.repo;
    this.logger = parts.logger;
    this.#server = parts.server;
    this.#lock = parts.lock;
    this.apiAddress = parts.apiAddress;
  }

  static async start(options: StartOptions): Promise<LedgerNode> {
    const repo = new Repo(options.repoPath);
    repo.init();
    const lock = repo.lock();
    try {
      const config = applyOverrides(loadConfig(repo.configFile), options.overrides ?? {});
      const logger = options.logger ?? createLogger({ level: config.logging.level });
      const network = config.chain.network;
      setDefaultNetwork(NETWORK_PRESETS[network].addressNetwork);

      const keystore = new Keystore(repo.keystoreDirectory);
      const context: RpcContext = {
        node: {
          version: `${packageVersion()}+${network}`,
          blockDelaySecs: config.chain.blockDelaySecs,
        },
        wallet: new Wallet(keystore),
        tokens: await loadTokenAuthority(keystore, repo),
      };
      const { host, port } = parseListenAddress(config.api.listenAddress);
      const server = await RpcServer.start({
        context,
        logger,
        host,
        port,
        maxRequestBytes: config.api.maxRequestSize,
      });
      const apiAddress = listenMultiaddr(host, server.port);
      repo.writeApi(apiAddress);
      logger.info({ repo: repo.path, api: apiAddress, network }, 'node started');
      return new LedgerNode({ repo, logger, server, lock, apiAddress });
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** Stops serving (requests in flight finish), removes the `api` file and releases the repo. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      try {
        await this.#server.close();
      } finally {
        this.repo.removeApi();
        this.#lock.release();
        this.logger.info('node stopped');
      }
    })();
    return this.#stopping;
  }
}
