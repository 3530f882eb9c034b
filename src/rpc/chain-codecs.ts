/**
 * Parameter and result declarations of the chain's types (tipsets, blocks, messages, receipts,
 * actors, block templates), each a JSON schema with its strict Lotus JSON codec.
 */
import type { CID } from 'multiformats/cid';
import { type BlockTemplate, blockTemplateFromLotusJson } from '../miner/index.js';
import {
  type Actor,
  actorToLotusJson,
  type BlockHeader,
  type BlockMsg,
  bigIntToLotusJson,
  blockHeaderToLotusJson,
  blockMsgToLotusJson,
  cidToLotusJson,
  getDefaultNetwork,
  type Message,
  type MessageReceipt,
  messageReceiptToLotusJson,
  messageToLotusJson,
  readJsonCid,
  readJsonInt64,
  type SignedMessage,
  type TipSet,
  type TipSetKey,
  tipSetKeyFromLotusJson,
  tipSetToLotusJson,
} from '../types/index.js';
import type { JsonSchema, ParamDeclaration, ResultDeclaration } from './method.js';
import { signedMessageJson } from './results.js';
import {
  addressSchema,
  bytesSchema,
  cidSchema,
  messageSchema,
  signatureSchema,
  signedMessageSchema,
} from './schemas.js';
import { sharedResult } from './shared-results.js';

const bigIntSchema = { type: 'string', pattern: '^-?[0-9]+$', description: 'a decimal integer' } as const;
const beaconEntrySchema = {
  title: 'BeaconEntry',
  type: 'object',
  properties: { Round: { type: 'integer' }, Data: bytesSchema },
} as const;
const postProofSchema = {
  title: 'PoStProof',
  type: 'object',
  properties: { PoStProof: { type: 'integer' }, ProofBytes: bytesSchema },
} as const;
const ticketSchema = { title: 'Ticket', type: ['object', 'null'], properties: { VRFProof: bytesSchema } } as const;
const electionProofSchema = {
  title: 'ElectionProof',
  type: ['object', 'null'],
  properties: { WinCount: { type: 'integer' }, VRFProof: bytesSchema },
} as const;

export const tipSetKeySchema = {
  title: 'TipSetKey',
  type: ['array', 'null'],
  items: cidSchema,
  description: 'the CIDs of the blocks of a tipset; null or [] for the heaviest tipset',
} as const;

export const blockHeaderSchema = {
  title: 'BlockHeader',
  type: 'object',
  properties: {
    Miner: addressSchema,
    Ticket: ticketSchema,
    ElectionProof: electionProofSchema,
    BeaconEntries: { type: ['array', 'null'], items: beaconEntrySchema },
    WinPoStProof: { type: ['array', 'null'], items: postProofSchema },
    Parents: { type: 'array', items: cidSchema },
    ParentWeight: bigIntSchema,
    Height: { type: 'integer' },
    ParentStateRoot: cidSchema,
    ParentMessageReceipts: cidSchema,
    Messages: cidSchema,
    BLSAggregate: { oneOf: [signatureSchema, { type: 'null' }] },
    Timestamp: { type: 'integer' },
    BlockSig: { oneOf: [signatureSchema, { type: 'null' }] },
    ForkSignaling: { type: 'integer' },
    ParentBaseFee: bigIntSchema,
  },
} as const;

export const tipSetSchema = {
  title: 'TipSet',
  type: 'object',
  properties: {
    Cids: { type: 'array', items: cidSchema },
    Blocks: { type: 'array', items: blockHeaderSchema },
    Height: { type: 'integer' },
  },
  required: ['Cids', 'Blocks', 'Height'],
} as const;

const receiptSchema = {
  title: 'MessageReceipt',
  type: 'object',
  properties: {
    ExitCode: { type: 'integer' },
    Return: { oneOf: [bytesSchema, { type: 'null' }] },
    GasUsed: { type: 'integer' },
    EventsRoot: { oneOf: [cidSchema, { type: 'null' }] },
  },
} as const;

const actorSchema = {
  title: 'Actor',
  type: 'object',
  properties: {
    Code: cidSchema,
    Head: cidSchema,
    Nonce: { type: 'integer' },
    Balance: bigIntSchema,
    DelegatedAddress: { oneOf: [addressSchema, { type: 'null' }] },
  },
} as const;

