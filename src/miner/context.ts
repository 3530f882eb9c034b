import type { AnyBeacon } from '../beacon/index.js';
import type { ChainStore, TipSetStates } from '../chain/index.js';
import type { NetworkParams } from '../params/index.js';
import type { Address, Signature } from '../types/index.js';

/** What block production reads: the chain, its states, the beacon and where the miner's sectors are. */
export interface MinerContext {
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  /** The network's beacon schedule (or its one source). */
  readonly beacon: AnyBeacon;
  readonly params: NetworkParams;
  /** The directory holding the miner's sealed sector files (the devnet's pre-seal directory). */
  readonly sectorDirectory: string;
}

/** Signs with a key of the node's wallet (the miner library never holds keys). */
export type SignFunction = (address: Address, data: Uint8Array) => Promise<Signature>;
