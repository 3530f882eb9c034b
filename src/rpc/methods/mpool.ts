/**
 * Message pool methods with Lotus's parameters, nulls and permissions (filecoin-project/lotus
 * `api/api_full.go`, `node/impl/full/mpool.go`): MpoolPush (write), MpoolPushUntrusted (write),
 * MpoolPushMessage (sign), MpoolPending (read; `[]` when empty), MpoolGetNonce (read), MpoolSelect
 * (read), MpoolGetConfig (read), MpoolSetConfig (admin), MpoolClear (write), the batch pushes
 * (MpoolBatchPush and MpoolBatchPushUntrusted write, MpoolBatchPushMessage sign) and the
 * pre-send checks (MpoolCheckMessages, MpoolCheckPendingMessages, MpoolCheckReplaceMessages:
 * read, v1 only as in Lotus;
 * `chain/messagepool/check.go`), and MpoolSub (read), a channel of the pool's changes.
 */
import type { CID } from 'multiformats/cid';
import {
  checkDelegatedRecipient,
  checkMessages,
  type MessageCheckStatus,
  type MpoolConfig,
  type MpoolConfigJson,
  MpoolError,
  type MpoolUpdate,
  mpoolConfigFromLotusJson,
  mpoolConfigToLotusJson,
  type PushMessageSpec,
} from '../../mpool/index.js';
import {
  bigIntFromLotusJson,
  type CidJson,
  cidToLotusJson,
  jsonFail,
  jsonField,
  type Message,
  readJsonObject,
  type SignedMessage,
  type SignedMessageJson,
  signedMessageFromLotusJson,
  toJsonInteger,
} from '../../types/index.js';
import { tipSetKeyParam } from '../chain-codecs.js';
import { channelResult } from '../channel.js';
import type { MpoolContext } from '../context.js';
import { type MessagePrototype, messagePrototypesParam } from '../message-prototype.js';
import { methodsNeeding, type ParamDeclaration, type ResultDeclaration } from '../method.js';
import { addressParam, booleanParam, listParam, messageParam, messagesParam } from '../params.js';
import { signedMessageJson, signedMessageResult, voidResult } from '../results.js';
import { bigIntSchema, cidSchema, signedMessageSchema } from '../schemas.js';

const declareMpoolMethod = methodsNeeding('mpool');
/** Pool methods that also read the chain (a tipset by key), and the Gas* methods. */
export const declareMpoolChainMethod = methodsNeeding('chain', 'mpool');

export const messageSendSpecSchema = {
  oneOf: [
    {
      title: 'MessageSendSpec',
      type: 'object',
      properties: {
        MaxFee: { ...bigIntSchema, description: 'attoFIL; "0" uses the node default of 0.07 FIL' },
        MsgUuid: { type: 'string', description: 'idempotency key (MpoolPushMessage)' },
        MaximizeFeeCap: { type: 'boolean' },
      },
    },
    { type: 'null' },
  ],
} as const;

/** Lotus `api.MessageSendSpec` as JSON; absent fields are zero. */
export interface MessageSendSpecJson {
  MaxFee?: string;
  MsgUuid?: string;
  MaximizeFeeCap?: boolean;
}

/** Lotus `*api.MessageSendSpec`: null, or an object whose absent fields are zero. */
export function sendSpecParam(
  name: string,
  description: string,
): ParamDeclaration<PushMessageSpec | null, MessageSendSpecJson | null> {
  return {
    name,
    description,
    schema: messageSendSpecSchema,
    decode: (json, path) => {
      if (json === null || json === undefined) return null;
      const object = readJsonObject(json, path);
      const maxFee = jsonField(object, 'MaxFee');
      const uuid = jsonField(object, 'MsgUuid');
      const maximize = jsonField(object, 'MaximizeFeeCap');
      if (uuid !== undefined && uuid !== null && typeof uuid !== 'string')
        jsonFail(`${path}.MsgUuid`, 'a UUID string', uuid);
      if (maximize !== undefined && maximize !== null && typeof maximize !== 'boolean') {
        jsonFail(`${path}.MaximizeFeeCap`, 'a boolean', maximize);
      }
      return {
        maxFee: maxFee === undefined || maxFee === null ? 0n : bigIntFromLotusJson(maxFee, `${path}.MaxFee`),
        msgUuid: typeof uuid === 'string' ? uuid : undefined,
        maximizeFeeCap: maximize === true,
      };
    },
  };
}

