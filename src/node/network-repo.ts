/**
 * Which network a repo belongs to, kept in the repo as Lotus keeps its genesis there: a devnet's
 * `devnet.json`, or `network.json`, the definition the repo was first started with (`ledger daemon
 * --network <file|name>`), its genesis CAR copied beside it as `genesis.car`. Later starts read it,
 * so `--network` is needed once; given again it must name the same genesis.
 */
import { copyFileSync, createReadStream, existsSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CID } from 'multiformats/cid';
import type { LedgerDatabase } from '../db/index.js';
import { importCar } from '../ipld/index.js';
import { LedgerError } from '../utils/errors.js';
import { GENESIS_CAR_FILE, hasDevnet, readDevnet } from './devnet.js';
import { ConfigError } from './errors.js';
import {
  definitionFromDevnet,
  NETWORK_DEFINITION_FILE,
  type NetworkDefinition,
  networkDefinitionToJson,
  readNetworkDefinitionFile,
} from './network-definition.js';

export function networkDefinitionFile(repoPath: string): string {
  return join(repoPath, NETWORK_DEFINITION_FILE);
}

/** The network the repo holds: its devnet, else its `network.json`; undefined for a repo without one. */
export function repoNetwork(repoPath: string): NetworkDefinition | undefined {
  if (hasDevnet(repoPath)) {
    const car = join(repoPath, GENESIS_CAR_FILE);
    return definitionFromDevnet(readDevnet(repoPath), existsSync(car) ? car : undefined);
  }
  const file = networkDefinitionFile(repoPath);
  return existsSync(file) ? readNetworkDefinitionFile(file) : undefined;
}

/**
 * The network a node on `repoPath` runs: the repo's own, checked against `requested` (the command
 * line's) when both exist, else `requested`, which is then written into the repo (with its genesis
 * CAR) when it names a genesis. Undefined when neither names a chain.
 */
export function settleRepoNetwork(
  repoPath: string,
  requested: NetworkDefinition | undefined,
): NetworkDefinition | undefined {
  const held = repoNetwork(repoPath);
  if (held !== undefined) {
    if (requested?.genesis !== undefined && !requested.genesis.cid.equals(held.genesis?.cid)) {
      throw new ConfigError(
        `repo ${repoPath} belongs to network ${held.name} (genesis ${held.genesis?.cid}), not ${requested.name} (genesis ${requested.genesis.cid}): use another --repo`,
      );
    }
    return held;
  }
  if (requested?.genesis === undefined) return requested;
  // The CAR is kept in the repo; one that is missing (a node starting from a snapshot needs none) keeps its
  // path, so that a start without a snapshot says which file it lacks.
  let car = requested.genesis.car;
  if (car !== undefined && existsSync(car)) {
    const kept = join(repoPath, GENESIS_CAR_FILE);
    if (resolve(car) !== kept) copyFileSync(car, kept);
    car = GENESIS_CAR_FILE;
  }
  const file = networkDefinitionFile(repoPath);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(networkDefinitionToJson(requested, car), null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  return readNetworkDefinitionFile(file);
}

/** Imports a genesis CAR into `db`, refusing one whose root is not `expected`. */
export async function importGenesisCar(db: LedgerDatabase, car: string, expected: CID): Promise<void> {
  if (!existsSync(car)) throw new LedgerError('ERR_INVALID_ARGUMENT', `genesis file ${car} does not exist`);
  const { roots } = await importCar(db.blockstore, createReadStream(car));
  const root = roots[0];
  if (roots.length !== 1 || root === undefined || !root.equals(expected)) {
    throw new LedgerError(
      'ERR_GENESIS_MISMATCH',
      `${car} has root ${roots.join(', ')}, but the network's genesis is ${expected}`,
    );
  }
}
