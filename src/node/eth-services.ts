/**
 * The Ethereum JSON-RPC's hash index on a node with a chain: the indexer follows head changes
 * and the message pool (delegated messages pushed or gossiped are found by hash at once), and the
 * RPC context gets the index the eth_* methods read.
 */
import type { Logger } from 'pino';
import { EthIndexer } from '../chain/index.js';
import { type MessagePool, MpoolUpdateType } from '../mpool/index.js';
import type { EthContext } from '../rpc/index.js';
import type { ChainServices } from './chain-services.js';

export interface EthServices {
  readonly context: EthContext;
  stop(): void;
}

/** Follows the chain and the pool, and indexes the chain below the head in the background. */
export async function startEthServices(input: {
  services: Pick<ChainServices, 'db' | 'chain' | 'params'>;
  pool: MessagePool | undefined;
  logger: Logger;
}): Promise<EthServices> {
  const { services, pool, logger } = input;
  const indexer = new EthIndexer({
    chain: services.chain,
    db: services.db,
    chainId: services.params.eip155ChainId,
    logger: logger.child({ module: 'eth-index' }),
  });
  const unsubscribe = pool?.onUpdate(({ type, message }) => {
    if (type === MpoolUpdateType.Add) indexer.indexMessage(message);
  });
  // Not awaited: RPC serves at once, and transactions below the head are found as the catch-up reaches them.
  void indexer.start();
  return {
    context: { index: services.db.eth },
    stop: () => {
      unsubscribe?.();
      indexer.stop();
    },
  };
}
