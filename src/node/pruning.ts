/**
 * The node's pruning (issue 23, docs/operations.md): one ChainPruner per chain, which `ChainPrune`
 * runs by hand, and — on a non-archival node — the background schedule. `[Chainstore.Prune]
 * Enable` unset means archival on devnets (a devnet's whole history is usually what it is for) and
 * pruned on other networks.
 */
import type { Logger } from 'pino';
import { ChainPruner } from '../chain/prune.js';
import { PruneSchedule } from '../chain/prune-schedule.js';
import type { ChainServices } from './chain-services.js';
import type { NodeConfig } from './config.js';

export interface NodePruning {
  readonly pruner: ChainPruner;
  /** Absent on an archival node. */
  readonly schedule: PruneSchedule | undefined;
  stop(): Promise<void>;
}

export function startPruning(services: ChainServices, config: NodeConfig, logger: Logger): NodePruning {
  const log = logger.child({ module: 'prune' });
  const { enable, window, intervalEpochs } = config.chainstore.prune;
  const pruner = new ChainPruner(services.chain, services.db, { logger: log, window: BigInt(window) });
  const schedule =
    (enable ?? config.chain.network !== 'devnet')
      ? new PruneSchedule(services.chain, pruner, {
          window: BigInt(window),
          intervalEpochs: BigInt(intervalEpochs),
          logger: log,
        })
      : undefined;
  log.info(schedule === undefined ? { archival: true } : { window, intervalEpochs }, 'state pruning');
  return { pruner, schedule, stop: async () => schedule?.stop() };
}
