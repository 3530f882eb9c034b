export type { BeaconSource } from './beacon-source.js';
export {
  beaconSchedule,
  type ChainClock,
  type DrandNetwork,
  type DrandScheme,
  latestBeaconRound,
  maxBeaconRoundForEpoch,
} from './drand-network.js';
export { LocalBeacon } from './local-beacon.js';
export { beaconMessage, verifyBeaconEntry } from './verify-entry.js';
