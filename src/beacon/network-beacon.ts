/**
 * A network's beacons over its epochs (filecoin-project/lotus `chain/beacon/beacon.go` Schedule and
 * BeaconForEpoch): each point names the first epoch a source serves, drand relays (`DrandBeacon`) or
 * the devnet's local beacon. Block production asks the source of the epoch it mines; validation
 * verifies a block's entries against the source of the block's epoch.
 */
import type { BeaconSchedule } from '../chain/index.js';
import type { BeaconEntry } from '../types/index.js';
import type { BeaconSource } from './beacon-source.js';
import { type ChainClock, type DrandNetwork, maxBeaconRoundForEpoch } from './drand-network.js';
import { checkDrandSchedule, pointForEpoch } from './drand-schedule.js';
import { verifyBeaconEntry } from './verify-entry.js';

export interface BeaconPoint {
  readonly startEpoch: bigint;
  readonly source: BeaconSource;
}

export class NetworkBeacon {
  readonly points: readonly BeaconPoint[];

  /** Refuses an empty schedule, one not starting at epoch 0, and epochs out of order. */
  constructor(points: readonly BeaconPoint[]) {
    checkDrandSchedule(points.map((p) => ({ startEpoch: p.startEpoch, name: p.source.network.name })));
    this.points = points;
  }

  /** A schedule with one source from genesis on (a devnet's). */
  static single(source: BeaconSource): NetworkBeacon {
    return new NetworkBeacon([{ startEpoch: 0n, source }]);
  }

  /** The source serving `epoch`: the last one starting at or before it (Lotus `BeaconForEpoch`). */
  forEpoch(epoch: bigint): BeaconSource {
    return pointForEpoch(this.points, epoch).source;
  }

  /** The chain's epoch-to-round mapping: each epoch's round on the source serving it (`chain/randomness.ts`). */
  roundSchedule(clock: ChainClock): BeaconSchedule {
    return (epoch) => maxBeaconRoundForEpoch(this.forEpoch(epoch).network, clock, epoch);
  }
}

/** What block production and validation accept: one source, or a schedule of them. */
export type AnyBeacon = BeaconSource | NetworkBeacon;

export function beaconForEpoch(beacon: AnyBeacon, epoch: bigint): BeaconSource {
  return beacon instanceof NetworkBeacon ? beacon.forEpoch(epoch) : beacon;
}

/**
 * True iff `entry` is the source's signature for its round; a chained network needs the entry
 * before it. A source that caches verified entries (`DrandBeacon`) answers from its cache.
 */
export function verifySourceEntry(
  source: BeaconSource | DrandNetwork,
  entry: BeaconEntry,
  previous?: BeaconEntry,
): boolean {
  if ('verifyEntry' in source && typeof source.verifyEntry === 'function') return source.verifyEntry(entry, previous);
  const network = 'entry' in source ? source.network : source;
  try {
    return verifyBeaconEntry(network, entry, previous);
  } catch {
    return false;
  }
}
