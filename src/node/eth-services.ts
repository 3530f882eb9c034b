/**
 * The Ethereum JSON-RPC's services on a node with a chain: the indexer follows head changes
 * and the message pool (delegated messages pushed or gossiped are found by hash at once; each
 * executed tipset's logs are indexed for eth_getLogs), the eth events follow the same for filters
 * and eth_subscribe, and the RPC context gets the index, the filters and the subscriptions.
 */
import type { Logger } from 'pino';
import { EthIndexer } from '../chain/index.js';
import { type MessagePool, MpoolUpdateType } from '../mpool/index.js';
import { type EthContext, EthEvents, EthFilters, EthSubscriptions } from '../rpc/index.js';
import type { ChainServices } from './chain-services.js';

/** How often filters not polled within their TTL are removed (Lotus checks every 30 minutes). */
const FILTER_GC_INTERVAL_MS = 5 * 60 * 1000;

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
  const chainId = services.params.eip155ChainId;
  const indexer = new EthIndexer({
    chain: services.chain,
    db: services.db,
    chainId,
    logger: logger.child({ module: 'eth-index' }),
  });
  const unsubscribe = pool?.onUpdate(({ type, message }) => {
    if (type === MpoolUpdateType.Add) indexer.indexMessage(message);
  });
  // Started first: its head-change listener indexes a tipset's logs (and bloom) before filters and
  // subscriptions hear of it. Not awaited: RPC serves at once, and transactions below the head are
  // found as the catch-up reaches them.
  void indexer.start();
  const events = new EthEvents(services.chain, chainId);
  events.start(
    pool === undefined
      ? undefined
      : (added) =>
          pool.onUpdate(({ type, message }) => {
            if (type === MpoolUpdateType.Add) added(message);
          }),
  );
  const filters = new EthFilters(events);
  const gc = setInterval(() => filters.expire(), FILTER_GC_INTERVAL_MS);
  gc.unref();
  return {
    context: { index: services.db.eth, events, filters, subscriptions: new EthSubscriptions() },
    stop: () => {
      clearInterval(gc);
      filters.clear();
      events.stop();
      unsubscribe?.();
      indexer.stop();
    },
  };
}
