/**
 * Joins the network to the sync manager: a hello's head is fetched (headers, from that peer)
 * and informed; a gossiped block passes `checkGossipBlock` before it is forwarded, then is fetched
 * whole from its sender and handed to the block intake (through the sync manager, which shows it
 * as a worker).
 */
import type { Logger } from 'pino';
import type { ChainStore, TipSetStates } from '../chain/index.js';
import type { LedgerNetwork } from '../net/index.js';
import type { NetworkParams } from '../params/index.js';
import { type BlockMsg, blockCid, TipSetKey } from '../types/index.js';
import { checkGossipBlock } from './gossip-block-check.js';
import type { SyncManager } from './sync-manager.js';

export interface NetworkSyncOptions {
  readonly network: LedgerNetwork;
  readonly sync: SyncManager;
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  readonly params: NetworkParams;
  readonly logger: Logger;
  readonly clock?: () => number;
}

export function connectSyncToNetwork(options: NetworkSyncOptions): void {
  const { network, sync, chain, logger } = options;
  const clock = options.clock ?? Date.now;

  const fetchHead = async (peer: string, key: TipSetKey) => {
    const [tipSet] = await network.exchange.getBlocks(peer, key, 1);
    if (tipSet !== undefined) sync.informNewHead(peer, tipSet);
  };

  network.hooks = {
    ...network.hooks,
    onHello: (peer, hello) => {
      if (hello.heaviestTipSetHeight === 0n) return;
      void fetchHead(peer, TipSetKey.fromCids(hello.heaviestTipSet)).catch((error: unknown) => {
        logger.debug({ peer, err: error }, 'cannot fetch the head a peer announced');
      });
    },
    validateBlock: async (peer, block) => {
      const check = await checkGossipBlock(
        { chain, states: options.states, params: options.params, badBlocks: sync.badBlocks, clock },
        block,
      );
      if (check.verdict === 'reject') {
        logger.warn(
          { peer, block: blockCid(block.header).toString(), reason: check.reason },
          'gossiped block rejected',
        );
        sync.badBlocks.add(blockCid(block.header), { reason: check.reason });
      } else if (!check.parentKnown && check.verdict === 'ignore' && check.reason === 'parent unknown') {
        // Not forwarded (we cannot check it yet), but it tells us the peer is ahead.
        void fetchHead(peer, TipSetKey.fromCids([blockCid(block.header)])).catch(() => undefined);
      }
      return check.verdict;
    },
    onBlock: (peer, block) => {
      void acceptGossipBlock(options, peer, block).catch((error: unknown) => {
        logger.warn({ peer, block: blockCid(block.header).toString(), err: error }, 'gossiped block not added');
      });
    },
  };
  network.host.addEventListener('peer:disconnect', (event) => sync.forgetPeer(event.detail.toString()));
}

async function acceptGossipBlock(options: NetworkSyncOptions, peer: string, block: BlockMsg): Promise<void> {
  const key = TipSetKey.fromCids([blockCid(block.header)]);
  const full = await options.network.exchange.getFullTipSet(peer, key);
  const [fullBlock] = full.blocks;
  if (fullBlock === undefined) return;
  await options.sync.submitBlock(fullBlock, 'gossip');
}