function signedMessageParam(name: string, description: string): ParamDeclaration<SignedMessage, SignedMessageJson> {
  return { name, description, schema: signedMessageSchema, decode: signedMessageFromLotusJson };
}

function cidResult(description: string): ResultDeclaration<CID, CidJson> {
  return { name: 'cid', description, schema: cidSchema, encode: cidToLotusJson };
}

function signedMessagesResult(description: string): ResultDeclaration<SignedMessage[], SignedMessageJson[]> {
  return {
    name: 'messages',
    description,
    schema: { type: 'array', items: signedMessageSchema },
    encode: (messages) => messages.map(signedMessageJson),
  };
}

function nullableSignedMessagesResult(
  description: string,
): ResultDeclaration<SignedMessage[] | null, SignedMessageJson[] | null> {
  return {
    name: 'messages',
    description,
    schema: { oneOf: [{ type: 'array', items: signedMessageSchema }, { type: 'null' }] },
    encode: (messages) => (messages === null ? null : messages.map(signedMessageJson)),
  };
}

const mpoolConfigSchema = {
  title: 'MpoolConfig',
  type: 'object',
  properties: {
    PriorityAddrs: { type: ['array', 'null'], items: { type: 'string' } },
    SizeLimitHigh: { type: 'integer' },
    SizeLimitLow: { type: 'integer' },
    ReplaceByFeeRatio: { type: 'number', description: 'a percentage as a decimal: 1.25 is 125 %' },
    PruneCooldown: { type: 'integer', description: 'nanoseconds' },
    GasLimitOverestimation: { type: 'number' },
  },
} as const;

const mpoolConfigParam: ParamDeclaration<MpoolConfig, MpoolConfigJson> = {
  name: 'config',
  description: 'the MpoolConfig; absent fields are zero',
  schema: mpoolConfigSchema,
  decode: mpoolConfigFromLotusJson,
};

function pushed({ pool }: MpoolContext, signed: SignedMessage, untrusted: boolean): Promise<CID> {
  checkDelegatedRecipient(signed.message);
  return untrusted ? pool.pushUntrusted(signed) : pool.push(signed);
}

export const mpoolPush = declareMpoolMethod({
  name: 'MpoolPush',
  description:
    'Validates a signed message and adds it to the pool as a local message (republished), answering once it is committed to disk; an error answer leaves the pool unchanged. Returns its chain CID (the unsigned CID for BLS). Replaces a pooled message of the same sender and nonce when its GasPremium is at least 110 % + 1 of the old one.',
  permission: 'write',
  params: [signedMessageParam('signedMessage', 'the signed message')],
  result: cidResult('the message CID'),
  handler: ([signed], { mpool }) => pushed(mpool, signed, false),
});

export const mpoolPushUntrusted = declareMpoolMethod({
  name: 'MpoolPushUntrusted',
  description:
    'MpoolPush for gateways: at most 100 pending messages per sender, and no nonce gap (the nonce must be the next one).',
  permission: 'write',
  params: [signedMessageParam('signedMessage', 'the signed message')],
  result: cidResult('the message CID'),
  handler: ([signed], { mpool }) => pushed(mpool, signed, true),
});

