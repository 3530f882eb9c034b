/**
 * `ledger daemon --genesis <genesis.car>`: prepares a repo to join an existing devnet. The
 * devnet's `devnet.json` (its identity: genesis CID, block delay, beacon) travels with its
 * genesis — it is read from beside the CAR unless the repo has it already — and the genesis blocks
 * and state are imported into the repo's database, which the node then opens as its chain. The
 * CAR is kept as `$LEDGER_PATH/genesis.car`, as every node keeps its network's genesis.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ChainStore } from '../chain/index.js';
import { LedgerDatabase } from '../db/index.js';
import { DATABASE_FILE } from '../node/chain-services.js';
import { DEVNET_FILE, GENESIS_CAR_FILE, hasDevnet, readDevnet } from '../node/devnet.js';
import { importGenesisCar } from '../node/network-repo.js';
import { Repo } from '../node/repo.js';
import { LedgerError } from '../utils/errors.js';

export async function importGenesisIntoRepo(repoPath: string, carFile: string): Promise<void> {
  const car = resolve(carFile);
  if (!existsSync(car)) throw new LedgerError('ERR_INVALID_ARGUMENT', `genesis file ${car} does not exist`);
  const repo = new Repo(repoPath);
  repo.init();
  if (!hasDevnet(repo.path)) {
    const beside = join(dirname(car), DEVNET_FILE);
    if (!existsSync(beside)) {
      throw new LedgerError(
        'ERR_INVALID_ARGUMENT',
        `no ${DEVNET_FILE} beside ${car}: copy the devnet's ${DEVNET_FILE} (its block delay and beacon) next to the genesis, or into ${repo.path}`,
      );
    }
    copyFileSync(beside, join(repo.path, DEVNET_FILE));
  }
  const devnet = readDevnet(repo.path);
  const db = LedgerDatabase.open(join(repo.path, DATABASE_FILE));
  try {
    if (ChainStore.hasChain(db)) return;
    await importGenesisCar(db, car, devnet.genesisCid);
  } finally {
    db.close();
  }
  const kept = join(repo.path, GENESIS_CAR_FILE);
  if (resolve(kept) !== car && !existsSync(kept)) copyFileSync(car, kept);
}
