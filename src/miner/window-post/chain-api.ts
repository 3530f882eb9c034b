/**
 * What the window PoSt scheduler needs from the chain: the sealing pipeline's chain API (head,
 * head changes, randomness, miner info, MpoolPushMessage) plus one read of the miner's proving
 * state at the head, taken from a single state root so every decision of one head change agrees
 * with itself (Lotus reads `StateMinerProvingDeadline`, `StateMinerPartitions` and
 * `StateMinerSectors` at one tipset key: filecoin-project/lotus `storage/wdpost/wdpost_run.go`).
 */
import type { BitField } from '../../ipld/index.js';
import type { Address } from '../../types/index.js';
import type { DeadlineInfo } from '../../vm/actors/miner/deadline-info.js';
import type { Partition } from '../../vm/actors/miner/partition.js';
import type { SectorOnChainInfo } from '../../vm/actors/miner/state.js';
import type { SealingChainApi } from '../sealing/chain-api.js';

/** A miner's proving state in the head's parent state. */
export interface ProvingView {
  /** The head's height: the epoch the next message executes after is `height + 1` at the earliest. */
  readonly height: bigint;
  readonly minerId: bigint;
  readonly worker: Address;
  readonly windowPoStProofType: bigint;
  readonly sectorSize: bigint;
  /** The deadline the head's height falls in (Lotus `StateMinerProvingDeadline` once the cron is current). */
  readonly deadline: DeadlineInfo;
  /** The partitions of deadline `index`, in order (Lotus `StateMinerPartitions`). */
  partitions(index: bigint): Partition[];
  /** The partitions of deadline `index` proven in its current challenge window (`PartitionsPoSted`). */
  postedPartitions(index: bigint): BitField;
  /** The sectors of `selection`, in ascending order (Lotus `StateMinerSectors`). */
  sectors(selection: BitField): SectorOnChainInfo[];
}

export type WindowPostChainApi = Pick<
  SealingChainApi,
  'chainNotify' | 'stateGetRandomnessFromTickets' | 'stateGetRandomnessFromBeacon' | 'mpoolPushMessage'
> & {
  /** The miner's proving state at the head. */
  stateMinerProvingView(miner: Address): Promise<ProvingView>;
};