export const mpoolPushMessage = declareMpoolMethod({
  name: 'MpoolPushMessage',
  description:
    'Assigns the nonce (the message must have Nonce 0), fills GasLimit when 0 (gas used × GasLimitOverestimation) and GasPremium/GasFeeCap when "0", caps the fee at MaxFee (0.07 FIL when "0" or null), signs with the wallet key of From and pushes; the message and the next nonce are committed to disk together before the answer, and an error answer consumes no nonce. A repeated MsgUuid returns the message sent first.',
  permission: 'sign',
  params: [messageParam('message', 'the unsigned message, Nonce 0'), sendSpecParam('spec', 'MessageSendSpec or null')],
  result: signedMessageResult('the signed message as pushed'),
  handler: ([message, spec], { mpool, net }) => {
    checkDelegatedRecipient(message);
    // The nonce and gas come from the head: on a node still catching up they would be stale.
    net?.sync.requireSynced('MpoolPushMessage');
    return mpool.signer.pushMessage(message, spec);
  },
});

export const mpoolPending = declareMpoolChainMethod({
  name: 'MpoolPending',
  description:
    'Every message in the pool, by sender and nonce; [] when empty. The tipset key (null or [] for the head) is accepted as in Lotus; the pool always answers from its own head.',
  permission: 'read',
  params: [tipSetKeyParam('tipSetKey', 'null or [] for the head')],
  result: signedMessagesResult('the pending messages'),
  handler: ([key], { chain, mpool }) => {
    chain.store.tipSetOrHead(key);
    return mpool.pool.pending();
  },
});

export const mpoolGetNonce = declareMpoolMethod({
  name: 'MpoolGetNonce',
  description:
    'The next nonce for a sender: the state nonce, or one past the run of its pooled messages that follows it. Not atomic: MpoolPushMessage assigns nonces safely.',
  permission: 'read',
  params: [addressParam('address', 'the sender')],
  result: {
    name: 'nonce',
    description: 'the next nonce',
    schema: { type: 'integer' },
    encode: (nonce: bigint) => toJsonInteger(nonce),
  },
  handler: ([address], { mpool }) => mpool.pool.getNonce(address),
});

const ticketQualityParam: ParamDeclaration<number, number> = {
  name: 'ticketQuality',
  description: 'from 0 to 1',
  schema: { type: 'number', minimum: 0, maximum: 1 },
  decode: (json, path) => {
    const value = typeof json === 'bigint' ? Number(json) : json;
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) jsonFail(path, 'a number from 0 to 1', json);
    return value;
  },
};

export const mpoolSelect = declareMpoolChainMethod({
  name: 'MpoolSelect',
  description:
    'The messages this node would put in a block on the tipset, in inclusion order, for a ticket quality from 0 to 1 (above 0.84 greedy selection, else optimal); null when the pool is empty, as in Lotus.',
  permission: 'read',
  expensive: true,
  params: [tipSetKeyParam('tipSetKey', 'the base tipset; null or [] for the head'), ticketQualityParam],
  result: nullableSignedMessagesResult('the selected messages'),
  handler: ([key, ticketQuality], { chain, mpool }) => mpool.pool.select(chain.store.tipSetOrHead(key), ticketQuality),
});

export const mpoolGetConfig = declareMpoolMethod({
  name: 'MpoolGetConfig',
  description: 'The pool configuration (Lotus MpoolConfig).',
  permission: 'read',
  params: [],
  result: {
    name: 'config',
    description: 'the MpoolConfig',
    schema: mpoolConfigSchema,
    encode: (config: MpoolConfig) => mpoolConfigToLotusJson(config),
  },
  handler: (_params, { mpool }) => mpool.pool.config,
});

export const mpoolSetConfig = declareMpoolMethod({
  name: 'MpoolSetConfig',
  description:
    'Replaces the pool configuration and stores it. Refuses ReplaceByFeeRatio below 1.10 and GasLimitOverestimation below 1.',
  permission: 'admin',
  params: [mpoolConfigParam],
  result: voidResult,
  handler: ([config], { mpool }) => mpool.pool.setConfig(config),
});

