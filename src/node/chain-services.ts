/**
 * The chain half of the node, built in the agreed order: database → ChainStore (initialised from
 * the devnet genesis on first run, reopened at its persisted head afterwards) → TipSetStates →
 * beacon. Validation and block production are added on top by `mining.ts`.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { beaconSchedule, LocalBeacon } from '../beacon/index.js';
import { ChainStore, TipSetStates } from '../chain/index.js';
import { LedgerDatabase } from '../db/index.js';
import { DEVNET_2K, type NetworkParams } from '../params/index.js';
import type { Wallet } from '../wallet/index.js';
import { createDevnet, type DevnetInfo, type DevnetOptions, hasDevnet, readDevnet } from './devnet.js';
import { ConfigError } from './errors.js';

export const DATABASE_FILE = join('datastore', 'chain.db');

export interface ChainServices {
  readonly db: LedgerDatabase;
  readonly params: NetworkParams;
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  readonly beacon: LocalBeacon;
  readonly devnet: DevnetInfo;
}

/** The devnet's network parameters: Lotus's 2k build with the devnet's own block delay. */
export function devnetParams(devnet: Pick<DevnetInfo, 'blockDelaySecs'>): NetworkParams {
  return { ...DEVNET_2K, blockDelaySecs: devnet.blockDelaySecs };
}

/**
 * Opens the repo's devnet chain, creating the devnet first when `create` is given and the repo
 * has none. Returns undefined for a repo without a devnet when not asked to create one.
 */
export async function openDevnetChain(input: {
  repoPath: string;
  wallet: Wallet;
  logger: Logger;
  create?: DevnetOptions | undefined;
}): Promise<ChainServices | undefined> {
  const { repoPath, wallet, logger } = input;
  const exists = hasDevnet(repoPath);
  if (!exists && input.create === undefined) return undefined;
  const db = LedgerDatabase.open(join(repoPath, DATABASE_FILE));
  try {
    let devnet: DevnetInfo;
    if (exists) {
      devnet = readDevnet(repoPath);
      const requested = input.create?.blockDelaySecs;
      if (requested !== undefined && requested !== devnet.blockDelaySecs) {
        logger.warn(
          { requested: Number(requested), blockDelaySecs: Number(devnet.blockDelaySecs) },
          'the block time is fixed when a devnet is created; keeping the existing one',
        );
      }
    } else {
      if (ChainStore.hasChain(db)) {
        throw new ConfigError(
          `repo ${repoPath} already holds a chain that is not a devnet (imported or synced): run \`ledger daemon\` on it, or give \`ledger devnet\` another --repo`,
        );
      }
      const started = performance.now();
      devnet = await createDevnet(repoPath, db, wallet, devnetParams(input.create!), input.create!);
      logger.info(
        { genesis: devnet.genesisCid.toString(), ms: Math.round(performance.now() - started) },
        'devnet created',
      );
    }
    const params = devnetParams(devnet);
    const beacon = LocalBeacon.fromSeed(devnet.beaconSeed, devnet.genesisTimestamp, devnet.blockDelaySecs);
    const clock = {
      genesisTime: devnet.genesisTimestamp,
      blockDelaySecs: params.blockDelaySecs,
      networkVersion: params.networkVersion,
    };
    const chain = ChainStore.initialize(
      { db, params, logger, beaconSchedule: beaconSchedule(beacon.network, clock) },
      devnet.genesisCid,
    );
    const states = new TipSetStates(chain, db, logger);
    return { db, params, chain, states, beacon, devnet };
  } catch (error) {
    db.close();
    throw error;
  }
}
