/**
 * The composition root: builds the node from its repo and config, starts it, and stops it in
 * reverse order. Today that is the repo (lock, config, keystore, API secret and admin token), the
 * wallet and the JSON-RPC server; the chain, sync and mpool join here as they arrive, each added
 * to the RPC context its methods read.
 */
import type { Logger } from 'pino';
import { MessageSearch } from '../chain/message-search.js';
import type { NodeHealth, NodeMetrics } from '../metrics/index.js';
import { listenMultiaddr, parseListenAddress } from '../rpc/endpoint.js';
import type { RpcContext, RpcServer, TokenAuthority } from '../rpc/index.js';
import { setDefaultNetwork } from '../types/index.js';
import { Keystore, Wallet } from '../wallet/index.js';
import { type ChainServices, openChain } from './chain-services.js';
import { loadConfig, type NodeConfig } from './config.js';
import type { DevnetOptions } from './devnet.js';
import { hasDevnet } from './devnet.js';
import type { EthServices } from './eth-services.js';
import type { LocalMiners } from './local-miners.js';
import { createLogger } from './logger.js';
import type { Mining } from './mining.js';
import { type MpoolServices, openMpool } from './mpool-services.js';
import { NETWORK_PRESETS, type NetworkName } from './network.js';
import type { NetworkDefinition } from './network-definition.js';
import { repoNetwork } from './network-repo.js';
import type { NetworkServices } from './network-services.js';
import { type NodePruning, startPruning } from './pruning.js';
import { Repo } from './repo.js';
import type { RepoLock } from './repo-lock.js';
import { SubsystemLoggers } from './subsystem-loggers.js';
import { packageVersion } from './version.js';

/** Command-line settings that take precedence over config.toml. */
export interface NodeOverrides {
  /** The API host, instead of config.toml's `[API] ListenAddress` host. */
  readonly apiHost?: string;
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
  /**
   * Run a devnet: create it on first start (with these settings), resume its chain afterwards.
   * A repo that already holds a devnet opens its chain even without this.
   */
  readonly devnet?: DevnetStartOptions;
  /** The libp2p side: listen and bootstrap multiaddrs; `enabled: false` runs without a host. */
  readonly p2p?: P2pOptions;
  /**
   * The network to join (`ledger daemon --network <file|name>`): its genesis is imported into a repo
   * without a chain and its definition kept in the repo; a repo of another network is refused.
   */
  readonly network?: NetworkDefinition;
  /** Directories of pre-sealed genesis miners (`ledger network create`'s `miners/<id>`) to run. */
  readonly miners?: readonly string[];
}

export interface P2pOptions {
  readonly enabled?: boolean;
  /** Default: one random TCP port on 127.0.0.1. */
  readonly listen?: readonly string[];
  /** Peers to dial at start (`daemon --bootstrap <multiaddr>`). */
  readonly bootstrap?: readonly string[];
}

export interface DevnetStartOptions extends DevnetOptions {
  /** Run the mining loop (default true). */
  readonly mine?: boolean;
}

function applyOverrides(config: NodeConfig, overrides: NodeOverrides): NodeConfig {
  const network = overrides.network ?? config.chain.network;
  let listenAddress = config.api.listenAddress;
  if (overrides.apiHost !== undefined || overrides.apiPort !== undefined) {
    const configured = parseListenAddress(listenAddress);
    listenAddress = listenMultiaddr(overrides.apiHost ?? configured.host, overrides.apiPort ?? configured.port);
  }
  return {
    api: { ...config.api, listenAddress, maxRequestSize: overrides.maxRequestSize ?? config.api.maxRequestSize },
    chain: {
      network,
      // A network chosen on the command line brings its own epoch length.
      blockDelaySecs:
        overrides.network === undefined ? config.chain.blockDelaySecs : Number(NETWORK_PRESETS[network].blockDelaySecs),
    },
    logging: config.logging,
    chainstore: config.chainstore,
  };
}

