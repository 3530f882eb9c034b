/**
 * A local devnet in the repo, as Lotus `scripts/devnet.bash` + lotus-seed build one
 * (filecoin-project/lotus `scripts/devnet.bash`, `cmd/lotus-seed`) and as Anvil hands a developer
 * funded accounts:
 *
 * - proof parameters for 2 KiB winning and window PoSt (generated once into the shared cache);
 * - miner t01000 with pre-sealed 2 KiB sectors in `<repo>/sectors` (lotus-seed's files beside them),
 *   its BLS owner/worker key in the wallet and an account of 50,000,000 FIL, as `genesis add-miner`;
 * - funded secp256k1 accounts (default 10 × 10,000 FIL) whose keys go into the wallet, the first
 *   one the default;
 * - funded Ethereum accounts (default 10, same balance): delegated keys in the wallet, each an
 *   EthAccount at its f410 address from genesis, so MetaMask, ethers or `ledger send --from` spend
 *   from them at once;
 * - a genesis at the current time, built into the node's database, exported to `<repo>/genesis.car`;
 * - `devnet.json`: what a restart needs to resume the same chain (genesis CID, block delay, miner,
 *   sector directory, the local beacon's seed).
 *
 * Created once; later starts read `devnet.json` and resume from the chain on disk.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CID } from 'multiformats/cid';
import type { GenesisActor } from '../chain/genesis/index.js';
import type { ChainStore } from '../chain/index.js';
import type { LedgerDatabase } from '../db/index.js';
import type { NetworkParams } from '../params/index.js';
import { ensureParameters, type ParameterProgress } from '../proofs/index.js';
import { StateTree } from '../state/index.js';
import { Address, ethAddressFromAddress, FILECOIN_PRECISION, jsonField, readJsonObject } from '../types/index.js';
import { fromBase64, fromHex, toHex } from '../utils/bytes.js';
import { type KeyInfoJson, keyInfoToLotusJson, type Wallet } from '../wallet/index.js';
import { ConfigError } from './errors.js';
import { genesisTimestampNow, keylessAccount, preSealGenesisMiner, writeGenesis } from './network-genesis.js';

export const DEVNET_FILE = 'devnet.json';
export const GENESIS_CAR_FILE = 'genesis.car';
export const SECTORS_DIRECTORY = 'sectors';
export const DEVNET_MINER = Address.newId(1000n);

export interface DevnetOptions {
  /** Seconds per epoch; fixed when the devnet is created. */
  readonly blockDelaySecs: bigint;
  readonly accounts?: number;
  /** Funded Ethereum (delegated key, f410 EthAccount) accounts. Default 10. */
  readonly ethAccounts?: number;
  /** attoFIL per funded account, Filecoin and Ethereum. */
  readonly accountBalance?: bigint;
  /** Pre-sealed 2 KiB sectors of the miner (2 KiB each; the 2k build needs 2048 bytes of power). */
  readonly sectors?: number;
  /** Progress of proof parameter generation (only when the cache lacks them). */
  readonly onParameters?: (event: ParameterProgress) => void;
}

/** `devnet.json`: the devnet's identity, fixed at creation. */
export interface DevnetInfo {
  readonly networkName: string;
  readonly genesisCid: CID;
  readonly genesisTimestamp: bigint;
  readonly blockDelaySecs: bigint;
  readonly miner: Address;
  readonly worker: Address;
  /** Absolute path of the pre-sealed sectors. */
  readonly sectorDirectory: string;
  readonly beaconSeed: Uint8Array;
  /** The funded accounts, in creation order. */
  readonly accounts: readonly Address[];
  /** The funded Ethereum accounts' f410 addresses, in creation order (none in devnets made before them). */
  readonly ethAccounts: readonly Address[];
}

export function devnetFile(repoPath: string): string {
  return join(repoPath, DEVNET_FILE);
}

export function hasDevnet(repoPath: string): boolean {
  return existsSync(devnetFile(repoPath));
}

export function readDevnet(repoPath: string): DevnetInfo {
  const file = devnetFile(repoPath);
  try {
    const json = readJsonObject(JSON.parse(readFileSync(file, 'utf8')), DEVNET_FILE);
    const text = (name: string) => {
      const value = jsonField(json, name);
      if (typeof value !== 'string') throw new Error(`${name}: expected a string`);
      return value;
    };
    const addresses = (name: string, value: unknown) => {
      if (!Array.isArray(value)) throw new Error(`${name}: expected an array`);
      return value.map((a) => Address.fromString(String(a)));
    };
    return {
      networkName: text('NetworkName'),
      genesisCid: CID.parse(text('Genesis')),
      genesisTimestamp: BigInt(text('GenesisTimestamp')),
      blockDelaySecs: BigInt(text('BlockDelaySecs')),
      miner: Address.fromString(text('Miner')),
      worker: Address.fromString(text('Worker')),
      sectorDirectory: join(repoPath, text('SectorDirectory')),
      beaconSeed: fromHex(text('BeaconSeed')),
      accounts: addresses('Accounts', jsonField(json, 'Accounts')),
      ethAccounts: addresses('EthAccounts', jsonField(json, 'EthAccounts') ?? []),
    };
  } catch (error) {
    throw new ConfigError(`${file} is unreadable: ${(error as Error).message}`, { cause: error });
  }
}

