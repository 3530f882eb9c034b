/**
 * The message lifecycle's State methods with Lotus's parameters, nulls and permissions
 * (filecoin-project/lotus `api/api_full.go`, `api/v0api/full.go`, `node/impl/full/state.go`):
 * StateWaitMsg (v1 four parameters, v0 two, plus v0's StateWaitMsgLimited), StateSearchMsg (v1
 * four, v0 one, plus StateSearchMsgLimited), StateGetReceipt (v0 only: Lotus dropped it from v1),
 * StateReplay and StateCompute.
 *
 * StateWaitMsg long-polls inside the HTTP request: it answers when the message has `confidence`
 * tipsets on top of its execution, and ends with an error when the client hangs up or the node
 * stops.
 */
import type { CID } from 'multiformats/cid';
import { ChainError, ChainErrorCode } from '../../chain/index.js';
import { computeState, replayMessage } from '../../chain/message-replay.js';
import { LOOKBACK_NO_LIMIT, MessageSearch, type MsgLookup } from '../../chain/message-search.js';
import {
  cidToLotusJson,
  type MessageReceipt,
  messageReceiptToLotusJson,
  tipSetKeyToLotusJson,
} from '../../types/index.js';
import {
  type ComputeStateOutput,
  computeStateOutputToLotusJson,
  type InvocResult,
  invocResultToLotusJson,
  signedChainMessage,
} from '../../vm/index.js';
import { cidParam, epochParam, tipSetKeyParam } from '../chain-codecs.js';
import type { ChainContext, ServedContext } from '../context.js';
import type { CallInfo, ResultDeclaration } from '../method.js';
import { booleanParam, messagesParam, uint64Param } from '../params.js';
import { cidSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';

const msgLookupSchema = {
  title: 'MsgLookup',
  type: 'object',
  properties: {
    Message: cidSchema,
    Receipt: { type: 'object' },
    ReturnDec: {},
    TipSet: { type: 'array', items: cidSchema },
    Height: { type: 'integer' },
  },
} as const;
const receiptSchema = { title: 'MessageReceipt', type: 'object' } as const;
export const invocResultSchema = { title: 'InvocResult', type: 'object' } as const;
const computeStateOutputSchema = {
  title: 'ComputeStateOutput',
  type: 'object',
  properties: { Root: cidSchema, Trace: { type: 'array', items: invocResultSchema } },
} as const;

const WAIT_DESCRIPTION =
  'Waits until a message is executed on chain with `confidence` tipsets on top of the execution tipset, looking back at most `limit` epochs first (-1: no limit); with `allowReplaced` a replacement (same sender, nonce and call, other gas) counts and its CID is returned. Follows reorgs. The answer is the MsgLookup: the execution tipset (the one after the inclusion), its height and the receipt.';
const SEARCH_DESCRIPTION =
  'Looks back from a tipset for the execution of a message without waiting; null when it has not been executed there (a pending message, or one further back than `limit`). A replacement counts only with `allowReplaced`.';

const messageCidParam = cidParam('cid', 'the message CID (the signed CID for secp256k1 messages)');
const confidenceParam = uint64Param('confidence', 'tipsets on top of the execution tipset');
const limitParam = epochParam('limit', 'epochs to look back; -1 for no limit');
const allowReplacedParam = booleanParam('allowReplaced', 'accept a replacement of the message');

function msgLookupToLotusJson(lookup: MsgLookup) {
  return {
    Message: cidToLotusJson(lookup.message),
    Receipt: messageReceiptToLotusJson(lookup.receipt),
    // Lotus decodes the return value per actor method; returns are not decoded here.
    ReturnDec: null,
    TipSet: tipSetKeyToLotusJson(lookup.tipSet.key),
    Height: Number(lookup.height),
  };
}

/** Lotus `api.MsgLookup` as JSON. */
type MsgLookupJson = ReturnType<typeof msgLookupToLotusJson>;

function msgLookupResult(description: string): ResultDeclaration<MsgLookup, MsgLookupJson> {
  return { name: 'lookup', description, schema: msgLookupSchema, encode: msgLookupToLotusJson };
}

function nullableMsgLookupResult(description: string): ResultDeclaration<MsgLookup | undefined, MsgLookupJson | null> {
  return {
    name: 'lookup',
    description,
    schema: { oneOf: [msgLookupSchema, { type: 'null' }] },
    encode: (lookup) => (lookup === undefined ? null : msgLookupToLotusJson(lookup)),
  };
}

const searches = new WeakMap<ChainContext, MessageSearch>();

/**
 * One MessageSearch per chain. It learns pending messages from the pool, which does not store
 * them in the blockstore as Lotus's does: so a pushed message can be searched for (null while
 * pending) and a wait for it can match its replacement.
 */
function searchOf(context: ServedContext<'chain'>): MessageSearch {
  const { chain } = context;
  let search = searches.get(chain);
  if (search === undefined) {
    search = new MessageSearch({
      chain: chain.store,
      pendingMessage: (cid) =>
        context.mpool?.pool.pending().find((signed) => signedChainMessage(signed).cid.equals(cid))?.message,
    });
    searches.set(chain, search);
  }
  return search;
}

function waitFor(
  context: ServedContext<'chain'>,
  call: CallInfo,
  cid: CID,
  confidence: bigint,
  limit: bigint,
  allowReplaced: boolean,
): Promise<MsgLookup> {
  return searchOf(context).wait(cid, { confidence, limit, allowReplaced, signal: call.signal });
}

export const stateWaitMsg = declareChainMethod({
  name: 'StateWaitMsg',
  description: WAIT_DESCRIPTION,
  permission: 'read',
  apiVersions: [1],
  params: [messageCidParam, confidenceParam, limitParam, allowReplacedParam],
  result: msgLookupResult('where and how the message was executed'),
  handler: ([cid, confidence, limit, allowReplaced], context, call) =>
    waitFor(context, call, cid, confidence, limit, allowReplaced),
});

export const stateWaitMsgV0 = declareChainMethod({
  name: 'StateWaitMsg',
  description: `${WAIT_DESCRIPTION} The v0 form: no lookback limit, replacements allowed.`,
  permission: 'read',
  apiVersions: [0],
  params: [messageCidParam, confidenceParam],
  result: msgLookupResult('where and how the message was executed'),
  handler: ([cid, confidence], context, call) => waitFor(context, call, cid, confidence, LOOKBACK_NO_LIMIT, true),
});

export const stateWaitMsgLimited = declareChainMethod({
  name: 'StateWaitMsgLimited',
  description: `${WAIT_DESCRIPTION} The v0 form with a lookback limit; replacements allowed.`,
  permission: 'read',
  apiVersions: [0],
  params: [messageCidParam, confidenceParam, limitParam],
  result: msgLookupResult('where and how the message was executed'),
  handler: ([cid, confidence, limit], context, call) => waitFor(context, call, cid, confidence, limit, true),
});

export const stateSearchMsg = declareChainMethod({
  name: 'StateSearchMsg',
  description: SEARCH_DESCRIPTION,
  permission: 'read',
  apiVersions: [1],
  expensive: true,
  params: [
    tipSetKeyParam('tsk', 'the tipset to search back from; null or [] for the head'),
    messageCidParam,
    limitParam,
    allowReplacedParam,
  ],
  result: nullableMsgLookupResult('where and how the message was executed, or null'),
  handler: ([key, cid, limit, allowReplaced], context) =>
    searchOf(context).search(context.chain.store.tipSetOrHead(key), cid, limit, allowReplaced),
});

export const stateSearchMsgV0 = declareChainMethod({
  name: 'StateSearchMsg',
  description: `${SEARCH_DESCRIPTION} The v0 form: from the head, no limit, replacements allowed.`,
  permission: 'read',
  apiVersions: [0],
  expensive: true,
  params: [messageCidParam],
  result: nullableMsgLookupResult('where and how the message was executed, or null'),
  handler: ([cid], context) => searchOf(context).search(context.chain.store.head(), cid, LOOKBACK_NO_LIMIT, true),
});

export const stateSearchMsgLimited = declareChainMethod({
  name: 'StateSearchMsgLimited',
  description: `${SEARCH_DESCRIPTION} The v0 form with a limit: from the head, replacements allowed.`,
  permission: 'read',
  apiVersions: [0],
  expensive: true,
  params: [messageCidParam, limitParam],
  result: nullableMsgLookupResult('where and how the message was executed, or null'),
  handler: ([cid, limit], context) => searchOf(context).search(context.chain.store.head(), cid, limit, true),
});

export const stateGetReceipt = declareChainMethod({
  name: 'StateGetReceipt',
  description:
    'Deprecated (v0 only, as in Lotus): the receipt of a message executed on the chain behind a tipset, or null. Same as StateSearchMsg(tsk, cid, -1, true).Receipt.',
  permission: 'read',
  apiVersions: [0],
  expensive: true,
  params: [messageCidParam, tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: {
    name: 'receipt',
    description: 'the receipt, or null',
    schema: { oneOf: [receiptSchema, { type: 'null' }] },
    encode: (receipt: MessageReceipt | undefined) =>
      receipt === undefined ? null : messageReceiptToLotusJson(receipt),
  },
  handler: async ([cid, key], context) =>
    (await searchOf(context).search(context.chain.store.tipSetOrHead(key), cid, LOOKBACK_NO_LIMIT, true))?.receipt,
});

export const stateReplay = declareChainMethod({
  name: 'StateReplay',
  description:
    'Re-executes the tipset that included a message and returns its InvocResult: receipt, GasCost (what the sender paid, by part) and execution trace. With tsk null or [] the chain is searched (no limit, replacements allowed) and a replacement may be replayed: check that MsgCid is the CID asked for.',
  permission: 'read',
  expensive: true,
  params: [
    tipSetKeyParam('tsk', 'the tipset that included the message; null or [] to search the chain'),
    messageCidParam,
  ],
  result: {
    name: 'invocResult',
    description: 'MsgCid, Msg, MsgRct, GasCost, ExecutionTrace, Error, Duration',
    schema: invocResultSchema,
    encode: (result: InvocResult) => invocResultToLotusJson(result),
  },
  handler: async ([key, cid], context) => {
    const { chain } = context;
    if (!key.isEmpty) return replayMessage(chain.store, chain.store.loadTipSet(key), cid);
    const lookup = await searchOf(context).search(chain.store.head(), cid, LOOKBACK_NO_LIMIT, true);
    if (lookup === undefined) throw new ChainError(ChainErrorCode.NotFound, `didn't find msg ${cid}`);
    return replayMessage(chain.store, chain.store.loadTipSet(lookup.tipSet.parents), lookup.message);
  },
});

export const stateCompute = declareChainMethod({
  name: 'StateCompute',
  description:
    'Executes a tipset on its parent state — null-round cron, every block’s messages and reward, cron — then the given messages (unsigned; nonces and gas as given) as if at `height`, and returns the state root with an InvocResult for every message run, implicit reward and cron calls included (zero GasCost). `StateCompute(ts.Height, [], ts.Key)` gives the traces of every message included in ts.',
  permission: 'read',
  expensive: true,
  params: [
    epochParam('height', "the epoch to run `msgs` at; at least the tipset's"),
    messagesParam('msgs', 'messages to apply after the tipset; null or [] for none'),
    tipSetKeyParam('tsk', 'the tipset to execute; null or [] for the head'),
  ],
  result: {
    name: 'computeStateOutput',
    description: 'Root and Trace',
    schema: computeStateOutputSchema,
    encode: (output: ComputeStateOutput) => computeStateOutputToLotusJson(output),
  },
  handler: ([height, messages, key], { chain }, call) => {
    return computeState(chain.store, chain.store.tipSetOrHead(key), height, messages, call.signal);
  },
});

export const stateMessageMethods = [
  stateWaitMsg,
  stateWaitMsgV0,
  stateWaitMsgLimited,
  stateSearchMsg,
  stateSearchMsgV0,
  stateSearchMsgLimited,
  stateGetReceipt,
  stateReplay,
  stateCompute,
];
