/**
 * A network as data (docs/networks.md): its name, genesis, parameter and miner-policy presets with
 * the block time, beacon schedule, bootstrap peers, network-version schedule and Ethereum chain id.
 * Read from a JSON file (`ledger daemon --network <file>`, what `ledger network create` writes) or
 * a built-in name; a devnet's `devnet.json` is one more producer of a definition. Parsing is strict:
 * every bad field is named in one error, unknown fields included.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { multiaddr } from '@multiformats/multiaddr';
import { CID } from 'multiformats/cid';
import {
  type DrandChainInfo,
  type DrandRelayConfig,
  FILECOIN_MAINNET_DRAND_SCHEDULE,
  parseDrandChainInfo,
} from '../beacon/index.js';
import { DEVNET_2K, MAINNET, type NetworkParams } from '../params/index.js';
import { fromHex, toHex } from '../utils/bytes.js';
import type { DevnetInfo } from './devnet.js';
import { ConfigError } from './errors.js';
import { NETWORK_PRESETS, type NetworkName } from './network.js';

/** A point of the beacon schedule: drand relays from `startEpoch` on, or the devnet's local beacon. */
export type BeaconPointDefinition =
  | { readonly startEpoch: bigint; readonly type: 'local'; readonly seed: Uint8Array }
  | {
      readonly startEpoch: bigint;
      readonly type: 'drand';
      readonly name: string;
      readonly chainInfo: DrandChainInfo;
      readonly relays: readonly DrandRelayConfig[];
    };

export interface NetworkVersionPoint {
  readonly height: bigint;
  readonly version: number;
}

export interface NetworkGenesis {
  readonly cid: CID;
  /** Unix seconds of epoch 0: the genesis block's timestamp (checked against it when the chain opens). */
  readonly timestamp: bigint;
  /** Absolute path of the genesis CAR; none when nodes join from a snapshot only. */
  readonly car: string | undefined;
}

export interface NetworkDefinition {
  /** The network name (gossip topics `/fil/blocks/<name>`, StateNetworkName). */
  readonly name: string;
  /** None for a bare preset (`--network mainnet|devnet` on a repo without a chain). */
  readonly genesis: NetworkGenesis | undefined;
  readonly paramsPreset: NetworkName;
  readonly minerPolicyPreset: NetworkName;
  /** The presets with the definition's block time, network version, chain id and miner policy applied. */
  readonly params: NetworkParams;
  readonly beacon: readonly BeaconPointDefinition[];
  readonly bootstrap: readonly string[];
  readonly networkVersions: readonly NetworkVersionPoint[];
}

/** The file name a repo keeps its network's definition under (as Lotus keeps its genesis in the repo). */
export const NETWORK_DEFINITION_FILE = 'network.json';

const FIELDS = [
  'Name',
  'Genesis',
  'Params',
  'BlockDelaySecs',
  'MinerPolicy',
  'NetworkVersions',
  'EthChainId',
  'Beacon',
  'Bootstrap',
] as const;

/** Collects every problem of a file before failing, so one run names all of them. */
class Problems {
  readonly list: string[] = [];

  add(field: string, message: string): undefined {
    this.list.push(`${field}: ${message}`);
    return undefined;
  }

  object(value: unknown, field: string): Record<string, unknown> | undefined {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return this.add(field, 'expected a JSON object');
  }

  keys(object: Record<string, unknown>, field: string, known: readonly string[]): void {
    for (const key of Object.keys(object)) {
      if (!known.includes(key)) this.add(`${field}${key}`, `unknown field (known: ${known.join(', ')})`);
    }
  }

  string(value: unknown, field: string): string | undefined {
    if (typeof value === 'string' && value !== '') return value;
    return this.add(field, 'expected a non-empty string');
  }

