/**
 * Parameter and result declarations of the chain's types (tipsets, blocks, messages, receipts,
 * actors, block templates), each a JSON schema with its strict Lotus JSON codec.
 */
import type { CID } from 'multiformats/cid';
import type { HeadChange } from '../chain/index.js';
import { type BlockTemplate, blockTemplateFromLotusJson } from '../miner/index.js';
import {
  type Actor,
  type ActorJson,
  actorStruct,
  actorToLotusJson,
  addressSchema,
  type BlockHeader,
  type BlockHeaderJson,
  type BlockMsg,
  type BlockMsgJson,
  beaconEntryStruct,
  bigIntSchema,
  bigIntToLotusJson,
  blockHeaderStruct,
  blockHeaderToLotusJson,
  blockMsgStruct,
  blockMsgToLotusJson,
  type CidJson,
  cidToLotusJson,
  electionProofStruct,
  getDefaultNetwork,
  type JsonInteger,
  kinds,
  type Message,
  type MessageJson,
  type MessageReceipt,
  type MessageReceiptJson,
  messageReceiptStruct,
  messageReceiptToLotusJson,
  messageToLotusJson,
  postProofStruct,
  readJsonCid,
  readJsonInt64,
  type SignedMessage,
  type SignedMessageJson,
  type TipSet,
  type TipSetJson,
  type TipSetKey,
  ticketStruct,
  tipSetKeyFromLotusJson,
  tipSetKeySchema,
  tipSetToLotusJson,
} from '../types/index.js';
import type { ParamDeclaration, ResultDeclaration } from './method.js';
import { signedMessageJson } from './results.js';
import { cidSchema, messageSchema, signedMessageSchema } from './schemas.js';
import { sharedResult } from './shared-results.js';

export { tipSetKeySchema };

const ticketSchema = kinds.nullable(ticketStruct.kind).schema;
const electionProofSchema = kinds.nullable(electionProofStruct.kind).schema;

export const blockHeaderSchema = blockHeaderStruct.schema;

/** TipSet is rebuilt from its blocks (tipset.ts), so its JSON is written by hand; its parts are declared. */
export const tipSetSchema = {
  title: 'TipSet',
  type: 'object',
  properties: {
    Cids: { type: 'array', items: cidSchema },
    Blocks: { type: 'array', items: blockHeaderSchema },
    Height: kinds.int64.schema,
  },
  required: ['Cids', 'Blocks', 'Height'],
} as const;

/** The miner's BlockTemplate (miner/block-template.ts) names Lotus's fields of api.BlockTemplate. */
export const blockTemplateSchema = {
  title: 'BlockTemplate',
  type: 'object',
  properties: {
    Miner: addressSchema,
    Parents: { type: 'array', items: cidSchema },
    Ticket: ticketSchema,
    Eproof: electionProofSchema,
    BeaconValues: kinds.array(beaconEntryStruct.kind).schema,
    Messages: { type: ['array', 'null'], items: signedMessageSchema },
    Epoch: kinds.int64.schema,
    Timestamp: kinds.uint64.schema,
    WinningPoStProof: kinds.array(postProofStruct.kind).schema,
  },
  required: ['Miner', 'Parents', 'Ticket', 'Eproof', 'Epoch', 'Timestamp'],
} as const;

/** A CID, or `null` for none (go-cid reads `null` as the undefined CID). */
export function nullableCidParam(name: string, description: string): ParamDeclaration<CID | null, CidJson | null> {
  return {
    name,
    description,
    schema: { oneOf: [cidSchema, { type: 'null' }] },
    decode: (json, path) => (json === null ? null : readJsonCid(json, path)),
  };
}

export function tipSetKeyParam(
  name: string,
  description: string,
): ParamDeclaration<TipSetKey, readonly CidJson[] | null> {
  return { name, description, schema: tipSetKeySchema, decode: tipSetKeyFromLotusJson };
}

export function cidParam(name: string, description: string): ParamDeclaration<CID, CidJson> {
  return { name, description, schema: cidSchema, decode: readJsonCid };
}

export function epochParam(name: string, description: string): ParamDeclaration<bigint, JsonInteger> {
  return { name, description, schema: { type: 'integer' }, decode: readJsonInt64 };
}

export function blockTemplateParam(name: string, description: string): ParamDeclaration<BlockTemplate> {
  return { name, description, schema: blockTemplateSchema, decode: blockTemplateFromLotusJson };
}

/**
 * Lotus JSON of tipsets already answered, per network prefix: a tipset never changes, and ChainHead
 * is asked for the same head thousands of times a second. The JSON is only ever serialized, never
 * modified, so one object serves every answer.
 */
const tipSetJsonCache = new WeakMap<TipSet, { network: string; json: TipSetJson }>();

function cachedTipSetJson(tipSet: TipSet): TipSetJson {
  const network = getDefaultNetwork();
  const known = tipSetJsonCache.get(tipSet);
  if (known !== undefined && known.network === network) return known.json;
  const json = sharedResult(tipSetToLotusJson(tipSet));
  tipSetJsonCache.set(tipSet, { network, json });
  return json;
}

/** Lotus `api.HeadChange`: a tipset that became the head's ancestry (`apply`), left it (`revert`), or is the head (`current`). */
export interface HeadChangeJson {
  Type: 'current' | 'revert' | 'apply';
  Val: TipSetJson;
}

