/**
 * The window PoSt scheduler's chain API over the node's in-process services: the sealing
 * pipeline's (`nodeSealingChainApi`) plus the miner's proving state, read from the head's parent
 * state with the state queries the RPC methods use (`src/vm/queries.ts`).
 */
import type { ChainStore } from '../../chain/index.js';
import type { MinerPolicy } from '../../params/index.js';
import { StateTree } from '../../state/index.js';
import { Address } from '../../types/index.js';
import type { Deadline } from '../../vm/actors/miner/deadline.js';
import { newDeadlineInfoFromOffsetAndEpoch } from '../../vm/actors/miner/deadline-info.js';
import { minerAllSectors, minerDeadlines, minerInfo, minerPartitions, minerState } from '../../vm/index.js';
import { type NodeSealingChainOptions, nodeSealingChainApi } from '../sealing/node-chain-api.js';
import type { ProvingView, WindowPostChainApi } from './chain-api.js';

/** A miner's proving state in the parent state of the chain's head. */
export function headProvingView(chain: ChainStore, policy: MinerPolicy, miner: Address): ProvingView {
  const head = chain.head();
  const tree = StateTree.load(chain.blockstore, head.parentStateRoot);
  const minerId = tree.lookupId(miner);
  if (minerId === undefined) throw new Error(`miner ${miner} not found in the state of the head ${head.key}`);
  const idAddress = Address.newId(minerId);
  const state = minerState(tree, idAddress);
  const info = minerInfo(tree, idAddress);
  let deadlines: Deadline[] | undefined;
  return {
    height: head.height,
    minerId,
    worker: info.worker,
    windowPoStProofType: info.windowPoStProofType,
    sectorSize: info.sectorSize,
    // The deadline as the actor computes it at an epoch (builtin-actors `State::deadline_info`), not
    // Lotus's recorded index (`RecordedDeadlineInfo`), which is only as current as the last cron.
    deadline: newDeadlineInfoFromOffsetAndEpoch(policy, state.provingPeriodStart, head.height),
    partitions: (index) => minerPartitions(tree, idAddress, index),
    postedPartitions(index) {
      deadlines ??= minerDeadlines(tree, idAddress);
      const deadline = deadlines[Number(index)];
      if (deadline === undefined) throw new Error(`miner ${miner} has no deadline ${index}`);
      return deadline.partitionsPoSted;
    },
    sectors: (selection) => minerAllSectors(tree, idAddress, selection),
  };
}

export function nodeWindowPostChainApi(options: NodeSealingChainOptions): WindowPostChainApi {
  return {
    ...nodeSealingChainApi(options),
    async stateMinerProvingView(miner) {
      return headProvingView(options.chain, options.params.minerPolicy, miner);
    },
  };
}