  integer(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
    return this.add(field, `expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }

  preset(value: unknown, field: string): NetworkName | undefined {
    if (typeof value === 'string' && Object.hasOwn(NETWORK_PRESETS, value)) return value as NetworkName;
    return this.add(field, `expected one of ${Object.keys(NETWORK_PRESETS).join(', ')}, got ${JSON.stringify(value)}`);
  }

  array(value: unknown, field: string): unknown[] {
    if (Array.isArray(value)) return value;
    this.add(field, 'expected an array');
    return [];
  }
}

/**
 * Parses a definition's JSON. `baseDirectory` resolves a relative `Genesis.Car`; `source` names the
 * file in the error, which lists every bad field.
 */
export function parseNetworkDefinition(json: unknown, source: string, baseDirectory: string): NetworkDefinition {
  const p = new Problems();
  const root = p.object(json, '(top level)') ?? {};
  p.keys(root, '', FIELDS);
  const name = p.string(root.Name, 'Name');
  const genesis = parseGenesis(p, root.Genesis, baseDirectory);
  const paramsPreset = p.preset(root.Params, 'Params');
  const minerPolicyPreset = root.MinerPolicy === undefined ? paramsPreset : p.preset(root.MinerPolicy, 'MinerPolicy');
  const base = NETWORK_PRESETS[paramsPreset ?? 'mainnet'];
  const blockDelaySecs =
    root.BlockDelaySecs === undefined
      ? Number(base.blockDelaySecs)
      : p.integer(root.BlockDelaySecs, 'BlockDelaySecs', 1, 3600);
  const ethChainId =
    root.EthChainId === undefined ? base.eip155ChainId : p.integer(root.EthChainId, 'EthChainId', 1, 2 ** 32 - 1);
  const networkVersions = parseNetworkVersions(
    p,
    root.NetworkVersions ?? [{ Height: 0, Version: base.networkVersion }],
  );
  const beacon = parseBeacon(p, root.Beacon);
  const bootstrap = parseBootstrap(p, root.Bootstrap ?? []);
  if (p.list.length > 0) {
    throw new ConfigError(`network definition ${source} is invalid:\n  ${p.list.join('\n  ')}`);
  }
  const preset = NETWORK_PRESETS[paramsPreset!];
  return {
    name: name!,
    genesis,
    paramsPreset: paramsPreset!,
    minerPolicyPreset: minerPolicyPreset!,
    params: {
      ...preset,
      name: name!,
      blockDelaySecs: BigInt(blockDelaySecs!),
      eip155ChainId: ethChainId!,
      minerPolicy: NETWORK_PRESETS[minerPolicyPreset!].minerPolicy,
    },
    beacon,
    bootstrap,
    networkVersions,
  };
}

/** Absent: a network nodes cannot start a chain of (a preset); `ledger network create` writes it. */
function parseGenesis(p: Problems, value: unknown, baseDirectory: string): NetworkGenesis | undefined {
  if (value === undefined) return undefined;
  const genesis = p.object(value, 'Genesis');
  if (genesis === undefined) return undefined;
  p.keys(genesis, 'Genesis.', ['Cid', 'Timestamp', 'Car']);
  let cid: CID | undefined;
  const text = p.string(genesis.Cid, 'Genesis.Cid');
  if (text !== undefined) {
    try {
      cid = CID.parse(text);
    } catch (error) {
      p.add('Genesis.Cid', `not a CID: ${(error as Error).message}`);
    }
  }
  const timestamp = p.integer(genesis.Timestamp, 'Genesis.Timestamp', 0);
  const car = genesis.Car === undefined ? undefined : p.string(genesis.Car, 'Genesis.Car');
  if (cid === undefined || timestamp === undefined) return undefined;
  return {
    cid,
    timestamp: BigInt(timestamp),
    car: car === undefined ? undefined : isAbsolute(car) ? car : resolve(baseDirectory, car),
  };
}

/** This node implements one set of consensus rules, from genesis: the presets' network version. */
const SUPPORTED_NETWORK_VERSION = DEVNET_2K.networkVersion;

function parseNetworkVersions(p: Problems, value: unknown): NetworkVersionPoint[] {
  const points = p.array(value, 'NetworkVersions').map((entry, i) => {
    const field = `NetworkVersions[${i}]`;
    const object = p.object(entry, field) ?? {};
    p.keys(object, `${field}.`, ['Height', 'Version']);
    const height = p.integer(object.Height, `${field}.Height`, 0);
    const version = p.integer(object.Version, `${field}.Version`, 0);
    if (version !== undefined && version !== SUPPORTED_NETWORK_VERSION) {
      p.add(`${field}.Version`, `this node runs network version ${SUPPORTED_NETWORK_VERSION} only, got ${version}`);
    }
    return { height: BigInt(height ?? 0), version: version ?? SUPPORTED_NETWORK_VERSION };
  });
  if (points.length === 0) p.add('NetworkVersions', 'expected at least the version at height 0');
  else if (points[0]!.height !== 0n) p.add('NetworkVersions[0].Height', 'the schedule starts at height 0');
  for (let i = 1; i < points.length; i++) {
    if (points[i]!.height <= points[i - 1]!.height) p.add(`NetworkVersions[${i}].Height`, 'heights must increase');
  }
  return points;
}

/** Multiaddrs that name their peer (`…/p2p/<peer id>`): a node dials them at start. */
function parseBootstrap(p: Problems, value: unknown): string[] {
  return p.array(value, 'Bootstrap').flatMap((entry, i) => {
    const field = `Bootstrap[${i}]`;
    const text = p.string(entry, field);
    if (text === undefined) return [];
    let namesPeer: boolean;
    try {
      namesPeer = multiaddr(text)
        .getComponents()
        .some((component) => component.name === 'p2p');
    } catch (error) {
      return p.add(field, `not a multiaddr: ${(error as Error).message}`) ?? [];
    }
    return namesPeer ? [text] : (p.add(field, `${text} names no peer (…/p2p/<peer id>)`) ?? []);
  });
}

function parseBeacon(p: Problems, value: unknown): BeaconPointDefinition[] {
  const points = p.array(value, 'Beacon').flatMap((entry, i): BeaconPointDefinition[] => {
    const field = `Beacon[${i}]`;
    const object = p.object(entry, field);
    if (object === undefined) return [];
    const startEpoch = p.integer(object.StartEpoch, `${field}.StartEpoch`, 0);
    if (object.Type === 'local') {
      p.keys(object, `${field}.`, ['StartEpoch', 'Type', 'Seed']);
      const seedHex = p.string(object.Seed, `${field}.Seed`);
      let seed: Uint8Array | undefined;
      try {
        seed = seedHex === undefined ? undefined : fromHex(seedHex);
      } catch {
        p.add(`${field}.Seed`, 'expected hex');
      }
      return startEpoch === undefined || seed === undefined
        ? []
        : [{ startEpoch: BigInt(startEpoch), type: 'local', seed }];
    }
    if (object.Type === 'drand') {
      p.keys(object, `${field}.`, ['StartEpoch', 'Type', 'Name', 'ChainInfo', 'Relays']);
      const name = p.string(object.Name, `${field}.Name`);
      let chainInfo: DrandChainInfo | undefined;
      try {
        chainInfo = parseDrandChainInfo(object.ChainInfo, `${field}.ChainInfo`);
      } catch (error) {
        // Its message starts with the field's name already.
        p.list.push((error as Error).message);
      }
      const relays = p.array(object.Relays ?? [], `${field}.Relays`).flatMap((relay, j) => {
        const url = p.string(relay, `${field}.Relays[${j}]`);
        if (url !== undefined && !/^https?:\/\/[^/]/.test(url)) {
          return p.add(`${field}.Relays[${j}]`, `expected an http(s) URL, got ${url}`) ?? [];
        }
        return url === undefined ? [] : [{ url }];
      });
      if (startEpoch === undefined || name === undefined || chainInfo === undefined) return [];
      return [{ startEpoch: BigInt(startEpoch), type: 'drand', name, chainInfo, relays }];
    }
    p.add(`${field}.Type`, `expected "drand" or "local", got ${JSON.stringify(object.Type)}`);
    return [];
  });
  if (points.length === 0 && p.list.length === 0) p.add('Beacon', 'expected at least one beacon (from epoch 0)');
  if (points.length > 0 && points[0]!.startEpoch !== 0n)
    p.add('Beacon[0].StartEpoch', 'the schedule starts at epoch 0');
  for (let i = 1; i < points.length; i++) {
    if (points[i]!.startEpoch <= points[i - 1]!.startEpoch) p.add(`Beacon[${i}].StartEpoch`, 'epochs must increase');
    if (points[i]!.type === 'local')
      p.add(`Beacon[${i}].Type`, 'the local beacon can only serve a network from genesis');
  }
  return points;
}

/** Reads a definition file (relative `Genesis.Car` paths are relative to the file). */
export function readNetworkDefinitionFile(file: string): NetworkDefinition {
  const path = resolve(file);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read the network definition ${path}: ${(error as Error).message}`, { cause: error });
  }
  return parseNetworkDefinition(json, path, dirname(path));
}

