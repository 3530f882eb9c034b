/**
 * The node as a library (`import { startDevnet, createNode } from 'ledger-node'`, docs/library.md):
 * the same `LedgerNode.start` that `ledger daemon` and `ledger devnet` run, in the caller's process,
 * behind a small handle of plain values (strings, numbers, bigints). These types name no internal
 * class, so the declaration files shipped with the package stand alone (scripts/bundle.mjs).
 */
import type { LogLevel } from './config.js';
import { launchDevnet, launchNode } from './launch.js';
import type { NetworkName } from './network.js';

export interface CreateNodeOptions {
  /** The repo directory (created if missing). Default: a new temporary directory, removed by `stop()`. */
  readonly repo?: string;
  /** The API host. Default: the repo's config.toml `[API] ListenAddress` (127.0.0.1). */
  readonly apiHost?: string;
  /** The API port; 0 picks a free one. Default: the repo's config.toml (1234), as `ledger daemon`. */
  readonly apiPort?: number;
  /** The network preset (`ledger daemon --network`). Default: the repo's config.toml (mainnet). */
  readonly network?: NetworkName;
  /** The largest request body accepted, in bytes. Default: the repo's config.toml. */
  readonly maxRequestSize?: number;
  /** libp2p: listen and bootstrap multiaddrs (`daemon --libp2p-listen`, `--bootstrap`); `enabled: false` runs without a host. */
  readonly p2p?: {
    readonly enabled?: boolean;
    readonly listen?: readonly string[];
    readonly bootstrap?: readonly string[];
  };
  /** The node's log level (pino, on stderr). Default `warn`. */
  readonly logLevel?: LogLevel;
}

/** A running node. */
export interface NodeHandle {
  /** The JSON-RPC endpoint, `http://<host>:<port>/rpc/v1`. */
  readonly rpcUrl: string;
  /** An admin token (`Authorization: Bearer <token>`); reads need none. */
  readonly token: string;
  /** The repo directory. */
  readonly repo: string;
  /** The libp2p listen addresses, each ending in `/p2p/<peer id>` (empty without a chain or with p2p disabled). */
  readonly p2pAddresses: readonly string[];
  /**
   * Stops the node: mining, libp2p, the RPC server (its port is closed), the database; then removes a
   * temporary repo. Resolves once all of that is done; calling it again returns the same promise.
   */
  stop(): Promise<void>;
}

export interface StartDevnetOptions {
  /** The repo: a devnet is created in it on first start and resumed afterwards. Default: a temporary one, removed by `stop()`. */
  readonly repo?: string;
  /** Seconds per epoch, a whole number (as `ledger devnet --block-time`); fixed when the devnet is created. Default 4. */
  readonly blockTime?: number;
  /** Funded secp256k1 accounts created with the devnet. Default 10. */
  readonly accounts?: number;
  /** Funded Ethereum accounts (EthAccounts at f410 addresses, keys in the wallet) created with the devnet. Default 10. */
  readonly ethAccounts?: number;
  /** The balance of each funded account, Filecoin and Ethereum, in attoFIL (1 FIL = 10n ** 18n). Default 10,000 FIL. */
  readonly balance?: bigint;
  /** Run the mining loop. Default true. */
  readonly mine?: boolean;
  /** The API port on 127.0.0.1. Default 0: a free port (several devnets can run at once). */
  readonly port?: number;
  /** The node's log level (pino, on stderr). Default `warn`. */
  readonly logLevel?: LogLevel;
}

export interface DevnetAccountInfo {
  /** A `t1…` address. */
  readonly address: string;
  /** Lotus KeyInfo JSON, hex-encoded: what `ledger devnet` prints and `ledger wallet import` / `lotus wallet import` read. */
  readonly privateKey: string;
  /** attoFIL, in the head's parent state at start. */
  readonly balance: bigint;
}

export interface DevnetEthAccountInfo {
  /** The `0x…` address (lower case). */
  readonly address: string;
  /** Its `t410f…` address. */
  readonly filecoinAddress: string;
  /** `0x…`, the raw private key: what MetaMask, ethers (`new Wallet(key)`) and viem import. */
  readonly privateKey: string;
  /** attoFIL (= wei), in the head's parent state at start. */
  readonly balance: bigint;
}

export interface Devnet extends NodeHandle {
  /**
   * The funded accounts whose keys this repo holds (none in a repo imported from a snapshot), the
   * first one the wallet's default.
   */
  readonly accounts: readonly DevnetAccountInfo[];
  /** The funded Ethereum accounts whose keys this repo holds, as Anvil lists them. */
  readonly ethAccounts: readonly DevnetEthAccountInfo[];
  /** The storage miner (`t01000`) and its worker key's address (held by the node's wallet). */
  readonly miner: { readonly address: string; readonly worker: string };
  /** `localnet-<uuid>`. */
  readonly networkName: string;
  /** Seconds per epoch (a restarted devnet keeps the one it was created with). */
  readonly blockTime: number;
}

/** Starts a full node, as `ledger daemon` does, from options instead of command-line flags. */
export async function createNode(options: CreateNodeOptions = {}): Promise<NodeHandle> {
  return (await launchNode(options)).handle;
}

/**
 * Starts a local devnet in this process, as `ledger devnet` does: created on first start (funded
 * accounts, miner t01000 with pre-sealed 2 KiB sectors, the genesis), resumed from `repo` afterwards.
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  return (await launchDevnet(options)).devnet;
}
