/**
 * A real RPC server on 127.0.0.1 over the chain fixture (SQLite chain store, executed tipsets) on
 * fundedTemplate(): alice, bob and worker funded, worker's miner t01000 with 2 sectors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { ChainPruner } from '../../src/chain/prune.js';
import { startEthServices } from '../../src/node/eth-services.js';
import { openMpool } from '../../src/node/mpool-services.js';
import {
  generateJwtSecret,
  type MpoolContext,
  type RpcMethod,
  RpcServer,
  type RpcServerOptions,
  type StorageContext,
  startingNodeInfo,
  TokenAuthority,
} from '../../src/rpc/index.js';
import type { RpcLimits } from '../../src/rpc/limits.js';
import { setDefaultNetwork } from '../../src/types/index.js';
import { Keystore, Wallet } from '../../src/wallet/index.js';
import { TestChain, type TestChainOptions } from './test-chain.js';

export interface ChainServer {
  readonly t: TestChain;
  readonly server: RpcServer;
  readonly directory: string;
  /** Mints tokens the server accepts. */
  readonly tokens: TokenAuthority;
  /** The node wallet MpoolPushMessage signs with (empty at start). */
  readonly wallet: Wallet;
  /** The message pool, when `mpool` was asked for. */
  readonly mpool: MpoolContext | undefined;
  url(apiVersion?: 0 | 1): string;
  /** Closes the server and the chain and removes the directory. */
  close(): Promise<void>;
}

export interface ChainServerOptions {
  readonly limits?: Partial<RpcLimits>;
  readonly methods?: readonly RpcMethod[];
  readonly logger?: Logger;
  /** The chain fixture's options (fundedTemplate() by default). */
  readonly chain?: TestChainOptions;
  /** A storage service beside the chain (absent by default, as on a node that runs no miner). */
  readonly storage?: StorageContext;
  /** A message pool on the chain, as the node opens it (MpoolPushMessage signs with `wallet`); none by default. */
  readonly mpool?: boolean;
  /** WebSocket keepalive and per-connection limits (the server's defaults otherwise). */
  readonly webSocket?: RpcServerOptions['webSocket'];
  /** The Ethereum hash index and its indexer (following the chain and the pool), as a node runs them; none by default. */
  readonly eth?: boolean;
}

export async function startChainServer(options: ChainServerOptions = {}): Promise<ChainServer> {
  setDefaultNetwork('t');
  const t = TestChain.create(options.chain);
  const directory = mkdtempSync(join(tmpdir(), 'ledger-chain-rpc-'));
  const tokens = new TokenAuthority(generateJwtSecret());
  const wallet = new Wallet(new Keystore(join(directory, 'keystore')));
  const mpool =
    options.mpool === true
      ? await openMpool({
          services: { db: t.db, chain: t.chain, states: t.states, params: t.chain.params },
          wallet,
          logger: pino({ level: 'silent' }),
        })
      : undefined;
  const eth =
    options.eth === true
      ? await startEthServices({
          services: { db: t.db, chain: t.chain, params: t.chain.params },
          pool: mpool?.pool,
          logger: pino({ level: 'silent' }),
        })
      : undefined;
  const server = await RpcServer.start({
    context: {
      node: startingNodeInfo('0.1.0+devnet', 4),
      wallet,
      tokens,
      chain: {
        store: t.chain,
        states: t.states,
        params: t.chain.params,
        networkName: 'ledger-test',
        pruner: new ChainPruner(t.chain, t.db),
      },
      ...(options.storage === undefined ? {} : { storage: options.storage }),
      ...(mpool === undefined ? {} : { mpool }),
      ...(eth === undefined ? {} : { eth: eth.context }),
    },
    logger: options.logger ?? pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.methods === undefined ? {} : { methods: options.methods }),
    ...(options.webSocket === undefined ? {} : { webSocket: options.webSocket }),
  });
  return {
    t,
    server,
    directory,
    tokens,
    wallet,
    mpool,
    url: (apiVersion = 1) => `http://127.0.0.1:${server.port}/rpc/v${apiVersion}`,
    close: async () => {
      await server.close();
      eth?.stop();
      await mpool?.pool.close();
      t.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