/** drand's v1 chain info JSON (what relays serve at /info and Lotus pins). */
function drandChainInfoToJson(info: DrandChainInfo): Record<string, unknown> {
  return {
    public_key: toHex(info.publicKey),
    period: Number(info.periodSecs),
    genesis_time: Number(info.genesisTime),
    hash: toHex(info.hash),
    groupHash: toHex(info.groupHash),
    schemeID: info.schemeId,
    ...(info.beaconId === '' ? {} : { metadata: { beaconID: info.beaconId } }),
  };
}

/** The definition as its JSON file holds it; `car` is written as given (a path relative to the file). */
export function networkDefinitionToJson(definition: NetworkDefinition, car?: string): Record<string, unknown> {
  const { genesis, params } = definition;
  return {
    Name: definition.name,
    ...(genesis === undefined
      ? {}
      : {
          Genesis: {
            Cid: genesis.cid.toString(),
            Timestamp: Number(genesis.timestamp),
            ...((car ?? genesis.car) === undefined ? {} : { Car: car ?? genesis.car }),
          },
        }),
    Params: definition.paramsPreset,
    BlockDelaySecs: Number(params.blockDelaySecs),
    MinerPolicy: definition.minerPolicyPreset,
    NetworkVersions: definition.networkVersions.map((v) => ({ Height: Number(v.height), Version: v.version })),
    EthChainId: params.eip155ChainId,
    Beacon: definition.beacon.map((point) =>
      point.type === 'local'
        ? { StartEpoch: Number(point.startEpoch), Type: 'local', Seed: toHex(point.seed) }
        : {
            StartEpoch: Number(point.startEpoch),
            Type: 'drand',
            Name: point.name,
            ChainInfo: drandChainInfoToJson(point.chainInfo),
            Relays: point.relays.map((r) => r.url),
          },
    ),
    Bootstrap: [...definition.bootstrap],
  };
}