/** The API secret, created with the admin token on first start (Lotus `modules.APISecret`). */
async function loadTokenAuthority(keystore: Keystore, repo: Repo): Promise<TokenAuthority> {
  const { generateJwtSecret, JWT_SECRET_KEY_NAME, JWT_SECRET_KEY_TYPE, PERMISSIONS, TokenAuthority } = await import(
    '../rpc/index.js'
  );
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
  /** The chain, its states, beacon and devnet identity; undefined on a repo without a chain. */
  readonly chain: ChainServices | undefined;
  /** Block production: validator, block intake, MinerGetBaseInfo/MinerCreateBlock. */
  readonly mining: Mining | undefined;
  /**
   * The storage miners the node runs (mining, sealing, window PoSt): the devnet's genesis miner unless
   * `devnet.mine` is false or the wallet lacks its worker key, and those added since.
   */
  readonly miners: LocalMiners | undefined;
  /** The message pool, gas estimation and MpoolPushMessage's signer; with the chain. */
  readonly mpool: MpoolServices | undefined;
  /** Mints API tokens with the repo's secret. */
  readonly tokens: TokenAuthority;
  readonly wallet: Wallet;
  /** The libp2p host and the sync manager; with the chain unless p2p is disabled. */
  readonly net: NetworkServices | undefined;
  /** Resolves once the node has stopped, whoever stopped it (a signal, `stop()`, the Shutdown method). */
  readonly stopped: Promise<void>;
  readonly #server: RpcServer;
  readonly #lock: RepoLock;
  /** What `/debug/metrics` and `/health/*` serve; they stop listening to the node at stop. */
  readonly #metrics: NodeMetrics;
  readonly #health: NodeHealth;
  /** The Ethereum hash indexer: stopped before the database closes. */
  readonly #eth: EthServices | undefined;
  /** The pruner and its background schedule: stopped before the database closes. */
  readonly #pruning: NodePruning | undefined;
  #stopping: Promise<void> | undefined;
  #markStopped: () => void = () => undefined;

  private constructor(parts: {
    repo: Repo;
    logger: Logger;
    server: RpcServer;
    lock: RepoLock;
    apiAddress: string;
    chain: ChainServices | undefined;
    mining: Mining | undefined;
    miners: LocalMiners | undefined;
    mpool: MpoolServices | undefined;
    tokens: TokenAuthority;
    wallet: Wallet;
    net: NetworkServices | undefined;
    eth: EthServices | undefined;
    pruning: NodePruning | undefined;
    metrics: NodeMetrics;
    health: NodeHealth;
  }) {
    this.repo = parts.repo;
    this.logger = parts.logger;
    this.#server = parts.server;
    this.#lock = parts.lock;
    this.apiAddress = parts.apiAddress;
    this.chain = parts.chain;
    this.mining = parts.mining;
    this.miners = parts.miners;
    this.mpool = parts.mpool;
    this.tokens = parts.tokens;
    this.wallet = parts.wallet;
    this.net = parts.net;
    this.#eth = parts.eth;
    this.#pruning = parts.pruning;
    this.#metrics = parts.metrics;
    this.#health = parts.health;
    this.stopped = new Promise((resolve) => {
      this.#markStopped = resolve;
    });
  }

  static async start(options: StartOptions): Promise<LedgerNode> {
    const repo = new Repo(options.repoPath);
    repo.init();
    const lock = repo.lock();
    let chain: ChainServices | undefined;
    let net: NetworkServices | undefined;
    let mining: Mining | undefined;
    let miners: LocalMiners | undefined;
    let metrics: NodeMetrics | undefined;
    let health: NodeHealth | undefined;
    let eth: EthServices | undefined;
    let pruning: NodePruning | undefined;
    try {
      const isDevnet = options.devnet !== undefined || hasDevnet(repo.path);
      // The repo's network, else the one asked for, brings its presets (a devnet: the 2k ones).
      const joined = isDevnet ? undefined : (repoNetwork(repo.path) ?? options.network);
      const overrides = {
        ...options.overrides,
        ...(isDevnet ? { network: 'devnet' as const } : joined === undefined ? {} : { network: joined.paramsPreset }),
      };
      const config = applyOverrides(loadConfig(repo.configFile), overrides);
      const logger = options.logger ?? createLogger({ level: config.logging.level });
      // Before any service makes its child logger, so that LogList and LogSetLevel see them all.
      const logs = new SubsystemLoggers(logger);
      const network = config.chain.network;
      const presetParams = joined?.params ?? NETWORK_PRESETS[network];
      setDefaultNetwork(presetParams.addressNetwork);

      const keystore = new Keystore(repo.keystoreDirectory);
      const wallet = new Wallet(keystore, { eip155ChainId: presetParams.eip155ChainId });
      chain = await openChain({
        repoPath: repo.path,
        wallet,
        logger,
        network: options.network,
        create: options.devnet,
      });
      const mpool = chain === undefined ? undefined : await openMpool({ services: chain, wallet, logger });
      // Before mining starts, so the indexer sees every head change from here on.
      eth =
        chain === undefined
          ? undefined
          : await (await import('./eth-services.js')).startEthServices({ services: chain, pool: mpool?.pool, logger });
      pruning = chain === undefined ? undefined : startPruning(chain, config, logger);
      // Loaded only by a node with a chain: block production pulls in the consensus and proof code.
      mining =
        chain === undefined
          ? undefined
          : (await import('./mining.js')).createMining({
              services: chain,
              wallet,
              logger,
              messages: mpool?.pool,
              // net starts below: blocks mined before it is up are not announced (no peers yet anyway).
              onBlock: (block) => net?.publishBlock(block),
              // The metrics are loaded with the RPC server, below, off the first winning PoSt's path; a
              // validation in the milliseconds before that goes uncounted.
              onBlockValidated: (seconds, error) => metrics?.blockValidated(seconds, error),
            });
      // A node mines the devnet's miner only with its worker key: a node that joined the devnet follows it.
      // Mining starts before the network and the RPC server so the first winning PoSt runs while they start.
      if (chain !== undefined && mining !== undefined && mpool !== undefined) {
        const { LocalMiners } = await import('./local-miners.js');
        miners = new LocalMiners({
          repoPath: repo.path,
          chain: chain.chain,
          params: chain.params,
          db: chain.db,
          wallet,
          signer: mpool.signer,
          search: new MessageSearch({ chain: chain.chain }),
          miningLoop: mining.miningLoop,
          logger,
        });
        // A node that joined the devnet without its worker key follows it; `mine: false` sets the miner up, stopped.
        const { devnet } = chain;
        const { loadPreSealedMiner } = await import('./network-miner.js');
        await miners.start(
          [
            ...(devnet !== undefined && wallet.has(devnet.worker)
              ? [{ address: devnet.miner, sectorDirectory: devnet.sectorDirectory }]
              : []),
            ...(options.miners ?? []).map((directory) => loadPreSealedMiner(directory, wallet)),
          ],
          options.devnet?.mine !== false,
        );
      }
      // The RPC server and libp2p are loaded only now (most of the startup's module loading), while the
      // first winning PoSt is already running off the main thread.
      const tokens = await loadTokenAuthority(keystore, repo);
      net =
        chain === undefined || mining === undefined || options.p2p?.enabled === false
          ? undefined
          : await (await import('./network-services.js')).startNetworkServices({
              repoPath: repo.path,
              services: chain,
              intake: mining.intake,
              logger,
              pool: mpool?.pool,
              ...(options.p2p?.listen === undefined ? {} : { listen: options.p2p.listen }),
              ...(options.p2p?.bootstrap === undefined ? {} : { bootstrap: options.p2p.bootstrap }),
            });
      const { startingNodeInfo } = await import('../rpc/index.js');
      // The Shutdown method stops the node that is built below, once its answer is on its way.
      let started: LedgerNode | undefined;
      const shutdown = {
        request: () => {
          setImmediate(() => {
            logger.info('stopping (Shutdown called over the API)');
            started?.stop().catch((error: unknown) => logger.error({ err: error }, 'stop after Shutdown failed'));
          });
        },
      };
      const context: RpcContext = {
        node: startingNodeInfo(
          `${packageVersion()}+${network}`,
          chain === undefined ? config.chain.blockDelaySecs : Number(chain.params.blockDelaySecs),
        ),
        wallet,
        tokens,
        shutdown,
        logs,
        ...(chain === undefined
          ? {}
          : {
              chain: {
                store: chain.chain,
                states: chain.states,
                params: chain.params,
                networkName: chain.network.name,
                ...(pruning === undefined ? {} : { pruner: pruning.pruner }),
              },
            }),
        ...(mining === undefined ? {} : { mining: mining.rpc }),
        ...(miners === undefined ? {} : { storage: miners }),
        ...(mpool === undefined ? {} : { mpool }),
        ...(eth === undefined ? {} : { eth: eth.context }),
        ...(net === undefined ? {} : { net: { network: net.network, sync: net.sync } }),
      };
      const { NodeHealth, NodeMetrics, operationsRoutes } = await import('../metrics/index.js');
      metrics = new NodeMetrics({ version: context.node.version, network });
      const operations = {
        chain: chain?.chain,
        blockDelaySecs: context.node.blockDelaySecs,
        sync: net?.sync,
      };
      const { network: p2p } = net ?? {};
      const pool = mpool?.pool;
      metrics.watch({
        ...operations,
        peerCount: p2p && (() => p2p.peers().length),
        mpoolSize: pool && (() => pool.size),
        databasePath: chain?.db.path,
      });
      health = new NodeHealth(operations);
      const { host, port } = parseListenAddress(config.api.listenAddress);
      const { RpcServer } = await import('../rpc/index.js');
      const server = await RpcServer.start({
        context,
        logger,
        host,
        port,
        maxRequestBytes: config.api.maxRequestSize,
        limits: {
          maxResponseBytes: config.api.maxResponseSize,
          maxBatchSize: config.api.maxBatchSize,
          maxConcurrentExpensiveCalls: config.api.maxConcurrentExpensiveCalls,
          maxConcurrentExpensiveCallsPerConnection: config.api.maxConcurrentExpensiveCallsPerConnection,
          expensiveCallQueueMs: config.api.expensiveCallQueueTimeoutMs,
        },
        callObserver: metrics.rpcCall,
        plainRoutes: operationsRoutes(metrics, health),
      });
      const apiAddress = listenMultiaddr(host, server.port);
      repo.writeApi(apiAddress);
      logger.info({ repo: repo.path, api: apiAddress, network: chain?.network.name ?? network }, 'node started');
      started = new LedgerNode({
        repo,
        logger,
        server,
        lock,
        apiAddress,
        chain,
        mining,
        miners,
        mpool,
        tokens,
        wallet,
        net,
        eth,
        pruning,
        metrics,
        health,
      });
      return started;
    } catch (error) {
      await miners?.stop().catch(() => undefined);
      await net?.stop().catch(() => undefined);
      eth?.stop();
      await pruning?.stop().catch(() => undefined);
      health?.close();
      metrics?.close();
      chain?.db.close();
      lock.release();
      throw error;
    }
  }

  /**
   * Stops mining (a proof in flight finishes, its block is dropped), stops serving (requests in
   * flight finish), closes the database, removes the `api` file and releases the repo.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      try {
        await this.miners?.stop();
        await this.net?.stop();
        await this.#server.close();
        await this.#pruning?.stop();
        await this.chain?.chain.settled();
        await this.mpool?.pool.close();
      } finally {
        this.#eth?.stop();
        this.#health.close();
        this.#metrics.close();
        this.chain?.db.close();
        this.repo.removeApi();
        this.#lock.release();
        this.logger.info('node stopped');
        this.#markStopped();
      }
    })();
    return this.#stopping;
  }
}
