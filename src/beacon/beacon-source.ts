import type { BeaconEntry } from '../types/index.js';
import type { DrandNetwork } from './drand-network.js';

/**
 * A node's random beacon: where the entries for the blocks it mines come from, and the network
 * every entry on chain is verified against. The devnet's is `LocalBeacon`; networks that use drand
 * have `DrandBeacon` (docs/beacon.md).
 */
export interface BeaconSource {
  readonly network: DrandNetwork;
  /** The entry of `round`; may wait until the round is published (`signal` ends the wait). */
  entry(round: bigint, signal?: AbortSignal): BeaconEntry | Promise<BeaconEntry>;
  /** Verifies an entry (a chained network needs the one before); absent: verified against `network`'s key. */
  verifyEntry?(entry: BeaconEntry, previous?: BeaconEntry): boolean;
}
