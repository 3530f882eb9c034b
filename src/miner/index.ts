/**
 * Block production (Lotus `miner/` and the MinerGetBaseInfo / MinerCreateBlock API): the mining
 * base, the election with its winning PoSt, block creation. The mining loop (`mining-loop.ts`)
 * schedules them; the node wires them to the wallet, which signs. `sealing/` seals new
 * committed-capacity sectors.
 */
export {
  checkBaseInfoRound,
  getMiningBaseInfo,
  MAX_BASE_INFO_EPOCHS_AFTER_BASE,
  type MiningBaseInfo,
  type MiningBaseInfoJson,
  miningBaseInfoToLotusJson,
} from './base-info.js';
export type { MinerContext, SignFunction } from './context.js';
export { type BlockTemplate, blockTemplateFromLotusJson, createBlock } from './create-block.js';
export { attemptElection, type ElectionWin, winningBlockTemplate } from './election.js';
export { MinerError, MinerErrorCode } from './errors.js';
export {
  type NodeSealingChainOptions,
  nodeSealingChainApi,
  type SealingChainApi,
  SealingPipeline,
  type SealingPipelineOptions,
  type SealingSector,
  SectorState,
} from './sealing/index.js';
