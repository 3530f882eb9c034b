/**
 * The message pool of a node with a chain: the pool on the chain store (persisting local messages
 * and its config in the node database), gas estimation over it, and MpoolPushMessage's signer
 * using the node wallet. What the Mpool* and Gas* RPC methods read, and the mining loop's
 * BlockMessageSource. Gossip (src/net) subscribes with `pool.onPublish`.
 */
import type { Logger } from 'pino';
import { GasEstimator, MessagePool, MessageSigner, mpoolChainOf } from '../mpool/index.js';
import type { MpoolContext } from '../rpc/index.js';
import type { Wallet } from '../wallet/index.js';
import type { ChainServices } from './chain-services.js';

export type MpoolServices = MpoolContext;

export async function openMpool(input: {
  /** The chain the pool follows (a node's ChainServices, or a test chain's parts). */
  services: Pick<ChainServices, 'db' | 'chain' | 'states' | 'params'>;
  wallet: Wallet;
  logger: Logger;
}): Promise<MpoolServices> {
  const { services, wallet, logger } = input;
  const { db } = services;
  const chain = mpoolChainOf(services.chain, services.states);
  const pool = await MessagePool.open({
    chain,
    params: services.params,
    store: db.mpool,
    transaction: (fn) => db.transaction(fn),
    logger: logger.child({ module: 'mpool' }),
  });
  const gas = new GasEstimator({ chain, pool });
  const signer = new MessageSigner({
    pool,
    gas,
    store: db.mpool,
    sign: async (address, message) => wallet.signMessage(address, message),
  });
  return { pool, gas, signer };
}