function signedMessagesParam(
  name: string,
  description: string,
): ParamDeclaration<SignedMessage[], SignedMessageJson[] | null> {
  return listParam(name, description, { schema: signedMessageSchema, decode: signedMessageFromLotusJson });
}

/** A list Go builds by appending: `null` when nothing was appended. */
function appendedList<T, J>(items: readonly T[], toJson: (item: T) => J): J[] | null {
  return items.length === 0 ? null : items.map(toJson);
}

function cidsResult(description: string): ResultDeclaration<CID[], CidJson[] | null> {
  return {
    name: 'cids',
    description,
    schema: { type: ['array', 'null'], items: cidSchema },
    encode: (cids) => appendedList(cids, cidToLotusJson),
  };
}

/**
 * Lotus's batch pushes first check every message's recipient, then push them one by one and stop
 * at the first refusal: the messages before it stay pushed (filecoin-project/lotus
 * `node/impl/full/mpool.go`). The error says which message was refused.
 */
async function pushEach<T, R>(
  items: readonly T[],
  describe: (item: T) => string,
  unsigned: (item: T) => Message,
  push: (item: T) => Promise<R>,
): Promise<R[]> {
  for (const item of items) {
    try {
      checkDelegatedRecipient(unsigned(item));
    } catch (error) {
      if (error instanceof MpoolError) throw error.wrap(`${describe(item)} failed sanity check`);
      throw error;
    }
  }
  const pushed: R[] = [];
  for (const [index, item] of items.entries()) {
    try {
      pushed.push(await push(item));
    } catch (error) {
      if (!(error instanceof MpoolError)) throw error;
      const before = index === 0 ? 'none before it was pushed' : `the ${index} before it were pushed`;
      throw error.wrap(`${describe(item)} (${index + 1} of ${items.length}; ${before})`);
    }
  }
  return pushed;
}

function batchPush(mpool: MpoolContext, messages: readonly SignedMessage[], untrusted: boolean): Promise<CID[]> {
  return pushEach(
    messages,
    ({ message }) => `message from ${message.from} with nonce ${message.nonce}`,
    (signed) => signed.message,
    (signed) => pushed(mpool, signed, untrusted),
  );
}

export const mpoolBatchPush = declareMpoolMethod({
  name: 'MpoolBatchPush',
  description:
    'MpoolPush for each message in turn, stopping at the first refusal (the messages before it stay pushed). Returns their CIDs; null for an empty list.',
  permission: 'write',
  params: [signedMessagesParam('signedMessages', 'the signed messages')],
  result: cidsResult('the message CIDs'),
  handler: ([messages], { mpool }) => batchPush(mpool, messages, false),
});

export const mpoolBatchPushUntrusted = declareMpoolMethod({
  name: 'MpoolBatchPushUntrusted',
  description:
    'MpoolPushUntrusted for each message in turn, stopping at the first refusal (the messages before it stay pushed). Returns their CIDs; null for an empty list.',
  permission: 'write',
  params: [signedMessagesParam('signedMessages', 'the signed messages')],
  result: cidsResult('the message CIDs'),
  handler: ([messages], { mpool }) => batchPush(mpool, messages, true),
});

export const mpoolBatchPushMessage = declareMpoolMethod({
  name: 'MpoolBatchPushMessage',
  description:
    'MpoolPushMessage for each message in turn with the same spec, stopping at the first refusal (the messages before it stay pushed). Returns the signed messages; null for an empty list.',
  permission: 'sign',
  // Each message is a gas estimation: it runs once per message.
  expensive: true,
  params: [
    messagesParam('messages', 'the unsigned messages, Nonce 0'),
    sendSpecParam('spec', 'MessageSendSpec or null, for every message'),
  ],
  result: {
    name: 'signedMessages',
    description: 'the signed messages as pushed',
    schema: { type: ['array', 'null'], items: signedMessageSchema },
    encode: (messages: SignedMessage[]) => appendedList(messages, signedMessageJson),
  },
  handler: ([messages, spec], { mpool, net }) => {
    if (messages.length > 0) net?.sync.requireSynced('MpoolBatchPushMessage');
    return pushEach(
      messages,
      (message) => `message from ${message.from}`,
      (message) => message,
      (message) => mpool.signer.pushMessage(message, spec),
    );
  },
});