export const blockTemplateSchema = {
  title: 'BlockTemplate',
  type: 'object',
  properties: {
    Miner: addressSchema,
    Parents: { type: 'array', items: cidSchema },
    Ticket: ticketSchema,
    Eproof: electionProofSchema,
    BeaconValues: { type: ['array', 'null'], items: beaconEntrySchema },
    Messages: { type: ['array', 'null'], items: signedMessageSchema },
    Epoch: { type: 'integer' },
    Timestamp: { type: 'integer' },
    WinningPoStProof: { type: ['array', 'null'], items: postProofSchema },
  },
  required: ['Miner', 'Parents', 'Ticket', 'Eproof', 'Epoch', 'Timestamp'],
} as const;

export function tipSetKeyParam(name: string, description: string): ParamDeclaration<TipSetKey> {
  return { name, description, schema: tipSetKeySchema, decode: tipSetKeyFromLotusJson };
}

export function cidParam(name: string, description: string): ParamDeclaration<CID> {
  return { name, description, schema: cidSchema, decode: readJsonCid };
}

export function epochParam(name: string, description: string): ParamDeclaration<bigint> {
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
const tipSetJsonCache = new WeakMap<TipSet, { network: string; json: unknown }>();

function cachedTipSetJson(tipSet: TipSet): unknown {
  const network = getDefaultNetwork();
  const known = tipSetJsonCache.get(tipSet);
  if (known !== undefined && known.network === network) return known.json;
  const json = sharedResult(tipSetToLotusJson(tipSet));
  tipSetJsonCache.set(tipSet, { network, json });
  return json;
}

export function tipSetResult(description: string): ResultDeclaration<TipSet> {
  return { name: 'tipSet', description, schema: tipSetSchema, encode: cachedTipSetJson };
}

export function blockHeaderResult(description: string): ResultDeclaration<BlockHeader> {
  return { name: 'blockHeader', description, schema: blockHeaderSchema, encode: blockHeaderToLotusJson };
}

export function messageResult(description: string): ResultDeclaration<Message> {
  return { name: 'message', description, schema: messageSchema, encode: messageToLotusJson };
}

export function bigIntResult(description: string): ResultDeclaration<bigint> {
  return { name: 'amount', description, schema: bigIntSchema, encode: bigIntToLotusJson };
}

export function actorResult(description: string): ResultDeclaration<Actor> {
  return { name: 'actor', description, schema: actorSchema, encode: actorToLotusJson };
}

/** Lotus `api.Message`: the chain CID (`Cid`) and the unsigned message. */
export interface ApiMessage {
  readonly cid: CID;
  readonly message: Message;
}

/** A list that Go returns as a nil slice when empty: `null`, not `[]`. */
export function apiMessagesResult(description: string): ResultDeclaration<ApiMessage[] | null> {
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

export function receiptsResult(description: string): ResultDeclaration<MessageReceipt[] | null> {
  return {
    name: 'receipts',
    description,
    schema: { type: ['array', 'null'], items: receiptSchema },
    encode: (receipts) => (receipts === null ? null : receipts.map(messageReceiptToLotusJson)),
  };
}

export interface BlockMessagesValue {
  readonly blsMessages: readonly Message[];
  readonly secpkMessages: readonly SignedMessage[];
  readonly cids: readonly CID[];
}

export function blockMessagesResult(description: string): ResultDeclaration<BlockMessagesValue> {
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

export function nullableBlockMsgResult(description: string): ResultDeclaration<BlockMsg | null> {
  return {
    name: 'blockMsg',
    description,
    schema: {
      oneOf: [
        {
          title: 'BlockMsg',
          type: 'object',
          properties: {
            Header: blockHeaderSchema,
            BlsMessages: { type: ['array', 'null'], items: cidSchema },
            SecpkMessages: { type: ['array', 'null'], items: cidSchema },
          },
        },
        { type: 'null' },
      ],
    },
    encode: (block) => (block === null ? null : blockMsgToLotusJson(block)),
  };
}

export function plainJsonResult<R>(name: string, description: string, schema: JsonSchema): ResultDeclaration<R> {
  return { name, description, schema, encode: (value) => value };
}
