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
}
