/**
 * Chain methods, with Lotus's parameters, permissions, nulls and errors (filecoin-project/lotus
 * `api/api_full.go`, `node/impl/full/chain.go`): heads and tipsets, blocks, messages and receipts
 * as the chain store holds them.
 */
import type { CID } from 'multiformats/cid';
import { ChainError, ChainErrorCode, headChangeSteps } from '../../chain/index.js';
import { assertStateAvailable } from '../../chain/snapshot/index.js';
import { type BlockHeader, messageCid, signedMessageCid, type TipSet, TipSetKey } from '../../types/index.js';
import { nextTurn } from '../../utils/abort.js';
import {
  type ApiMessage,
  apiMessagesResult,
  bigIntResult,
  blockHeaderResult,
  blockMessagesResult,
  cidParam,
  epochParam,
  headChangesResult,
  messageResult,
  receiptsResult,
  tipSetKeyParam,
  tipSetResult,
} from '../chain-codecs.js';
import { channelResult } from '../channel.js';
import type { ChainContext } from '../context.js';
import { methodsNeeding } from '../method.js';

/** The chain's methods (and the State* and export ones) need only the chain. */
export const declareChainMethod = methodsNeeding('chain');

/** A path walk (ChainGetPath) hands the event loop back, and checks its call's signal, this often. */
const TIPSETS_PER_TURN = 256;

function blockOf(chain: ChainContext, cid: CID): BlockHeader {
  return chain.store.getBlockHeader(cid);
}

/** The tipset whose child `block` is: what the block's ParentStateRoot was computed from. */
function parentOf(chain: ChainContext, block: BlockHeader): TipSet | null {
  if (block.height === 0n) return null;
  return chain.store.loadTipSet(TipSetKey.fromCids(block.parents));
}

export const chainHead = declareChainMethod({
  name: 'ChainHead',
  description: 'Returns the heaviest tipset.',
  permission: 'read',
  params: [],
  result: tipSetResult('the head tipset'),
  handler: (_params, { chain }) => chain.store.head(),
});

export const chainGetGenesis = declareChainMethod({
  name: 'ChainGetGenesis',
  description: 'Returns the genesis tipset.',
  permission: 'read',
  params: [],
  result: tipSetResult('the genesis tipset'),
  handler: (_params, { chain }) => chain.store.genesis,
});

export const chainGetTipSet = declareChainMethod({
  name: 'ChainGetTipSet',
  description: 'Returns the tipset of a key; null or [] gives the head.',
  permission: 'read',
  params: [tipSetKeyParam('tsk', 'the tipset key')],
  result: tipSetResult('the tipset'),
  handler: ([key], { chain }) => chain.store.tipSetOrHead(key),
});

export const chainGetTipSetByHeight = declareChainMethod({
  name: 'ChainGetTipSetByHeight',
  description:
    'Looks back from a tipset (null or [] for the head) for the tipset at a height; at a null round it returns the first tipset below it.',
  permission: 'read',
  params: [epochParam('height', 'the epoch'), tipSetKeyParam('tsk', 'the tipset to look back from')],
  result: tipSetResult('the tipset at that height, or the one before a null round'),
  handler: ([height, key], { chain: { store } }) => {
    if (height < 0n) throw new ChainError(ChainErrorCode.InvalidHeight, `height ${height} is negative`);
    return store.getTipSetByHeight(height, store.tipSetOrHead(key), true);
  },
});

export const chainGetTipSetAfterHeight = declareChainMethod({
  name: 'ChainGetTipSetAfterHeight',
  description:
    'Looks back from a tipset (null or [] for the head) for the tipset at a height; at a null round it returns the first tipset after it.',
  permission: 'read',
  params: [epochParam('height', 'the epoch'), tipSetKeyParam('tsk', 'the tipset to look back from')],
  result: tipSetResult('the tipset at that height, or the one after a null round'),
  handler: ([height, key], { chain: { store } }) => {
    return store.getTipSetByHeight(height, store.tipSetOrHead(key), false);
  },
});

export const chainGetBlock = declareChainMethod({
  name: 'ChainGetBlock',
  description: 'Returns a block header by its CID.',
  permission: 'read',
  params: [cidParam('blockCid', 'the block CID')],
  result: blockHeaderResult('the block header'),
  handler: ([cid], { chain }) => blockOf(chain, cid),
});

export const chainGetBlockMessages = declareChainMethod({
  name: 'ChainGetBlockMessages',
  description:
    'Returns the messages of one block (not de-duplicated across its tipset): BLS messages unsigned, secp256k1 messages signed, and all their CIDs, BLS first.',
  permission: 'read',
  params: [cidParam('blockCid', 'the block CID')],
  result: blockMessagesResult('the block messages'),
  handler: ([cid], { chain }) => {
    const { blsMessages, secpMessages } = chain.store.blockMessages(blockOf(chain, cid));
    return {
      blsMessages,
      secpkMessages: secpMessages,
      cids: [...blsMessages.map(messageCid), ...secpMessages.map(signedMessageCid)],
    };
  },
});

