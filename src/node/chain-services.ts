/**
 * The chain half of the node, built in the agreed order: database → ChainStore (initialised from
 * the network's genesis on first run, reopened at its persisted head afterwards) → TipSetStates →
 * beacon schedule. Validation and block production are added on top by `mining.ts`. The network
 * comes from its definition (`network-definition.ts`); a devnet is created here on first run.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type BeaconSource, DrandBeacon, LocalBeacon, NetworkBeacon } from '../beacon/index.js';
import { ChainStore, TipSetStates } from '../chain/index.js';
import { LedgerDatabase } from '../db/index.js';
import { DEVNET_2K, type NetworkParams } from '../params/index.js';
import type { Wallet } from '../wallet/index.js';
import {
  createDevnet,
  type DevnetInfo,
  type DevnetOptions,
  GENESIS_CAR_FILE,
  hasDevnet,
  readDevnet,
} from './devnet.js';
import { ConfigError } from './errors.js';
import { definitionFromDevnet, type NetworkDefinition } from './network-definition.js';
import { importGenesisCar, settleRepoNetwork } from './network-repo.js';

export const DATABASE_FILE = join('datastore', 'chain.db');

export interface ChainServices {
  readonly db: LedgerDatabase;
  readonly params: NetworkParams;
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  /** The network's beacon schedule: drand relays or the devnet's local beacon, per epoch range. */
  readonly beacon: NetworkBeacon;
  readonly network: NetworkDefinition;
  /** The devnet's identity (accounts, miner); undefined on other networks. */
  readonly devnet: DevnetInfo | undefined;
}

/** The devnet's network parameters: Lotus's 2k build with the devnet's own block delay. */
export function devnetParams(devnet: Pick<DevnetInfo, 'blockDelaySecs'>): NetworkParams {
  return { ...DEVNET_2K, blockDelaySecs: devnet.blockDelaySecs };
}

/** The beacon schedule of `network`: each point's source, drand ones caching verified entries in `db`. */
export function networkBeacon(network: NetworkDefinition, db: LedgerDatabase, logger: Logger): NetworkBeacon {
  const genesis = network.genesis;
  if (genesis === undefined) throw new ConfigError(`network ${network.name} has no genesis`);
  const log = logger.child({ module: 'beacon' });
  return new NetworkBeacon(
    network.beacon.map((point) => {
      const source: BeaconSource =
        point.type === 'local'
          ? LocalBeacon.fromSeed(point.seed, genesis.timestamp, network.params.blockDelaySecs)
          : new DrandBeacon({
              name: point.name,
              chainInfo: point.chainInfo,
              relays: point.relays,
              store: db.drand,
              onRelayError: (error) => log.warn({ err: error, relay: error.relay }, 'drand relay failed'),
            });
      return { startEpoch: point.startEpoch, source };
    }),
  );
}

/** The devnet of the repo, created first when `create` is given and the repo has none. */
async function settleDevnet(
  repoPath: string,
  db: LedgerDatabase,
  wallet: Wallet,
  logger: Logger,
  create: DevnetOptions,
): Promise<DevnetInfo> {
  if (hasDevnet(repoPath)) {
    const devnet = readDevnet(repoPath);
    if (create.blockDelaySecs !== devnet.blockDelaySecs) {
      logger.warn(
        { requested: Number(create.blockDelaySecs), blockDelaySecs: Number(devnet.blockDelaySecs) },
        'the block time is fixed when a devnet is created; keeping the existing one',
      );
    }
    return devnet;
  }
  if (ChainStore.hasChain(db)) {
    throw new ConfigError(
      `repo ${repoPath} already holds a chain that is not a devnet (imported or synced): run \`ledger daemon\` on it, or give \`ledger devnet\` another --repo`,
    );
  }
  const started = performance.now();
  const devnet = await createDevnet(repoPath, db, wallet, devnetParams(create), create);
  logger.info({ genesis: devnet.genesisCid.toString(), ms: Math.round(performance.now() - started) }, 'devnet created');
  return devnet;
}

/**
 * Opens the repo's chain: a devnet (created first when `create` is given and the repo has none), or
 * the network of the repo or of `network` (the command line's definition; its genesis CAR is
 * imported into a repo without a chain). Undefined for a repo that names no chain.
 */
export async function openChain(input: {
  repoPath: string;
  wallet: Wallet;
  logger: Logger;
  network?: NetworkDefinition | undefined;
  create?: DevnetOptions | undefined;
}): Promise<ChainServices | undefined> {
  const { repoPath, wallet, logger } = input;
  if (input.create !== undefined && input.network !== undefined && !hasDevnet(repoPath)) {
    throw new ConfigError('a devnet is created by `ledger devnet`, not joined with --network');
  }
  const settled = input.create === undefined ? settleRepoNetwork(repoPath, input.network) : undefined;
  if (input.create === undefined && settled?.genesis === undefined) return undefined;
  const db = LedgerDatabase.open(join(repoPath, DATABASE_FILE));
  try {
    let devnet: DevnetInfo | undefined;
    let network: NetworkDefinition;
    if (input.create !== undefined) {
      devnet = await settleDevnet(repoPath, db, wallet, logger, input.create);
      network = definitionFromDevnet(devnet, join(repoPath, GENESIS_CAR_FILE));
    } else {
      network = settled!;
      devnet = hasDevnet(repoPath) ? readDevnet(repoPath) : undefined;
    }
    const genesis = network.genesis!;
    if (!ChainStore.hasChain(db)) {
      if (genesis.car === undefined) {
        throw new ConfigError(
          `network ${network.name} gives no genesis CAR: start the node with --import-snapshot, or add Genesis.Car to its definition`,
        );
      }
      await importGenesisCar(db, genesis.car, genesis.cid);
    }
    const params = network.params;
    const beacon = networkBeacon(network, db, logger);
    const clock = {
      genesisTime: genesis.timestamp,
      blockDelaySecs: params.blockDelaySecs,
      networkVersion: params.networkVersion,
    };
    const chain = ChainStore.initialize(
      { db, params, logger, beaconSchedule: beacon.roundSchedule(clock) },
      genesis.cid,
    );
    if (chain.genesis.timestamp !== genesis.timestamp) {
      throw new ConfigError(
        `network ${network.name}: Genesis.Timestamp is ${genesis.timestamp}, but the genesis block's timestamp is ${chain.genesis.timestamp}`,
      );
    }
    const states = new TipSetStates(chain, db, logger);
    return { db, params, chain, states, beacon, network, devnet };
  } catch (error) {
    db.close();
    throw error;
  }
}
