/**
 * Block production wired from its parts: the validator of `src/consensus` behind the block intake
 * of `src/sync` (the one way into the chain, which sync, gossip and SyncSubmitBlock share), and the
 * election and block creation of `src/miner`, signing with the node wallet's worker key, feeding the
 * mining loop (and MinerGetBaseInfo / MinerCreateBlock over RPC, which use the same functions).
 */
import type { Logger } from 'pino';
import { BlockValidator, SlashFilter } from '../consensus/index.js';
import {
  attemptElection,
  type BlockTemplate,
  checkBaseInfoRound,
  createBlock,
  getMiningBaseInfo,
  type MinerContext,
  miningBaseInfoToLotusJson,
} from '../miner/index.js';
import { type BlockMessageSource, MiningLoop } from '../miner/mining-loop.js';
import type { MiningContext } from '../rpc/index.js';
import { BlockIntake } from '../sync/index.js';
import type { Address, FullBlock, Signature } from '../types/index.js';
import type { Wallet } from '../wallet/index.js';
import type { ChainServices } from './chain-services.js';

export interface Mining {
  readonly validator: BlockValidator;
  /** Where every block enters the chain; the network services share it. */
  readonly intake: BlockIntake;
  /** What MinerGetBaseInfo and MinerCreateBlock call. */
  readonly rpc: MiningContext;
  /**
   * A mining loop for one miner whose worker key is in the wallet (`local-miners.ts` runs one per
   * miner); its winning PoSt reads the sealed sectors in `sectorDirectory`.
   */
  miningLoop(miner: Address, sectorDirectory: string): MiningLoop;
}

export function createMining(input: {
  services: ChainServices;
  wallet: Wallet;
  logger: Logger;
  messages?: BlockMessageSource | undefined;
  /** Each block the loop added to the chain (the network gossips it). */
  onBlock?: ((block: FullBlock) => void) | undefined;
  /** Each block validation run: its duration and, for an invalid block, the error (the node's metrics). */
  onBlockValidated?: ((seconds: number, error: unknown) => void) | undefined;
}): Mining {
  const { services, wallet, logger } = input;
  const { chain, states, beacon, params, devnet } = services;
  const validator = new BlockValidator({
    chain,
    states,
    beacon,
    params,
    logger,
    onValidated: input.onBlockValidated,
  });
  const intake = new BlockIntake({ chain, validator, logger: logger.child({ module: 'intake' }) });
  const ctx: MinerContext = { chain, states, beacon, params, sectorDirectory: devnet?.sectorDirectory ?? '' };
  // The wallet signs synchronously; the miner library takes an async signer so a remote one fits too.
  const sign = async (address: Address, data: Uint8Array): Promise<Signature> => wallet.sign(address, data);
  const build = (template: BlockTemplate) => createBlock(ctx, template, sign);
  const slashFilter = new SlashFilter(services.db.chainIndex);
  const miningLoop = (miner: Address, sectorDirectory: string) =>
    new MiningLoop({
      miner,
      chain,
      blockDelaySecs: params.blockDelaySecs,
      propagationDelaySecs: params.propagationDelaySecs,
      elect: (base, round) => attemptElection({ ...ctx, sectorDirectory }, miner, base, round, sign),
      createBlock: build,
      intake,
      messages: input.messages,
      slashFilter,
      ...(input.onBlock === undefined ? {} : { onBlock: input.onBlock }),
      logger: logger.child({ module: 'miner', miner: miner.toString() }),
    });
  return {
    validator,
    intake,
    miningLoop,
    rpc: {
      baseInfo: async (miner, round, base, signal) => {
        checkBaseInfoRound(ctx, round, base, Date.now());
        const info = await getMiningBaseInfo(ctx, miner, round, base, signal);
        return info === null ? null : miningBaseInfoToLotusJson(info);
      },
      createBlock: build,
    },
  };
}