const messageCheckStatusSchema = {
  title: 'MessageCheckStatus',
  type: 'object',
  properties: {
    Cid: cidSchema,
    Code: {
      type: 'integer',
      description:
        '1 serialize, 2 size, 3 validity, 4 min gas, 5 min base fee, 6 base fee, 7 base fee lower bound, 8 base fee upper bound, 9 get state nonce, 10 nonce, 11 get state balance, 12 balance',
    },
    OK: { type: 'boolean' },
    Err: { type: 'string' },
    Hint: { type: ['object', 'null'], description: 'what the check compared with (nonce, balance, minGas, baseFee …)' },
  },
} as const;

/** Lotus `api.MessageCheckStatus` as JSON: the embedded CheckStatus's fields sit beside Cid. */
function messageCheckStatusJson(status: MessageCheckStatus) {
  return { Cid: cidToLotusJson(status.cid), Code: status.code, OK: status.ok, Err: status.err, Hint: status.hint };
}

type MessageCheckStatusJson = ReturnType<typeof messageCheckStatusJson>;

/** Lists of checks; `nullWhenEmpty` where Lotus returns a nil slice for no messages. */
function checkResultsResult(
  description: string,
  nullWhenEmpty: boolean,
): ResultDeclaration<MessageCheckStatus[][], MessageCheckStatusJson[][] | null> {
  return {
    name: 'checks',
    description,
    schema: { type: ['array', 'null'], items: { type: 'array', items: messageCheckStatusSchema } },
    encode: (checks) =>
      checks.length === 0 && nullWhenEmpty ? null : checks.map((list) => list.map(messageCheckStatusJson)),
  };
}

export const mpoolCheckMessages = declareMpoolMethod({
  name: 'MpoolCheckMessages',
  description:
    "Checks messages before they are sent, as the pool judges them on its head: per message, the checks in Lotus's order (state nonce, state balance, serialization, size, validity, min gas, min base fee, base fee, its 20-epoch lower and upper bounds, nonce, balance), each with OK, Err and a Hint. Nonces and funds continue from the sender's pooled messages; a prototype without ValidNonce skips the nonce check. A failed state or validity check ends that message's list.",
  permission: 'read',
  apiVersions: [1],
  params: [messagePrototypesParam('prototypes', 'MessagePrototypes: {Message, ValidNonce}')],
  result: checkResultsResult('one list of MessageCheckStatus per message', false),
  handler: ([prototypes], { mpool }) =>
    checkMessages(
      mpool.pool,
      mpool.pool.params,
      prototypes.map((prototype: MessagePrototype) => prototype.message),
      { interned: false, flexibleNonces: prototypes.map((prototype) => !prototype.validNonce) },
    ),
});

export const mpoolCheckPendingMessages = declareMpoolMethod({
  name: 'MpoolCheckPendingMessages',
  description:
    "MpoolCheckMessages's checks on a sender's pooled messages, in nonce order, with nonces and funds counted from its state; null when it has none pooled.",
  permission: 'read',
  apiVersions: [1],
  params: [addressParam('from', 'the sender')],
  result: checkResultsResult('one list of MessageCheckStatus per pooled message, or null', true),
  handler: ([from], { mpool }) => {
    const pending = mpool.pool.pendingSet(from);
    if (pending === undefined) return [];
    return checkMessages(
      mpool.pool,
      mpool.pool.params,
      pending.messages.map((signed) => signed.message),
      { interned: true },
    );
  },
});

