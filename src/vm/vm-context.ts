import type { CID } from 'multiformats/cid';
import type { NetworkParams } from '../params/index.js';

/** What every message of one VM (one tipset's execution) runs against. */
export interface VmContext {
  readonly networkParams: NetworkParams;
  readonly epoch: bigint;
  /** Unix seconds: the tipset's minimum timestamp (or the null round's nominal time). */
  readonly timestamp: bigint;
  readonly baseFee: bigint;
  /** Reported to actors (pledge calculations); computed once per VM, as Lotus does. */
  readonly circulatingSupply: bigint;
  /** Record execution traces (StateReplay, StateCompute); off for plain syncing. */
  readonly tracing: boolean;
  /**
   * The chain's randomness as of the tipset's parent chain (`chain/randomness.ts`). Absent only
   * where there is no chain (genesis building): an actor asking for randomness there fails the VM.
   */
  readonly randomness?: RandomnessSource | undefined;
}

/**
 * What the FVM's externs give the randomness syscalls (ref-fvm `fvm/src/externs`
 * `get_chain_randomness` / `get_beacon_randomness`): the 32-byte digest a round reads, which the
 * runtime then draws from with the caller's tag and entropy. Throws when the chain cannot answer.
 */
export interface RandomnessSource {
  /** blake2b256 of the min-ticket block's VRF proof at `round` (Lotus `GetChainRandomness`). */
  ticketDigest(round: bigint): Uint8Array;
  /** blake2b256 of the beacon entry `round` reads (Lotus `GetBeaconRandomness`). */
  beaconDigest(round: bigint): Uint8Array;
  /** The key CID of the tipset at `epoch`, or the last one before it at a null round (Lotus `GetTipsetCid`). */
  tipsetCid?(epoch: bigint): CID;
}
