/**
 * `ledger network create <template.json> --out <dir>`: a new network from a Lotus-style genesis
 * template, as `lotus-seed pre-seal` + `lotus-seed genesis new/add-miner` + `lotus daemon
 * --lotus-make-genesis` make one (filecoin-project/lotus `cmd/lotus-seed`). The template is Lotus's
 * (`genesis/types.go` Template: NetworkName, Timestamp, Accounts, Miners, RemainderAccount), with
 * two conveniences: a miner whose `Sectors` is a count is pre-sealed here (its directory, key and
 * owner account made as lotus-seed and `add-miner` make them), and NetworkName, Timestamp and
 * RemainderAccount may be left out. The output directory gets:
 *
 * - `genesis.car`, the genesis;
 * - `network.json`, the network definition (docs/networks.md) that `ledger daemon --network` reads;
 * - `miners/<id>/` per pre-sealed miner: its sectors, `pre-seal-<id>.json` and `pre-seal-<id>.key`
 *   (`ledger daemon --miner <dir>` runs it);
 * - `genesis-template.json`, the template as built (every miner's manifest in it).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { genesisTemplateFromLotusJson } from '../chain/genesis/index.js';
import { MemoryBlockstore } from '../ipld/index.js';
import { ensureParameters, type ParameterProgress } from '../proofs/index.js';
import { Address, type JsonObject, jsonField, readJsonArray, readJsonObject } from '../types/index.js';
import { GENESIS_CAR_FILE } from './devnet.js';
import { ConfigError } from './errors.js';
import type { NetworkName } from './network.js';
import {
  NETWORK_DEFINITION_FILE,
  type NetworkDefinition,
  networkDefinitionToJson,
  parseNetworkDefinition,
} from './network-definition.js';
import { genesisTimestampNow, keylessAccount, preSealGenesisMiner, writeGenesis } from './network-genesis.js';

export const MINERS_DIRECTORY = 'miners';
export const GENESIS_TEMPLATE_FILE = 'genesis-template.json';

export interface CreateNetworkOptions {
  /** Where the network's files go: created, or an empty directory. */
  readonly outDir: string;
  /** The parameter and miner-policy preset (default devnet: 2 KiB sectors mine there). */
  readonly preset?: NetworkName;
  readonly blockDelaySecs?: number;
  readonly ethChainId?: number;
  readonly bootstrap?: readonly string[];
  /** The beacon schedule, in the definition's JSON (`Beacon`); default a local beacon with a fresh seed. */
  readonly beacon?: unknown;
  readonly onParameters?: (event: ParameterProgress) => void;
  /** Told before each miner is pre-sealed. */
  readonly onPreSeal?: (miner: string, sectors: number) => void;
}

export interface CreatedNetwork {
  readonly definition: NetworkDefinition;
  readonly definitionFile: string;
  /** The pre-sealed miners' directories, by miner address. */
  readonly minerDirectories: ReadonlyMap<string, string>;
}

