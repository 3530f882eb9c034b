/**
 * What method handlers may use: the node's services, filled in by `src/node` when it builds the
 * server (tests build one from real services on a temporary repo). Later modules add their
 * service here — `chain`, `state`, `mpool` — and their handlers read it from the context instead
 * of importing a singleton, so every handler stays testable on its own.
 */
import { randomUUID } from 'node:crypto';
import type { ChainPruner, ChainStore, TipSetStates } from '../chain/index.js';
import type { EthIndex } from '../db/index.js';
import type { BlockTemplate, MiningBaseInfoJson, SealingSector } from '../miner/index.js';
import type { WindowPostStatus } from '../miner/window-post/index.js';
import type { GasEstimator, MessagePool, MessageSigner } from '../mpool/index.js';
import type { LedgerNetwork } from '../net/index.js';
import type { NetworkParams } from '../params/index.js';
import type { SyncManager } from '../sync/index.js';
import type { Address, BlockMsg, TipSet } from '../types/index.js';
import type { Wallet } from '../wallet/index.js';
import type { TokenAuthority } from './auth.js';
import type { EthEvents, EthFilters, EthSubscriptions } from './eth-filters.js';

/** Facts about the running node that `Version` reports. */
export interface NodeInfo {
  /** The node's version with its network, e.g. `0.1.0+devnet`. */
  readonly version: string;
  /** Seconds between epochs (Lotus `BlockDelaySecs`). */
  readonly blockDelaySecs: number;
  /** A random UUID per node start (Lotus `Session`): a client that sees it change knows the node restarted. */
  readonly session: string;
  /** When the node started (Lotus `StartTime`). */
  readonly startTime: Date;
}

/** NodeInfo of a node starting now: a new session UUID, the current time. */
export function startingNodeInfo(version: string, blockDelaySecs: number): NodeInfo {
  return { version, blockDelaySecs, session: randomUUID(), startTime: new Date() };
}

/** Lotus `Shutdown`: wired by src/node to the node's stop. */
export interface ShutdownContext {
  /** Starts a clean stop of the node after the current answers are sent; returns at once. */
  request(): void;
}

/**
 * The node's subsystem loggers (Lotus `LogList`, `LogSetLevel`; src/node `subsystem-loggers.ts`):
 * each a named pino logger whose level can change while the node runs.
 */
export interface LogContext {
  /** The subsystem names, sorted. */
  list(): string[];
  /** Sets one subsystem's level, or every one's for `*`; refuses an unknown name or level. */
  setLevel(subsystem: string, level: string): void;
}

/** The chain the node follows: what the Chain*, State* and Wallet balance methods read. */
export interface ChainContext {
  readonly store: ChainStore;
  readonly states: TipSetStates;
  readonly params: NetworkParams;
  /** The network's name (the init actor's), for logs and callers that need it without reading state. */
  readonly networkName: string;
  /** Prunes old state (ChainPrune); absent where no database stands behind the chain (some RPC tests). */
  readonly pruner?: ChainPruner;
}

/**
 * Block production for MinerGetBaseInfo and MinerCreateBlock (src/miner, wired by src/node). The
 * values are Lotus JSON-ready objects built by the miner library.
 */
export interface MiningContext {
  /**
   * Lotus `MiningBaseInfo` as Lotus JSON, or null when the miner has no power at the lookback.
   * Refuses rounds whose beacon entries are not due yet; `signal` stops the work.
   */
  baseInfo(miner: Address, round: bigint, base: TipSet, signal?: AbortSignal): Promise<MiningBaseInfoJson | null>;
  /** Lotus `MinerCreateBlock`: builds and signs (with the wallet's worker key) a block from a template. */
  createBlock(template: BlockTemplate): Promise<BlockMsg>;
}

/**
 * The storage miners this node runs (src/node `local-miners.ts`): each seals sectors, proves them
 * every deadline and mines blocks. `miner` undefined means the first one (the devnet's genesis miner).
 */
