/**
 * Sync methods (`lotus:api/api_full.go`, group Sync): the workers' state, submitting a block the
 * node should validate, add and gossip, and the bad-block cache.
 */
import type { CID } from 'multiformats/cid';
import { SyncError, SyncErrorCode, type SyncStateJson } from '../../sync/index.js';
import {
  type BlockMsg,
  blockMsgFromLotusJson,
  decodeMessage,
  decodeSignedMessage,
  type FullBlock,
  type Message,
  type SignedMessage,
  signedMessageCid,
} from '../../types/index.js';
import { cidParam } from '../chain-codecs.js';
import type { NetContext, RpcContext } from '../context.js';
import { declareMethod, type ParamDeclaration } from '../method.js';
import { jsonResult, voidResult } from '../results.js';
import { stringSchema } from '../schemas.js';

const BOTH = [0, 1] as const;

function syncOf(context: RpcContext): NetContext {
  if (context.net === undefined) {
    throw new SyncError(SyncErrorCode.NoPeers, 'this node does not sync (it runs without a chain)');
  }
  return context.net;
}

const syncStateSchema = {
  title: 'SyncState',
  type: 'object',
  properties: { ActiveSyncs: { type: 'array' }, VMApplied: { type: 'integer' } },
} as const;

const blockMsgParam: ParamDeclaration<BlockMsg> = {
  name: 'block',
  description: 'the block header with the CIDs of its BLS and secp messages (BlockMsg)',
  schema: { title: 'BlockMsg', type: 'object' },
  decode: blockMsgFromLotusJson,
};

export const syncState = declareMethod({
  name: 'SyncState',
  description:
    'The sync workers: base and target tipsets, stage (0 idle, 1 header sync, 2 persisting headers, 3 message sync, 4 complete, 5 error, 6 fetching messages), height, start and end times and the error message.',
  permission: 'read',
  apiVersions: BOTH,
  params: [],
  result: jsonResult<SyncStateJson>('syncState', 'Lotus SyncState', syncStateSchema),
  handler: (_params, context) => syncOf(context).sync.state(),
});

/** A block's messages from the node's stores: the chain blockstore, then the message pool. */
function messagesOf(context: RpcContext, block: BlockMsg): FullBlock {
  const store = context.chain?.store.blockstore;
  const pending = new Map<string, SignedMessage>();
  for (const signed of context.mpool?.pool.pending() ?? []) pending.set(signedMessageCid(signed).toString(), signed);
  const find = (cid: CID): Uint8Array | SignedMessage => {
    const bytes = store?.get(cid);
    if (bytes !== undefined) return bytes;
    const signed = pending.get(cid.toString());
    if (signed !== undefined) return signed;
    throw new SyncError(SyncErrorCode.BadChain, `message ${cid} of the block is not in this node's stores`);
  };
  const blsMessages: Message[] = block.blsMessages.map((cid) => {
    const found = find(cid);
    return found instanceof Uint8Array ? decodeMessage(found) : found.message;
  });
  const secpkMessages = block.secpkMessages.map((cid) => {
    const found = find(cid);
    return found instanceof Uint8Array ? decodeSignedMessage(found) : found;
  });
  return { header: block.header, blsMessages, secpkMessages };
}

export const syncSubmitBlock = declareMethod({
  name: 'SyncSubmitBlock',
  description:
    "Validates a block whose messages this node holds, adds it to the chain and gossips it on the network's blocks topic.",
  permission: 'write',
  apiVersions: BOTH,
  params: [blockMsgParam],
  result: voidResult,
  handler: async ([block], context) => {
    const { sync, network } = syncOf(context);
    sync.requireSynced('SyncSubmitBlock');
    await sync.submitBlock(messagesOf(context, block));
    await network.publishBlock(block);
  },
});

export const syncCheckBad = declareMethod({
  name: 'SyncCheckBad',
  description: 'Why a block is in the bad-block cache, or an empty string when it is not.',
  permission: 'read',
  apiVersions: BOTH,
  params: [cidParam('block', 'the block CID')],
  result: jsonResult<string>('reason', 'the reason, or ""', stringSchema),
  handler: ([cid], context) => syncOf(context).sync.badBlocks.describe(cid),
});

export const syncMarkBad = declareMethod({
  name: 'SyncMarkBad',
  description: 'Marks a block as bad: chains that contain it are refused.',
  permission: 'admin',
  apiVersions: BOTH,
  params: [cidParam('block', 'the block CID')],
  result: voidResult,
  handler: ([cid], context) => {
    syncOf(context).sync.badBlocks.add(cid, { reason: 'manually marked bad' });
  },
});

export const syncUnmarkBad = declareMethod({
  name: 'SyncUnmarkBad',
  description: 'Removes a block from the bad-block cache.',
  permission: 'admin',
  apiVersions: BOTH,
  params: [cidParam('block', 'the block CID')],
  result: voidResult,
  handler: ([cid], context) => {
    syncOf(context).sync.badBlocks.remove(cid);
  },
});

export const syncMethods = [syncState, syncSubmitBlock, syncCheckBad, syncMarkBad, syncUnmarkBad];