/** A head change as ChainNotify reports it: the head when subscribing, then each change of the chain store. */
export type HeadNotification = { readonly current: TipSet } | HeadChange;

/** The JSON of notifications sent already: every subscriber of a head change gets the same bytes. */
const headNotificationCache = new WeakMap<object, { network: string; json: HeadChangeJson[] }>();

/**
 * Lotus's `[]*HeadChange` of a notification: reverts newest first, then applies oldest first
 * (`ReorgOps` order, as `headChangePath` builds it). Shared (shared-results.ts): written once
 * however many subscribers it goes to.
 */
function headNotificationJson(notification: HeadNotification): HeadChangeJson[] {
  const network = getDefaultNetwork();
  const key = 'current' in notification ? notification.current : notification;
  const known = headNotificationCache.get(key);
  if (known !== undefined && known.network === network) return known.json;
  const json = sharedResult(
    'current' in notification
      ? [{ Type: 'current' as const, Val: cachedTipSetJson(notification.current) }]
      : [
          ...notification.revert.map((tipSet) => ({ Type: 'revert' as const, Val: cachedTipSetJson(tipSet) })),
          ...notification.apply.map((tipSet) => ({ Type: 'apply' as const, Val: cachedTipSetJson(tipSet) })),
        ],
  );
  headNotificationCache.set(key, { network, json });
  return json;
}

export function headChangesResult(description: string): ResultDeclaration<HeadNotification, HeadChangeJson[]> {
  return {
    name: 'headChanges',
    description,
    schema: {
      type: 'array',
      items: {
        title: 'HeadChange',
        type: 'object',
        properties: { Type: { type: 'string', enum: ['current', 'revert', 'apply'] }, Val: tipSetSchema },
        required: ['Type', 'Val'],
      },
    },
    encode: headNotificationJson,
  };
}

export function tipSetResult(description: string): ResultDeclaration<TipSet, TipSetJson> {
  return { name: 'tipSet', description, schema: tipSetSchema, encode: cachedTipSetJson };
}

export function blockHeaderResult(description: string): ResultDeclaration<BlockHeader, BlockHeaderJson> {
  return { name: 'blockHeader', description, schema: blockHeaderSchema, encode: blockHeaderToLotusJson };
}

export function messageResult(description: string): ResultDeclaration<Message, MessageJson> {
  return { name: 'message', description, schema: messageSchema, encode: messageToLotusJson };
}

export function bigIntResult(description: string): ResultDeclaration<bigint, string> {
  return { name: 'amount', description, schema: bigIntSchema, encode: bigIntToLotusJson };
}

export function actorResult(description: string): ResultDeclaration<Actor, ActorJson> {
  return { name: 'actor', description, schema: actorStruct.schema, encode: actorToLotusJson };
}

/** Lotus `api.Message`: the chain CID (`Cid`) and the unsigned message. */
export interface ApiMessage {
  readonly cid: CID;
  readonly message: Message;
}

/** A list that Go returns as a nil slice when empty: `null`, not `[]`. */
/** Lotus `api.Message` as JSON. */
export interface ApiMessageJson {
  Cid: CidJson;
  Message: MessageJson;
}

export function apiMessagesResult(
  description: string,
): ResultDeclaration<ApiMessage[] | null, ApiMessageJson[] | null> {
  return {
    name: 'messages',
    description,
    schema: {
      type: ['array', 'null'],
      items: { type: 'object', properties: { Cid: cidSchema, Message: messageSchema } },
    },
    encode: (messages) =>
      messages === null || messages.length === 0
        ? null
        : messages.map((m) => ({ Cid: cidToLotusJson(m.cid), Message: messageToLotusJson(m.message) })),
  };
}

export function receiptsResult(
  description: string,
): ResultDeclaration<MessageReceipt[] | null, MessageReceiptJson[] | null> {
  return {
    name: 'receipts',
    description,
    schema: { type: ['array', 'null'], items: messageReceiptStruct.schema },
    encode: (receipts) => (receipts === null ? null : receipts.map(messageReceiptToLotusJson)),
  };
}

export interface BlockMessagesValue {
  readonly blsMessages: readonly Message[];
  readonly secpkMessages: readonly SignedMessage[];
  readonly cids: readonly CID[];
}

/** Lotus `api.BlockMessages` as JSON. */
export interface BlockMessagesJson {
  BlsMessages: MessageJson[];
  SecpkMessages: SignedMessageJson[];
  Cids: CidJson[];
}

export function blockMessagesResult(description: string): ResultDeclaration<BlockMessagesValue, BlockMessagesJson> {
  return {
    name: 'blockMessages',
    description,
    schema: {
      title: 'BlockMessages',
      type: 'object',
      properties: {
        BlsMessages: { type: 'array', items: messageSchema },
        SecpkMessages: { type: 'array', items: signedMessageSchema },
        Cids: { type: 'array', items: cidSchema },
      },
    },
    encode: (value) => ({
      BlsMessages: value.blsMessages.map(messageToLotusJson),
      SecpkMessages: value.secpkMessages.map(signedMessageJson),
      Cids: value.cids.map(cidToLotusJson),
    }),
  };
}

export function nullableBlockMsgResult(description: string): ResultDeclaration<BlockMsg | null, BlockMsgJson | null> {
  return {
    name: 'blockMsg',
    description,
    schema: {
      oneOf: [blockMsgStruct.schema, { type: 'null' }],
    },
    encode: (block) => (block === null ? null : blockMsgToLotusJson(block)),
  };
}
