/**
 * Message pool methods with Lotus's parameters, nulls and permissions (filecoin-project/lotus
 * `api/api_full.go`, `node/impl/full/mpool.go`): MpoolPush (write), MpoolPushUntrusted (write),
 * MpoolPushMessage (sign), MpoolPending (read; `[]` when empty), MpoolGetNonce (read), MpoolSelect
 * (read), MpoolGetConfig (read), MpoolSetConfig (admin).
 */
import type { CID } from 'multiformats/cid';
import {
  checkDelegatedRecipient,
  type MpoolConfig,
  type MpoolConfigJson,
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
  readJsonObject,
  type SignedMessage,
  type SignedMessageJson,
  signedMessageFromLotusJson,
  toJsonInteger,
} from '../../types/index.js';
import { tipSetKeyParam } from '../chain-codecs.js';
import type { MpoolContext } from '../context.js';
import { methodsNeeding, type ParamDeclaration, type ResultDeclaration } from '../method.js';
import { addressParam, messageParam } from '../params.js';
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

export const mpoolMethods = [
  mpoolPush,
  mpoolPushUntrusted,
  mpoolPushMessage,
  mpoolPending,
  mpoolGetNonce,
  mpoolSelect,
  mpoolGetConfig,
  mpoolSetConfig,
];