export async function createNetwork(templateJson: unknown, options: CreateNetworkOptions): Promise<CreatedNetwork> {
  const outDir = resolve(options.outDir);
  if (existsSync(outDir) && readdirSync(outDir).length > 0) {
    throw new ConfigError(`--out ${outDir} is not empty: give a new directory`);
  }
  const template = readJsonObject(templateJson, 'Template');
  const beacon = options.beacon ?? [
    { StartEpoch: 0, Type: 'local', Seed: Buffer.from(randomBytes(32)).toString('hex') },
  ];
  // The definition is checked first (without a genesis yet), so a bad option fails before any sealing.
  const draft = {
    Name: typeof template.NetworkName === 'string' ? template.NetworkName : `localnet-${randomUUID()}`,
    Params: options.preset ?? 'devnet',
    ...(options.blockDelaySecs === undefined ? {} : { BlockDelaySecs: options.blockDelaySecs }),
    ...(options.ethChainId === undefined ? {} : { EthChainId: options.ethChainId }),
    Beacon: beacon,
    Bootstrap: options.bootstrap ?? [],
  };
  const checked = parseNetworkDefinition(draft, 'the network to create', outDir);
  const params = checked.params;
  const accounts = readJsonArray(jsonField(template, 'Accounts') ?? [], 'Template.Accounts', (a) => a);
  const miners = readJsonArray(jsonField(template, 'Miners') ?? [], 'Template.Miners', (m, at) =>
    readJsonObject(m, at),
  );
  if (miners.length === 0) throw new ConfigError('Template.Miners: a network needs at least one miner to make blocks');

  // Every miner to pre-seal is checked before any sealing starts.
  const toSeal = miners.map((entry, i) =>
    typeof entry.Sectors === 'number' ? preSealSpec(entry, i, checked) : undefined,
  );

  mkdirSync(outDir, { recursive: true });
  await ensureParameters({ onProgress: options.onParameters });
  const minerDirectories = new Map<string, string>();
  const manifests: unknown[] = [];
  for (const [i, entry] of miners.entries()) {
    const spec = toSeal[i];
    if (spec === undefined) {
      manifests.push(entry);
      continue;
    }
    const name = spec.id.toString(params.addressNetwork);
    const dir = join(outDir, MINERS_DIRECTORY, name);
    options.onPreSeal?.(name, spec.sectors);
    const sealed = await preSealGenesisMiner(spec.id, spec.sectors, dir, params);
    manifests.push(sealed.manifest);
    accounts.push({
      Type: 'account',
      Balance: sealed.ownerAccount.balance.toString(),
      Meta: { Owner: sealed.ownerAccount.owner.toString(params.addressNetwork) },
    });
    minerDirectories.set(name, dir);
  }

  const built: JsonObject = {
    ...template,
    NetworkName: draft.Name,
    Timestamp: Number(
      typeof template.Timestamp === 'number' && template.Timestamp > 0
        ? BigInt(template.Timestamp)
        : genesisTimestampNow(params.blockDelaySecs),
    ),
    Accounts: accounts,
    Miners: manifests,
    RemainderAccount: template.RemainderAccount ?? {
      Type: 'account',
      Balance: '0',
      Meta: { Owner: keylessAccount().owner.toString(params.addressNetwork) },
    },
  };
  const genesisTemplate = genesisTemplateFromLotusJson(built, params.networkVersion);
  const genesis = await writeGenesis(new MemoryBlockstore(), genesisTemplate, params, join(outDir, GENESIS_CAR_FILE));
  writeFileSync(join(outDir, GENESIS_TEMPLATE_FILE), `${JSON.stringify(built, null, 2)}\n`);

  const definitionJson = networkDefinitionToJson(
    { ...checked, genesis: { cid: genesis.cid, timestamp: genesisTemplate.timestamp, car: undefined } },
    GENESIS_CAR_FILE,
  );
  const definitionFile = join(outDir, NETWORK_DEFINITION_FILE);
  writeFileSync(definitionFile, `${JSON.stringify(definitionJson, null, 2)}\n`);
  return {
    definition: parseNetworkDefinition(definitionJson, definitionFile, outDir),
    definitionFile,
    minerDirectories,
  };
}

/** A template miner whose `Sectors` is a count: its ID and count, checked. */
function preSealSpec(entry: JsonObject, i: number, network: NetworkDefinition): { id: Address; sectors: number } {
  const at = `Template.Miners[${i}]`;
  const count = entry.Sectors as number;
  const unknown = Object.keys(entry).filter((key) => key !== 'ID' && key !== 'Sectors');
  if (unknown.length > 0) {
    throw new ConfigError(`${at}: a miner to pre-seal has only ID and Sectors, not ${unknown.join(', ')}`);
  }
  if (!Number.isSafeInteger(count) || count < 1 || count > 64) {
    throw new ConfigError(`${at}.Sectors: expected a count of sectors to pre-seal from 1 to 64, got ${count}`);
  }
  // Pre-sealed sectors are 2 KiB: a miner needs the preset's minimum power to mine with them.
  const minPower = network.params.consensusMinerMinPower;
  if (BigInt(count) * 2048n < minPower) {
    throw new ConfigError(
      `${at}.Sectors: ${count} pre-sealed 2 KiB sectors are below the ${network.paramsPreset} preset's minimum mining power (${minPower} bytes): pre-seal on the devnet preset`,
    );
  }
  try {
    return { id: Address.fromString(String(entry.ID)), sectors: count };
  } catch (error) {
    throw new ConfigError(`${at}.ID: ${(error as Error).message}`);
  }
}
