/**
 * Which drand network serves which epochs, as data (filecoin-project/lotus `build/buildconstants`
 * DrandSchedule, and `chain/beacon/beacon.go` BeaconForEpoch): a list of points, each the first
 * epoch a network serves, its chain info and the relays to ask. Filecoin mainnet moved from
 * incentinet to drand mainnet at the Smoke upgrade and to quicknet at Phoenix (FIP-0063).
 */
import type { BeaconSchedule } from '../chain/index.js';
import { InvalidArgumentError } from '../utils/errors.js';
import { DrandBeacon, type DrandBeaconOptions } from './drand-beacon.js';
import { type DrandChainInfo, parseDrandChainInfo } from './drand-chain-info.js';
import { type ChainClock, maxBeaconRoundForEpoch } from './drand-network.js';
import type { DrandRelayConfig } from './drand-relay.js';

export interface DrandPoint {
  readonly startEpoch: bigint;
  /** The drand network's name (`quicknet`), for logs and errors. */
  readonly name: string;
  readonly chainInfo: DrandChainInfo;
  /** None for a network only kept to verify old entries (Lotus keeps incentinet that way). */
  readonly relays: readonly DrandRelayConfig[];
}

export type DrandSchedule = readonly DrandPoint[];

/** Refuses an empty schedule, one that does not start at epoch 0, and epochs out of order. */
export function checkDrandSchedule(schedule: readonly { readonly startEpoch: bigint; readonly name: string }[]): void {
  if (schedule.length === 0) throw new InvalidArgumentError('a drand schedule needs at least one network');
  if (schedule[0]!.startEpoch !== 0n) {
    throw new InvalidArgumentError(`a drand schedule starts at epoch 0, not ${schedule[0]!.startEpoch}`);
  }
  for (let i = 1; i < schedule.length; i++) {
    if (schedule[i]!.startEpoch <= schedule[i - 1]!.startEpoch) {
      throw new InvalidArgumentError(
        `drand schedule epochs must increase: ${schedule[i]!.name} starts at ${schedule[i]!.startEpoch}, after ${schedule[i - 1]!.name} at ${schedule[i - 1]!.startEpoch}`,
      );
    }
  }
}

/** The point serving `epoch`: the last one starting at or before it (Lotus `BeaconForEpoch`). */
export function pointForEpoch<T extends { readonly startEpoch: bigint }>(points: readonly T[], epoch: bigint): T {
  for (let i = points.length - 1; i >= 0; i--) if (epoch >= points[i]!.startEpoch) return points[i]!;
  if (points[0] === undefined) throw new InvalidArgumentError('a beacon schedule needs at least one network');
  return points[0];
}

/** A schedule's beacons, one per point, sharing the store and the client options. */
export class DrandBeacons {
  readonly points: readonly { readonly startEpoch: bigint; readonly beacon: DrandBeacon }[];

  constructor(schedule: DrandSchedule, options: Omit<DrandBeaconOptions, 'name' | 'chainInfo' | 'relays'> = {}) {
    checkDrandSchedule(schedule);
    this.points = schedule.map((point) => ({
      startEpoch: point.startEpoch,
      beacon: new DrandBeacon({ ...options, name: point.name, chainInfo: point.chainInfo, relays: point.relays }),
    }));
  }

  beaconForEpoch(epoch: bigint): DrandBeacon {
    return pointForEpoch(this.points, epoch).beacon;
  }

  /** The chain's epoch-to-round mapping: each epoch's round on the network serving it (`chain/randomness.ts`). */
  roundSchedule(clock: ChainClock): BeaconSchedule {
    return (epoch) => maxBeaconRoundForEpoch(this.beaconForEpoch(epoch).network, clock, epoch);
  }
}

/** The drand chains Filecoin mainnet has used, as Lotus pins them (`build/buildconstants/drand.go`). */
export const DRAND_CHAINS = {
  incentinet: parseDrandChainInfo(
    {
      public_key: '8cad0c72c606ab27d36ee06de1d5b2db1faf92e447025ca37575ab3a8aac2eaae83192f846fc9e158bc738423753d000',
      period: 30,
      genesis_time: 1595873820,
      hash: '80c8b872c714f4c00fdd3daa465d5514049f457f01f85a4caf68cdcd394ba039',
      groupHash: 'd9406aaed487f7af71851b4399448e311f2328923d454e971536c05398ce2d9b',
    },
    'drand incentinet',
  ),
  mainnet: parseDrandChainInfo(
    {
      public_key: '868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a569937c529eeda66c7293784a9402801af31',
      period: 30,
      genesis_time: 1595431050,
      hash: '8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce',
      groupHash: '176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a',
    },
    'drand mainnet',
  ),
  quicknet: parseDrandChainInfo(
    {
      public_key:
        '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a',
      period: 3,
      genesis_time: 1692803367,
      hash: '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971',
      groupHash: 'f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e',
      schemeID: 'bls-unchained-g1-rfc9380',
      metadata: { beaconID: 'quicknet' },
    },
    'drand quicknet',
  ),
} as const;

/** drand's public HTTP relays for quicknet (Lotus `DrandConfigs[DrandQuicknet].Servers`). */
export const DRAND_PUBLIC_RELAYS: readonly DrandRelayConfig[] = [
  { url: 'https://api.drand.sh' },
  { url: 'https://api2.drand.sh' },
  { url: 'https://api3.drand.sh' },
  { url: 'https://drand.cloudflare.com' },
  { url: 'https://api.drand.secureweb3.com:6875' },
];

/**
 * Filecoin mainnet's schedule: incentinet from genesis, drand mainnet from the Smoke upgrade
 * (51000), quicknet from Phoenix (3855480). Only quicknet is fetched; the older two verify history.
 */
export const FILECOIN_MAINNET_DRAND_SCHEDULE: DrandSchedule = [
  { startEpoch: 0n, name: 'incentinet', chainInfo: DRAND_CHAINS.incentinet, relays: [] },
  { startEpoch: 51_000n, name: 'mainnet', chainInfo: DRAND_CHAINS.mainnet, relays: [] },
  { startEpoch: 3_855_480n, name: 'quicknet', chainInfo: DRAND_CHAINS.quicknet, relays: DRAND_PUBLIC_RELAYS },
];