export interface StorageContext {
  /** The miners this node runs, in the order they were added. */
  miners(): readonly LocalMinerStatus[];
  /** Starts running a miner whose worker key is in the wallet, and remembers it across restarts. */
  add(miner: Address): Promise<LocalMinerStatus>;
  /** Lotus `PledgeSector`: allocates a committed-capacity sector and starts sealing it. */
  pledgeSector(miner?: Address): Promise<SealingSector>;
  /** The sectors the node is sealing or has sealed, by number. */
  sectors(miner?: Address): readonly SealingSector[];
  provingPause(miner?: Address): WindowPostStatus;
  provingResume(miner?: Address): WindowPostStatus;
}

/** One miner the node runs. */
export interface LocalMinerStatus {
  readonly address: Address;
  readonly worker: Address;
  readonly sectorDirectory: string;
  readonly proving: WindowPostStatus;
}

/** The message pool and gas estimation (src/mpool, wired by src/node): the Mpool* and Gas* methods. */
export interface MpoolContext {
  readonly pool: MessagePool;
  readonly gas: GasEstimator;
  /** MpoolPushMessage: nonce assignment, signing with the wallet, push. */
  readonly signer: MessageSigner;
}

/** The libp2p host and the sync manager (src/net, src/sync, wired by src/node): the Net*, ID and Sync* methods. */
export interface NetContext {
  readonly network: LedgerNetwork;
  readonly sync: SyncManager;
}

/**
 * The Ethereum JSON-RPC's hash index (src/db `EthIndex`), which src/node keeps up to date from the
 * message pool and head changes: the eth_* methods find transactions and blocks by hash there.
 */
export interface EthContext {
  readonly index: EthIndex;
  /** Head changes and pool additions as eth events (filters and eth_subscribe follow them). */
  readonly events: EthEvents;
  /** The installed eth filters (eth_newFilter …). */
  readonly filters: EthFilters;
  /** The open eth_subscribe subscriptions. */
  readonly subscriptions: EthSubscriptions;
}

export interface RpcContext {
  readonly node: NodeInfo;
  readonly wallet: Wallet;
  /** Mints and checks API tokens (AuthNew, AuthVerify, and the server's own request check). */
  readonly tokens: TokenAuthority;
  /** Absent until the node has a chain (a repo without a devnet or sync serves only wallet/auth). */
  readonly chain?: ChainContext;
  readonly mining?: MiningContext;
  /** Absent on a node that runs no storage miner. */
  readonly storage?: StorageContext;
  /** Absent without a chain, like `chain`. */
  readonly mpool?: MpoolContext;
  /** Absent without a chain, like `chain`. */
  readonly net?: NetContext;
  /** Absent without a chain, like `chain`. */
  readonly eth?: EthContext;
  /** Absent where no node process stands behind the server (tests of the RPC layer). */
  readonly shutdown?: ShutdownContext;
  /** Absent where no node process stands behind the server, like `shutdown`. */
  readonly logs?: LogContext;
}

/**
 * The services a node may lack, each with what a method that needs it cannot do without it: a
 * method declares the ones it uses (`needs`), and the dispatcher answers one error for the rest.
 */
export const SERVICES = {
  chain: 'the chain',
  mpool: 'a message pool',
  net: 'the libp2p network and chain sync',
  mining: 'block production',
  storage: 'a storage miner',
  shutdown: 'stopping the node',
  logs: 'run-time log levels',
  eth: 'the Ethereum hash index',
} as const satisfies { readonly [K in keyof RpcContext as undefined extends RpcContext[K] ? K : never]-?: string };
export type Service = keyof typeof SERVICES;

/** The context a handler gets: the services it declared are there. */
export type ServedContext<S extends Service> = RpcContext & { readonly [K in S]-?: NonNullable<RpcContext[K]> };