/** A devnet's `devnet.json` as a definition: the 2k presets, its block time, its local beacon. */
export function definitionFromDevnet(devnet: DevnetInfo, genesisCar: string | undefined): NetworkDefinition {
  return {
    name: devnet.networkName,
    genesis: { cid: devnet.genesisCid, timestamp: devnet.genesisTimestamp, car: genesisCar },
    paramsPreset: 'devnet',
    minerPolicyPreset: 'devnet',
    params: { ...DEVNET_2K, blockDelaySecs: devnet.blockDelaySecs },
    beacon: [{ startEpoch: 0n, type: 'local', seed: devnet.beaconSeed }],
    bootstrap: [],
    networkVersions: [{ height: 0n, version: DEVNET_2K.networkVersion }],
  };
}

/**
 * Filecoin mainnet's identity as far as this node uses it: its genesis CID and time (2020-08-24
 * 22:00 UTC), drand schedule and bootstrap peer (filecoin-project/lotus `build/bootstrap/mainnet.pi`),
 * with the mainnet presets. There is no genesis CAR: a mainnet-like node starts from a snapshot.
 */
const MAINNET_DEFINITION: NetworkDefinition = {
  name: 'testnetnet',
  genesis: {
    cid: CID.parse('bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2'),
    timestamp: 1_598_306_400n,
    car: undefined,
  },
  paramsPreset: 'mainnet',
  minerPolicyPreset: 'mainnet',
  params: MAINNET,
  beacon: FILECOIN_MAINNET_DRAND_SCHEDULE.map((point) => ({
    startEpoch: point.startEpoch,
    type: 'drand' as const,
    name: point.name,
    chainInfo: point.chainInfo,
    relays: point.relays,
  })),
  bootstrap: ['/dns/bootstrap.filecoin.chain.love/tcp/1235/p2p/12D3KooWBF8cpp65hp2u9LK5mh19x67ftAam84z9LsfaquTDSBpt'],
  networkVersions: [{ height: 0n, version: MAINNET.networkVersion }],
};

/** `--network devnet` on a repo without a devnet: the 2k presets, no chain (`ledger devnet` makes one). */
const DEVNET_PRESET_DEFINITION: NetworkDefinition = {
  name: 'devnet',
  genesis: undefined,
  paramsPreset: 'devnet',
  minerPolicyPreset: 'devnet',
  params: DEVNET_2K,
  beacon: [],
  bootstrap: [],
  networkVersions: [{ height: 0n, version: DEVNET_2K.networkVersion }],
};

export const BUILT_IN_NETWORKS: Readonly<Record<NetworkName, NetworkDefinition>> = {
  mainnet: MAINNET_DEFINITION,
  devnet: DEVNET_PRESET_DEFINITION,
};

/** A built-in name (`mainnet`, `devnet`) or the path of a definition file. */
export function resolveNetworkDefinition(nameOrFile: string): NetworkDefinition {
  if (Object.hasOwn(BUILT_IN_NETWORKS, nameOrFile)) return BUILT_IN_NETWORKS[nameOrFile as NetworkName];
  return readNetworkDefinitionFile(nameOrFile);
}