/**
 * Lotus `CheckReplaceMessages`: each sender's pooled messages with the given ones in their nonce
 * slots, per sender in nonce order (senders in the order first given).
 */
function withReplacements(mpool: MpoolContext, replacements: readonly Message[]): Message[] {
  const bySender = new Map<string, Map<bigint, Message>>();
  for (const message of replacements) {
    const key = message.from.toString();
    let byNonce = bySender.get(key);
    if (byNonce === undefined) {
      const pooled = mpool.pool.pendingSet(message.from)?.messages ?? [];
      byNonce = new Map(pooled.map((signed) => [signed.message.nonce, signed.message]));
      bySender.set(key, byNonce);
    }
    byNonce.set(message.nonce, message);
  }
  return [...bySender.values()].flatMap((byNonce) =>
    [...byNonce.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0)),
  );
}

export const mpoolCheckReplaceMessages = declareMpoolMethod({
  name: 'MpoolCheckReplaceMessages',
  description:
    "MpoolCheckMessages's checks on the pool as it would be after replacing pooled messages with the given ones (same sender and nonce): one list per message of the senders concerned, their pooled messages included, in nonce order, nonces and funds counted from their state.",
  permission: 'read',
  apiVersions: [1],
  params: [messagesParam('messages', 'the replacing messages')],
  result: checkResultsResult('one list of MessageCheckStatus per message of the senders concerned', false),
  handler: ([messages], { mpool }) =>
    checkMessages(mpool.pool, mpool.pool.params, withReplacements(mpool, messages), { interned: true }),
});

export const mpoolClear = declareMpoolMethod({
  name: 'MpoolClear',
  description:
    'Drops pooled messages: with local false those of every sender this node did not push for (local messages stay), with local true all of them, local ones included, from memory and disk.',
  permission: 'write',
  params: [booleanParam('local', 'also drop the local messages')],
  result: voidResult,
  handler: ([local], { mpool }) => {
    mpool.pool.clear(local);
  },
});

/** Lotus `api.MpoolUpdate`. */
export interface MpoolUpdateJson {
  Type: number;
  Message: SignedMessageJson;
}

export const mpoolSub = declareMpoolMethod({
  name: 'MpoolSub',
  description:
    'A channel (WebSocket only) of the pool\'s changes: {"Type":0,"Message":…} for every message that joins it (any sender), {"Type":1,…} for every one that leaves it (included in a block, replaced, pruned). No snapshot of the pool comes first.',
  permission: 'read',
  params: [],
  // Lotus buffers 20 updates per subscriber (chain/messagepool/messagepool.go, Updates).
  result: channelResult<MpoolUpdate, MpoolUpdateJson>(
    {
      name: 'update',
      description: 'pool updates {Type, Message}',
      schema: {
        title: 'MpoolUpdate',
        type: 'object',
        properties: { Type: { type: 'integer', enum: [0, 1] }, Message: signedMessageSchema },
        required: ['Type', 'Message'],
      },
      encode: (update) => ({ Type: update.type, Message: signedMessageJson(update.message) }),
    },
    { buffer: 20 },
  ),
  handler:
    (_params, { mpool }) =>
    (sink) => {
      const unsubscribe = mpool.pool.onUpdate((update) => sink.send(update));
      sink.signal.addEventListener('abort', unsubscribe, { once: true });
    },
});

export const mpoolMethods = [
  mpoolPush,
  mpoolPushUntrusted,
  mpoolPushMessage,
  mpoolPending,
  mpoolGetNonce,
  mpoolSelect,
  mpoolGetConfig,
  mpoolSetConfig,
  mpoolBatchPush,
  mpoolBatchPushUntrusted,
  mpoolBatchPushMessage,
  mpoolCheckMessages,
  mpoolCheckPendingMessages,
  mpoolCheckReplaceMessages,
  mpoolClear,
  mpoolSub,
];