function writeDevnet(repoPath: string, info: DevnetInfo): void {
  const json = {
    NetworkName: info.networkName,
    Genesis: info.genesisCid.toString(),
    GenesisTimestamp: info.genesisTimestamp.toString(),
    BlockDelaySecs: info.blockDelaySecs.toString(),
    Miner: info.miner.toString('t'),
    Worker: info.worker.toString('t'),
    SectorDirectory: SECTORS_DIRECTORY,
    BeaconSeed: toHex(info.beaconSeed),
    Accounts: info.accounts.map((a) => a.toString('t')),
    EthAccounts: info.ethAccounts.map((a) => a.toString('t')),
  };
  // Written last and atomically: its presence means the devnet is complete.
  const file = devnetFile(repoPath);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o644 });
  renameSync(`${file}.tmp`, file);
}

/**
 * Creates the devnet in `repoPath`: keys into `wallet`, the genesis into `db`. The caller then
 * opens the chain with `ChainStore.initialize(…, info.genesisCid)`.
 */
export async function createDevnet(
  repoPath: string,
  db: LedgerDatabase,
  wallet: Wallet,
  params: NetworkParams,
  options: DevnetOptions,
): Promise<DevnetInfo> {
  await ensureParameters({ onProgress: options.onParameters });

  const sectorDirectory = join(repoPath, SECTORS_DIRECTORY);
  const sealed = await preSealGenesisMiner(DEVNET_MINER, options.sectors ?? 2, sectorDirectory, params);
  const worker = wallet.import(sealed.workerKey);

  const accountBalance = options.accountBalance ?? 10_000n * FILECOIN_PRECISION;
  const accounts: Address[] = [];
  for (let i = 0; i < (options.accounts ?? 10); i++) accounts.push(wallet.newKey('secp256k1'));
  const first = accounts[0];
  if (first !== undefined) wallet.setDefault(first);
  const ethAccounts: Address[] = [];
  for (let i = 0; i < (options.ethAccounts ?? 10); i++) ethAccounts.push(wallet.newKey('delegated'));

  const genesisAccounts: GenesisActor[] = [
    ...[...accounts, ...ethAccounts].map(
      (owner): GenesisActor => ({ type: 'account', balance: accountBalance, owner }),
    ),
    sealed.ownerAccount,
  ];
  const timestamp = genesisTimestampNow(options.blockDelaySecs);
  const networkName = `localnet-${randomUUID()}`;
  const genesis = await writeGenesis(
    db.blockstore,
    {
      networkName,
      timestamp,
      accounts: genesisAccounts,
      miners: [sealed.miner],
      remainderAccount: keylessAccount(),
    },
    params,
    join(repoPath, GENESIS_CAR_FILE),
  );

  const info: DevnetInfo = {
    networkName,
    genesisCid: genesis.cid,
    genesisTimestamp: timestamp,
    blockDelaySecs: options.blockDelaySecs,
    miner: DEVNET_MINER,
    worker,
    sectorDirectory,
    beaconSeed: randomBytes(32),
    accounts,
    ethAccounts,
  };
  writeDevnet(repoPath, info);
  return info;
}

export interface DevnetAccount {
  readonly address: Address;
  /** In the parent state of the head. */
  readonly balance: bigint;
  readonly keyInfo: KeyInfoJson;
  /** The Lotus KeyInfo JSON, hex-encoded: what `ledger devnet` prints, `lotus wallet import` reads. */
  readonly privateKey: string;
  readonly isDefault: boolean;
}

/** A funded Ethereum account, as Anvil prints one. */
export interface DevnetEthAccount {
  /** The f410 address. */
  readonly address: Address;
  /** `0x…`, lower case. */
  readonly ethAddress: string;
  /** In the parent state of the head. */
  readonly balance: bigint;
  /** `0x…`: the raw private key, as MetaMask imports it (`ledger wallet import --format hex-eth` too). */
  readonly privateKey: string;
}

/** The keys of `addresses` this repo's wallet holds, with their balances in the parent state of the head. */
function heldAccounts(
  addresses: readonly Address[],
  chain: ChainStore,
  wallet: Wallet,
): Array<{ address: Address; balance: bigint; keyInfo: KeyInfoJson }> {
  const tree = StateTree.load(chain.blockstore, chain.head().parentStateRoot);
  return addresses
    .filter((address) => wallet.has(address))
    .map((address) => {
      const id = tree.lookupId(address);
      return {
        address,
        balance: id === undefined ? 0n : (tree.getActor(id)?.balance ?? 0n),
        keyInfo: keyInfoToLotusJson(wallet.export(address)),
      };
    });
}

/**
 * The funded accounts whose keys this repo's wallet holds, with their balances now and their keys
 * (what `ledger devnet` prints). A repo that joined the devnet from a snapshot holds none of them.
 */
export function devnetAccounts(info: DevnetInfo, chain: ChainStore, wallet: Wallet): DevnetAccount[] {
  let defaultAddress: Address | undefined;
  try {
    defaultAddress = wallet.defaultAddress();
  } catch {
    defaultAddress = undefined;
  }
  return heldAccounts(info.accounts, chain, wallet).map(({ address, balance, keyInfo }) => ({
    address,
    balance,
    keyInfo,
    privateKey: toHex(new TextEncoder().encode(JSON.stringify(keyInfo))),
    isDefault: defaultAddress?.equals(address) ?? false,
  }));
}

/** The funded Ethereum accounts whose keys this repo's wallet holds, as `devnetAccounts`. */
export function devnetEthAccounts(info: DevnetInfo, chain: ChainStore, wallet: Wallet): DevnetEthAccount[] {
  return heldAccounts(info.ethAccounts, chain, wallet).map(({ address, balance, keyInfo }) => ({
    address,
    ethAddress: ethAddressFromAddress(address),
    balance,
    privateKey: `0x${toHex(fromBase64(keyInfo.PrivateKey))}`,
  }));
}
