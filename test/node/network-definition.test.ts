/**
 * Network definitions: a file's every bad field named in one error, the built-in names, a devnet's
 * devnet.json as a definition, and the JSON written back read as the same definition.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CID } from 'multiformats/cid';
import { ConfigError } from '../../src/node/errors.js';
import {
  definitionFromDevnet,
  networkDefinitionToJson,
  parseNetworkDefinition,
  resolveNetworkDefinition,
} from '../../src/node/network-definition.js';
import { DEVNET_2K, MAINNET } from '../../src/params/index.js';
import { Address } from '../../src/types/index.js';
import { drandVectors } from '../beacon/drand-relay-server.js';

const GENESIS = 'bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2';
const PEER = '/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWBF8cpp65hp2u9LK5mh19x67ftAam84z9LsfaquTDSBpt';

const valid = {
  Name: 'testnet-1',
  Genesis: { Cid: GENESIS, Timestamp: 1_700_000_000, Car: 'genesis.car' },
  Params: 'devnet',
  BlockDelaySecs: 6,
  MinerPolicy: 'mainnet',
  NetworkVersions: [{ Height: 0, Version: 28 }],
  EthChainId: 4242,
  Beacon: [
    { StartEpoch: 0, Type: 'local', Seed: 'ab'.repeat(32) },
    {
      StartEpoch: 100,
      Type: 'drand',
      Name: 'quicknet',
      ChainInfo: drandVectors.networks.quicknet!.chain_info,
      Relays: ['https://api.drand.sh'],
    },
  ],
  Bootstrap: [PEER],
};

function problems(json: unknown): string[] {
  try {
    parseNetworkDefinition(json, 'net.json', '/nets');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const [first, ...rest] = (error as Error).message.split('\n');
    expect(first).toBe('network definition net.json is invalid:');
    return rest.map((line) => line.trim());
  }
  throw new Error('the definition was accepted');
}

describe('network definitions', () => {
  test('a definition file: presets with its block time, policy, chain id, beacon schedule and bootstrap peers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-netdef-'));
    try {
      writeFileSync(join(dir, 'net.json'), JSON.stringify(valid));
      const def = resolveNetworkDefinition(join(dir, 'net.json'));
      expect(def.name).toBe('testnet-1');
      expect(def.genesis).toEqual({
        cid: CID.parse(GENESIS),
        timestamp: 1_700_000_000n,
        car: join(dir, 'genesis.car'),
      });
      expect(def.params).toEqual({
        ...DEVNET_2K,
        name: 'testnet-1',
        blockDelaySecs: 6n,
        eip155ChainId: 4242,
        minerPolicy: MAINNET.minerPolicy,
      });
      expect(def.beacon.map((p) => [p.startEpoch, p.type])).toEqual([
        [0n, 'local'],
        [100n, 'drand'],
      ]);
      expect(def.bootstrap).toEqual([PEER]);
      // Written back and read again: the same definition.
      const again = parseNetworkDefinition(networkDefinitionToJson(def, 'genesis.car'), 'again', dir);
      expect(again).toEqual(def);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every bad field is named in one error', () => {
    expect(
      problems({
        ...valid,
        Name: '',
        Genesis: { Cid: 'not-a-cid', Timestamp: -1, Extra: 1 },
        Params: 'calibnet',
        BlockDelaySecs: 0,
        NetworkVersions: [{ Height: 5, Version: 21 }],
        EthChainId: 'x',
        Beacon: [
          { StartEpoch: 0, Type: 'drand', Name: 'q', ChainInfo: { public_key: 'zz' }, Relays: ['ftp://x'] },
          { StartEpoch: 0, Type: 'sundial' },
        ],
        Bootstrap: ['/ip4/1.2.3.4/tcp/1', 'nonsense'],
        Color: 'blue',
      }),
    ).toEqual([
      'Color: unknown field (known: Name, Genesis, Params, BlockDelaySecs, MinerPolicy, NetworkVersions, EthChainId, Beacon, Bootstrap)',
      'Name: expected a non-empty string',
      'Genesis.Extra: unknown field (known: Cid, Timestamp, Car)',
      expect.stringMatching(/^Genesis\.Cid: not a CID: /),
      'Genesis.Timestamp: expected an integer from 0 to 9007199254740991, got -1',
      'Params: expected one of mainnet, devnet, got "calibnet"',
      'BlockDelaySecs: expected an integer from 1 to 3600, got 0',
      'EthChainId: expected an integer from 1 to 4294967295, got "x"',
      'NetworkVersions[0].Version: this node runs network version 28 only, got 21',
      'NetworkVersions[0].Height: the schedule starts at height 0',
      'Beacon[0].ChainInfo: field "public_key" is malformed',
      'Beacon[0].Relays[0]: expected an http(s) URL, got ftp://x',
      'Beacon[1].Type: expected "drand" or "local", got "sundial"',
      'Bootstrap[0]: /ip4/1.2.3.4/tcp/1 names no peer (…/p2p/<peer id>)',
      expect.stringMatching(/^Bootstrap\[1\]: not a multiaddr: /),
    ]);
  });

  test('a schedule out of order, a late local beacon, and no beacon at all are refused', () => {
    const local = { Type: 'local', Seed: '00' };
    expect(problems({ ...valid, Beacon: [] })).toEqual(['Beacon: expected at least one beacon (from epoch 0)']);
    expect(problems({ ...valid, Beacon: [{ ...local, StartEpoch: 3 }] })).toEqual([
      'Beacon[0].StartEpoch: the schedule starts at epoch 0',
    ]);
    expect(problems({ ...valid, Beacon: [valid.Beacon[0], { ...local, StartEpoch: 0 }] })).toEqual([
      'Beacon[1].StartEpoch: epochs must increase',
      'Beacon[1].Type: the local beacon can only serve a network from genesis',
    ]);
    expect(problems('[]')).toEqual(expect.arrayContaining(['(top level): expected a JSON object']));
  });

  test('built-in names: mainnet (Filecoin genesis, drand schedule, 30 s) and the devnet presets', () => {
    const mainnet = resolveNetworkDefinition('mainnet');
    expect(mainnet.params).toBe(MAINNET);
    expect(mainnet.genesis?.cid.toString()).toBe(GENESIS);
    expect(mainnet.genesis?.car).toBeUndefined();
    expect(mainnet.beacon.map((p) => (p.type === 'drand' ? `${p.startEpoch}:${p.name}` : ''))).toEqual([
      '0:incentinet',
      '51000:mainnet',
      '3855480:quicknet',
    ]);
    const devnet = resolveNetworkDefinition('devnet');
    expect(devnet.params).toBe(DEVNET_2K);
    expect(devnet.genesis).toBeUndefined();
    expect(() => resolveNetworkDefinition('/no/such/net.json')).toThrow(
      /^cannot read the network definition \/no\/such\/net\.json: ENOENT/,
    );
  });

  test("a devnet's devnet.json is a definition: 2k presets, its block time, its local beacon", () => {
    const def = definitionFromDevnet(
      {
        networkName: 'localnet-x',
        genesisCid: CID.parse(GENESIS),
        genesisTimestamp: 1_700_000_000n,
        blockDelaySecs: 2n,
        miner: Address.newId(1000n),
        worker: Address.newId(1001n),
        sectorDirectory: '/repo/sectors',
        beaconSeed: new Uint8Array(32).fill(7),
        accounts: [],
        ethAccounts: [],
      },
      '/repo/genesis.car',
    );
    const again = parseNetworkDefinition(networkDefinitionToJson(def), 'devnet', '/repo');
    expect(again).toEqual({ ...def, params: { ...def.params, name: 'localnet-x' } });
    expect(again.params.blockDelaySecs).toBe(2n);
    expect(again.beacon).toEqual([{ startEpoch: 0n, type: 'local', seed: new Uint8Array(32).fill(7) }]);
  });
});
