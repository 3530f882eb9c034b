/**
 * A pre-sealed genesis miner's directory, as lotus-seed leaves it and `ledger network create` writes
 * one per miner (`miners/<id>`): the sector files, `pre-seal-<id>.json` (the genesis-miner manifest)
 * and `pre-seal-<id>.key` (the worker's KeyInfo JSON, hex). A node given the directory
 * (`ledger daemon --miner <dir>`) imports the worker key and runs the miner over those sectors.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { genesisMinerFromLotusJson } from '../chain/genesis/index.js';
import type { Address } from '../types/index.js';
import { keyInfoFromLotusJson, type Wallet } from '../wallet/index.js';
import { ConfigError } from './errors.js';

export interface PreSealedMiner {
  readonly address: Address;
  readonly sectorDirectory: string;
}

export function loadPreSealedMiner(directory: string, wallet: Wallet): PreSealedMiner {
  const dir = resolve(directory);
  let manifests: string[];
  try {
    manifests = readdirSync(dir).filter((name) => /^pre-seal-.+\.json$/.test(name));
  } catch (error) {
    throw new ConfigError(`--miner ${dir}: ${(error as Error).message}`, { cause: error });
  }
  const manifest = manifests[0];
  if (manifests.length !== 1 || manifest === undefined) {
    throw new ConfigError(`--miner ${dir}: expected one pre-seal-<miner>.json, found ${manifests.length}`);
  }
  try {
    const json = JSON.parse(readFileSync(join(dir, manifest), 'utf8')) as Record<string, unknown>;
    const [name, entry] = Object.entries(json)[0] ?? [];
    const miner = genesisMinerFromLotusJson(entry, `${manifest}.${name}`);
    const keyText = readFileSync(join(dir, manifest.replace(/\.json$/, '.key')), 'utf8').trim();
    const key = keyInfoFromLotusJson(JSON.parse(Buffer.from(keyText, 'hex').toString('utf8')), 'worker key');
    // A restart finds the key in the wallet already.
    const worker = wallet.has(miner.worker) ? miner.worker : wallet.import(key);
    if (!worker.equals(miner.worker)) {
      throw new Error(`the key file holds ${worker}, but the miner's worker is ${miner.worker}`);
    }
    return { address: miner.id, sectorDirectory: dir };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`--miner ${dir}: ${(error as Error).message}`, { cause: error });
  }
}
