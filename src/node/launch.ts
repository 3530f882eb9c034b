/**
 * Starts the library's nodes (src/node/library.ts): checks the options, makes a temporary repo when
 * none is given, runs `LedgerNode.start` and builds the handle. Returns the node too, which the
 * project's tests (test/helpers/devnet.ts) reach into; the library hands out only the handle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rpcUrl } from '../rpc/endpoint.js';
import type { ChainServices } from './chain-services.js';
import { LOG_LEVELS } from './config.js';
import type { DevnetInfo } from './devnet.js';
import { devnetAccounts, devnetEthAccounts, hasDevnet, readDevnet } from './devnet.js';
import { ConfigError } from './errors.js';
import type { CreateNodeOptions, Devnet, NodeHandle, StartDevnetOptions } from './library.js';
import { createLogger } from './logger.js';
import { isNetworkName, NETWORK_NAMES, NETWORK_PRESETS } from './network.js';
import { LedgerNode } from './node.js';

/** What a devnet adds to a node's start; `LedgerNode.start`'s `devnet` option. */
interface DevnetSettings {
  readonly blockDelaySecs: bigint;
  readonly mine: boolean;
  readonly accounts?: number;
  readonly ethAccounts?: number;
  readonly accountBalance?: bigint;
}

function invalid(option: string, expected: string, value: unknown): never {
  throw new ConfigError(`${option}: expected ${expected}, got ${String(value)}`);
}

function checkInteger(option: string, value: number | undefined, min: number, max: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= min && value <= max)) {
    invalid(option, `an integer from ${min} to ${max}`, value);
  }
}

function checkNodeOptions(options: CreateNodeOptions): void {
  checkInteger('apiPort', options.apiPort, 0, 65535);
  checkInteger('maxRequestSize', options.maxRequestSize, 1024, Number.MAX_SAFE_INTEGER);
  if (options.network !== undefined && !isNetworkName(options.network)) {
    invalid('network', `one of ${NETWORK_NAMES.join(', ')}`, options.network);
  }
  if (options.logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(options.logLevel)) {
    invalid('logLevel', `one of ${LOG_LEVELS.join(', ')}`, options.logLevel);
  }
}

function devnetSettings(options: StartDevnetOptions): DevnetSettings {
  // The same bounds as `ledger devnet --block-time` and `--accounts`.
  checkInteger('blockTime', options.blockTime, 1, 3600);
  checkInteger('accounts', options.accounts, 1, 1000);
  checkInteger('ethAccounts', options.ethAccounts, 0, 1000);
  checkInteger('port', options.port, 0, 65535);
  if (options.balance !== undefined && !(typeof options.balance === 'bigint' && options.balance > 0n)) {
    invalid('balance', 'a positive bigint of attoFIL (10n ** 18n is 1 FIL)', options.balance);
  }
  return {
    // Resuming a devnet without a block time keeps its own (a different one would only be refused with a warning).
    blockDelaySecs:
      options.blockTime !== undefined
        ? BigInt(options.blockTime)
        : options.repo !== undefined && hasDevnet(options.repo)
          ? readDevnet(options.repo).blockDelaySecs
          : NETWORK_PRESETS.devnet.blockDelaySecs,
    mine: options.mine ?? true,
    ...(options.accounts === undefined ? {} : { accounts: options.accounts }),
    ...(options.ethAccounts === undefined ? {} : { ethAccounts: options.ethAccounts }),
    ...(options.balance === undefined ? {} : { accountBalance: options.balance }),
  };
}

/** `createNode` with the node behind it. */
export async function launchNode(
  options: CreateNodeOptions,
  devnet?: DevnetSettings,
): Promise<{ node: LedgerNode; handle: NodeHandle }> {
  checkNodeOptions(options);
  const repo = options.repo ?? mkdtempSync(join(tmpdir(), 'ledger-node-'));
  const removeRepo = () => {
    if (options.repo === undefined) rmSync(repo, { recursive: true, force: true });
  };
  let node: LedgerNode;
  try {
    node = await LedgerNode.start({
      repoPath: repo,
      logger: createLogger({ level: options.logLevel ?? 'warn' }),
      overrides: {
        ...(options.apiHost === undefined ? {} : { apiHost: options.apiHost }),
        ...(options.apiPort === undefined ? {} : { apiPort: options.apiPort }),
        ...(options.network === undefined ? {} : { network: options.network }),
        ...(options.maxRequestSize === undefined ? {} : { maxRequestSize: options.maxRequestSize }),
      },
      ...(options.p2p === undefined ? {} : { p2p: options.p2p }),
      ...(devnet === undefined ? {} : { devnet }),
    });
  } catch (error) {
    removeRepo();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const handle: NodeHandle = {
    rpcUrl: rpcUrl(node.apiAddress, 1),
    token: node.repo.readToken() as string,
    repo,
    p2pAddresses: node.net?.network.listenAddresses() ?? [],
    stop() {
      stopping ??= node.stop().finally(removeRepo);
      return stopping;
    },
  };
  return { node, handle };
}

/** A node running a devnet: its chain has the devnet's identity. */
export type DevnetNode = LedgerNode & { readonly chain: ChainServices & { readonly devnet: DevnetInfo } };

function isDevnetNode(node: LedgerNode): node is DevnetNode {
  return node.chain?.devnet !== undefined;
}

/** `startDevnet` with the node behind it (for the project's tests, test/helpers/devnet.ts). */
export async function launchDevnet(options: StartDevnetOptions = {}): Promise<{ node: DevnetNode; devnet: Devnet }> {
  const settings = devnetSettings(options);
  const { node, handle } = await launchNode(
    {
      apiPort: options.port ?? 0,
      ...(options.repo === undefined ? {} : { repo: options.repo }),
      ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
    },
    settings,
  );
  if (!isDevnetNode(node)) {
    await handle.stop();
    throw new Error('the devnet node has no devnet chain');
  }
  const chain = node.chain;
  const { devnet } = chain;
  const accounts = devnetAccounts(devnet, chain.chain, node.wallet).map((account) => ({
    address: account.address.toString('t'),
    privateKey: account.privateKey,
    balance: account.balance,
  }));
  const ethAccounts = devnetEthAccounts(devnet, chain.chain, node.wallet).map((account) => ({
    address: account.ethAddress,
    filecoinAddress: account.address.toString('t'),
    privateKey: account.privateKey,
    balance: account.balance,
  }));
  return {
    node,
    devnet: {
      ...handle,
      accounts,
      ethAccounts,
      miner: { address: devnet.miner.toString('t'), worker: devnet.worker.toString('t') },
      networkName: devnet.networkName,
      blockTime: Number(devnet.blockDelaySecs),
    },
  };
}