export const chainGetParentMessages = declareChainMethod({
  name: 'ChainGetParentMessages',
  description:
    'Returns the messages the parent tipset of a block executed, de-duplicated, in execution order; null for genesis or when there were none.',
  permission: 'read',
  params: [cidParam('blockCid', 'a block of the child tipset')],
  result: apiMessagesResult('[{Cid, Message}] with the chain CID and the unsigned message, or null'),
  handler: ([cid], { chain }): ApiMessage[] | null => {
    const parent = parentOf(chain, blockOf(chain, cid));
    if (parent === null) return null;
    return chain.store.tipSetMessages(parent).map((m) => ({ cid: m.cid, message: m.message }));
  },
});

export const chainGetMessagesInTipset = declareChainMethod({
  name: 'ChainGetMessagesInTipset',
  description:
    'Returns the messages included in a tipset (executed by its children), de-duplicated, in execution order; null for genesis or when there are none.',
  permission: 'read',
  params: [tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: apiMessagesResult('[{Cid, Message}] with the chain CID and the unsigned message, or null'),
  handler: ([key], { chain: { store } }): ApiMessage[] | null => {
    const tipSet = store.tipSetOrHead(key);
    if (tipSet.height === 0n) return null;
    return store.tipSetMessages(tipSet).map((m) => ({ cid: m.cid, message: m.message }));
  },
});

export const chainGetParentReceipts = declareChainMethod({
  name: 'ChainGetParentReceipts',
  description:
    'Returns the receipts of the messages the parent tipset of a block executed, one for each entry of ChainGetParentMessages; null for genesis.',
  permission: 'read',
  params: [cidParam('blockCid', 'a block of the child tipset')],
  result: receiptsResult('the receipts in execution order, or null'),
  handler: ([cid], { chain }) => {
    const block = blockOf(chain, cid);
    if (block.height === 0n) return null;
    // Receipts go with the parent state: below a pruned window they are gone (or half-deleted).
    assertStateAvailable(chain.store, block);
    return chain.store.readReceipts(block.parentMessageReceipts);
  },
});

export const chainGetMessage = declareChainMethod({
  name: 'ChainGetMessage',
  description: 'Returns a message by its unsigned or signed CID, always as the unsigned message.',
  permission: 'read',
  params: [cidParam('messageCid', 'the message CID')],
  result: messageResult('the unsigned message'),
  handler: ([cid], { chain }) => chain.store.getMessage(cid),
});

export const chainNotify = declareChainMethod({
  name: 'ChainNotify',
  description:
    'A channel (WebSocket only) of head changes: first [{"Type":"current","Val":head}], then one array per head change, the reverted tipsets newest first, then the applied ones oldest first (the last is the new head).',
  permission: 'read',
  params: [],
  // Lotus holds 16 per subscriber and closes the channel of a reader that lets them fill
  // (filecoin-project/lotus chain/store/store.go, SubHeadChanges).
  result: channelResult(headChangesResult('head changes [{Type, Val}]'), { buffer: 16 }),
  handler:
    (_params, { chain: { store } }) =>
    (sink) => {
      // Subscribed and sampled in one turn: the changes that follow are exactly those after `current`.
      const unsubscribe = store.subscribeHeadChanges((change) => sink.send(change));
      sink.send({ current: store.head() });
      sink.signal.addEventListener('abort', unsubscribe, { once: true });
    },
});

export const chainGetPath = declareChainMethod({
  name: 'ChainGetPath',
  description:
    'Returns the head changes that lead from one tipset to another: reverts from `from` down to their common ancestor, then applies up to `to` (null or [] for the head); [] when they are the same.',
  permission: 'read',
  // The walk back to the common ancestor is as long as the fork (or the whole chain, from genesis to the head).
  expensive: true,
  params: [tipSetKeyParam('from', 'the tipset to start from'), tipSetKeyParam('to', 'the tipset to arrive at')],
  result: headChangesResult('[{Type: "revert" | "apply", Val: TipSet}]'),
  handler: async ([from, to], { chain: { store } }, { signal }) => {
    const walk = headChangeSteps(store.tipSetOrHead(from), store.tipSetOrHead(to), (key) => store.loadTipSet(key));
    for (let steps = 1; ; steps++) {
      const step = walk.next();
      if (step.done) return step.value;
      if (steps % TIPSETS_PER_TURN === 0) await nextTurn(signal);
    }
  },
});

export const chainTipSetWeight = declareChainMethod({
  name: 'ChainTipSetWeight',
  description:
    "Returns a tipset's weight (null or [] for the head): its parent's weight plus what its power and win counts add (filecoin-project/lotus chain/consensus/filcns/weight.go), what fork choice compares.",
  permission: 'read',
  params: [tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: bigIntResult('the weight'),
  handler: ([key], { chain: { store } }) => store.weightOf(store.tipSetOrHead(key)),
});

export const chainMethods = [
  chainHead,
  chainGetGenesis,
  chainGetTipSet,
  chainGetTipSetByHeight,
  chainGetTipSetAfterHeight,
  chainGetBlock,
  chainGetBlockMessages,
  chainGetParentMessages,
  chainGetMessagesInTipset,
  chainGetParentReceipts,
  chainGetMessage,
  chainNotify,
  chainGetPath,
  chainTipSetWeight,
];
