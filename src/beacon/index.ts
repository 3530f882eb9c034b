export type { BeaconSource } from './beacon-source.js';
export { DrandBeacon, type DrandBeaconOptions } from './drand-beacon.js';
export {
  type DrandChainInfo,
  drandChainHash,
  drandNetworkOf,
  parseDrandChainInfo,
  sameDrandChain,
} from './drand-chain-info.js';
export { DrandClient, type DrandClientOptions, type VerifiedDrandEntry } from './drand-client.js';
export {
  beaconSchedule,
  type ChainClock,
  type DrandNetwork,
  type DrandScheme,
  latestBeaconRound,
  maxBeaconRoundForEpoch,
} from './drand-network.js';
export { DrandHttpRelay, type DrandRelayConfig, type DrandRoundAnswer } from './drand-relay.js';
export {
  checkDrandSchedule,
  DRAND_CHAINS,
  DRAND_PUBLIC_RELAYS,
  DrandBeacons,
  type DrandPoint,
  type DrandSchedule,
  FILECOIN_MAINNET_DRAND_SCHEDULE,
  pointForEpoch,
} from './drand-schedule.js';
export { DrandChainInfoError, DrandRelayError, type DrandRelayFailure, DrandUnavailableError } from './errors.js';
export { LocalBeacon } from './local-beacon.js';
export {
  type AnyBeacon,
  type BeaconPoint,
  beaconForEpoch,
  NetworkBeacon,
  verifySourceEntry,
} from './network-beacon.js';
export { beaconMessage, verifyBeaconEntry } from './verify-entry.js';
