import type { BeaconSchedule } from '../chain/index.js';

/**
 * A drand network as Filecoin consumes it (lotus chain/beacon/drand): its public key, period and
 * genesis time, and which of drand's two schemes it signs with.
 */
export type DrandScheme = 'chained' | 'unchained';

export interface DrandNetwork {
  readonly name: string;
  /** chained: 48-byte G1 key (min-pk); unchained: 96-byte G2 key (min-sig). */
  readonly publicKey: Uint8Array;
  readonly periodSecs: bigint;
  /** Unix time of round 1. */
  readonly genesisTime: bigint;
  readonly scheme: DrandScheme;
}

/** How a Filecoin chain maps its epochs onto the beacon's rounds. */
export interface ChainClock {
  /** The Filecoin genesis block's timestamp. */
  readonly genesisTime: bigint;
  readonly blockDelaySecs: bigint;
  readonly networkVersion: number;
}

/**
 * The latest round the beacon has published at Unix time `unixSecs` (round 1 at its genesis
 * time, one more every period); 0 before its genesis.
 */
export function latestBeaconRound(network: DrandNetwork, unixSecs: bigint): bigint {
  if (unixSecs < network.genesisTime) return 0n;
  return (unixSecs - network.genesisTime) / network.periodSecs + 1n;
}

/**
 * The latest beacon round available when epoch `epoch` begins (Lotus `MaxBeaconRoundForEpoch`):
 * the round published by the start of the previous epoch's time slot. Network versions ≤ 15 used
 * the round one earlier.
 */
export function maxBeaconRoundForEpoch(network: DrandNetwork, clock: ChainClock, epoch: bigint): bigint {
  const latestTs = epoch * clock.blockDelaySecs + clock.genesisTime - clock.blockDelaySecs;
  if (clock.networkVersion <= 15) return (latestTs - network.genesisTime) / network.periodSecs;
  if (latestTs < network.genesisTime) return 1n;
  return (latestTs - network.genesisTime) / network.periodSecs + 1n;
}

/** The chain's epoch-to-round mapping for beacon randomness (`chain/randomness.ts`). */
export function beaconSchedule(network: DrandNetwork, clock: ChainClock): BeaconSchedule {
  return (epoch) => maxBeaconRoundForEpoch(network, clock, epoch);
}
