/**
 * The node's network half, built after the chain, validator and message pool: the libp2p host
 * (persistent key in the repo, listen and bootstrap addresses), the sync manager joined to it, the
 * message pool's admission as the gossip check for messages and its publications going out on
 * `/fil/msgs/<network>`, and the blocks this node mines going out on `/fil/blocks/<network>`.
 */
import type { Logger } from 'pino';
import { gossipVerdict, type MessagePool } from '../mpool/index.js';
import { LedgerNetwork, loadOrCreatePeerKey } from '../net/index.js';
import { type BlockIntake, connectSyncToNetwork, SyncManager } from '../sync/index.js';
import { blockCid, type FullBlock, messageCid, signedMessageCid } from '../types/index.js';
import type { ChainServices } from './chain-services.js';

export interface NetworkServices {
  readonly network: LedgerNetwork;
  readonly sync: SyncManager;
  /** Gossips a block this node produced (the mining loop's `onBlock`). */
  publishBlock(block: FullBlock): void;
  stop(): Promise<void>;
}

export interface NetworkStartOptions {
  readonly repoPath: string;
  readonly services: ChainServices;
  readonly logger: Logger;
  readonly pool?: MessagePool | undefined;
  /** The node's one block intake (the mining loop's): synced and gossiped blocks enter through it. */
  readonly intake: BlockIntake;
  /** libp2p listen multiaddrs; default one random TCP port on 127.0.0.1. */
  readonly listen?: readonly string[];
  readonly bootstrap?: readonly string[];
}

/** Devnets are local: listen on loopback unless told otherwise (`daemon --libp2p-listen`). */
export const DEFAULT_LIBP2P_LISTEN = ['/ip4/127.0.0.1/tcp/0'];

export async function startNetworkServices(options: NetworkStartOptions): Promise<NetworkServices> {
  const { services, logger, pool } = options;
  const { chain, states, params } = services;
  const log = logger.child({ module: 'net' });
  const network = await LedgerNetwork.create({
    chain,
    networkName: services.network.name,
    privateKey: await loadOrCreatePeerKey(options.repoPath),
    listen: options.listen ?? DEFAULT_LIBP2P_LISTEN,
    // The network's bootstrap peers, and those of the command line.
    bootstrap: [...new Set([...services.network.bootstrap, ...(options.bootstrap ?? [])])],
    logger: log,
    blockStore: services.db.netBlocks,
  });
  const sync = new SyncManager({
    chain,
    intake: options.intake,
    exchange: network.exchange,
    params,
    logger: logger.child({ module: 'sync' }),
    penalizer: network.scores,
    connectedPeers: () => network.peers().map((peer) => peer.id),
  });
  connectSyncToNetwork({ network, sync, chain, states, params, logger: log });
  let unsubscribePool: (() => void) | undefined;
  if (pool !== undefined) {
    network.hooks.validateMessage = async (_peer, message) => {
      try {
        await pool.add(message);
        return 'accept';
      } catch (error) {
        return gossipVerdict(error);
      }
    };
    unsubscribePool = pool.onPublish((message) => {
      void network.publishMessage(message).catch((error: unknown) => {
        log.debug({ err: error, message: signedMessageCid(message).toString() }, 'message not published');
      });
    });
  }
  await network.start();
  return {
    network,
    sync,
    publishBlock: (block) => {
      const msg = {
        header: block.header,
        blsMessages: block.blsMessages.map(messageCid),
        secpkMessages: block.secpkMessages.map(signedMessageCid),
      };
      void network.publishBlock(msg).catch((error: unknown) => {
        log.warn({ err: error, block: blockCid(block.header).toString() }, 'block not published');
      });
    },
    stop: async () => {
      unsubscribePool?.();
      sync.stop();
      await network.stop();
      await sync.idle();
    },
  };
}
