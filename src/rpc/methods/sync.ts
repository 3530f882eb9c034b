/**
 * Sync methods (`lotus:api/api_full.go`, group Sync): the workers' state, submitting a block the
 * node should validate, add and gossip, and the bad-block cache.
 */
import type { CID } from 'multiformats/cid';
import { SyncError, SyncErrorCode, type SyncStateJson } from '../../sync/index.js';
import {
  type BlockMsg,
  type BlockMsgJson,
  blockMsgFromLotusJson,
  decodeMessage,
  decodeSignedMessage,
  type FullBlock,
  type Message,
  type SignedMessage,
  signedMessageCid,
} from '../../types/index.js';
import { blockHeaderResult, cidParam, tipSetKeyParam } from '../chain-codecs.js';
import { channelResult } from '../channel.js';
import type { RpcContext } from '../context.js';
import { declareMethod, type ParamDeclaration } from '../method.js';
import { booleanResult, jsonResult, voidResult } from '../results.js';
import { stringSchema } from '../schemas.js';
import { declareNetMethod } from './net.js';

const syncStateSchema = {
  title: 'SyncState',
  type: 'object',
  properties: { ActiveSyncs: { type: 'array' }, VMApplied: { type: 'integer' } },
} as const;

const blockMsgParam: ParamDeclaration<BlockMsg, BlockMsgJson> = {
  name: 'block',
  description: 'the block header with the CIDs of its BLS and secp messages (BlockMsg)',
  schema: { title: 'BlockMsg', type: 'object' },
  decode: blockMsgFromLotusJson,
};

export const syncState = declareNetMethod({
  name: 'SyncState',
  description:
    'The sync workers: base and target tipsets, stage (0 idle, 1 header sync, 2 persisting headers, 3 message sync, 4 complete, 5 error, 6 fetching messages), height, start and end times and the error message.',
  permission: 'read',
  params: [],
  result: jsonResult<SyncStateJson>('syncState', 'Lotus SyncState', syncStateSchema),
  handler: (_params, { net }) => net.sync.state(),
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

export const syncSubmitBlock = declareNetMethod({
  name: 'SyncSubmitBlock',
  description:
    "Validates a block whose messages this node holds, adds it to the chain and gossips it on the network's blocks topic.",
  permission: 'write',
  params: [blockMsgParam],
  result: voidResult,
  handler: async ([block], context) => {
    const { sync, network } = context.net;
    sync.requireSynced('SyncSubmitBlock');
    await sync.submitBlock(messagesOf(context, block), 'rpc');
    await network.publishBlock(block);
  },
});

export const syncCheckBad = declareNetMethod({
  name: 'SyncCheckBad',
  description: 'Why a block is in the bad-block cache, or an empty string when it is not.',
  permission: 'read',
  params: [cidParam('block', 'the block CID')],
  result: jsonResult<string>('reason', 'the reason, or ""', stringSchema),
  handler: ([cid], { net }) => net.sync.badBlocks.describe(cid),
});

export const syncMarkBad = declareNetMethod({
  name: 'SyncMarkBad',
  description: 'Marks a block as bad: chains that contain it are refused.',
  permission: 'admin',
  params: [cidParam('block', 'the block CID')],
  result: voidResult,
  handler: ([cid], { net }) => {
    net.sync.badBlocks.add(cid, { reason: 'manually marked bad' });
  },
});

export const syncUnmarkBad = declareNetMethod({
  name: 'SyncUnmarkBad',
  description: 'Removes a block from the bad-block cache.',
  permission: 'admin',
  params: [cidParam('block', 'the block CID')],
  result: voidResult,
  handler: ([cid], { net }) => {
    net.sync.badBlocks.remove(cid);
  },
});

export const syncUnmarkAllBad = declareNetMethod({
  name: 'SyncUnmarkAllBad',
  description: 'Empties the bad-block cache: chains refused for a block in it can be synced again.',
  permission: 'admin',
  params: [],
  result: voidResult,
  handler: (_params, { net }) => {
    net.sync.badBlocks.clear();
  },
});

export const syncValidateTipset = declareMethod({
  name: 'SyncValidateTipset',
  description:
    "Validates a tipset of this node's chain again, block by block, as sync does (Expected Consensus, messages, the parent state): true when valid (genesis is), else an error naming the block and what is wrong; a block that can never become valid goes to the bad-block cache.",
  permission: 'read',
  needs: ['chain', 'net'],
  expensive: true,
  params: [tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: booleanResult('true when the tipset is valid'),
  handler: async ([key], { chain, net }) => {
    const tipSet = chain.store.tipSetOrHead(key);
    // Lotus `Syncer.ValidateTipSet`: genesis is valid by definition (it has no parent to check against).
    if (tipSet.equals(chain.store.genesis)) return true;
    const blocks: FullBlock[] = tipSet.blocks.map((header) => {
      const { blsMessages, secpMessages } = chain.store.blockMessages(header);
      return { header, blsMessages, secpkMessages: secpMessages };
    });
    await net.sync.intake.validate(blocks, 'rpc');
    return true;
  },
});

export const syncIncomingBlocks = declareNetMethod({
  name: 'SyncIncomingBlocks',
  description:
    'A channel (WebSocket only) of the headers of the blocks this node receives (gossiped, submitted, its own mined ones), as they arrive and before they are validated: some may turn out invalid.',
  permission: 'read',
  params: [],
  // Lotus holds 10 per subscriber (filecoin-project/lotus chain/sync.go, IncomingBlocks); a reader
  // that lets more wait loses its channel, as a slow ChainNotify reader does.
  result: channelResult(blockHeaderResult('block headers'), { buffer: 10 }),
  handler:
    (_params, { net }) =>
    (sink) => {
      const unsubscribe = net.sync.intake.onIncoming((header) => sink.send(header));
      sink.signal.addEventListener('abort', unsubscribe, { once: true });
    },
});

export const syncMethods = [
  syncState,
  syncIncomingBlocks,
  syncSubmitBlock,
  syncCheckBad,
  syncMarkBad,
  syncUnmarkBad,
  syncUnmarkAllBad,
  syncValidateTipset,
];
