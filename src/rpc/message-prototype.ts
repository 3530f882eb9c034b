/**
 * Lotus `api.MessagePrototype` (filecoin-project/lotus `api/types.go`): an unsigned message the
 * node built and the caller sends, and whether its nonce is final. The v1 Msig* builders answer
 * one; MpoolCheckMessages checks a list of them. `lotus msig` sends one by estimating its gas
 * (GasEstimateMessageGas), checking it (MpoolCheckMessages, MpoolCheckPendingMessages) and, as
 * ValidNonce is false, handing the message to MpoolPushMessage, which assigns the nonce
 * (filecoin-project/lotus `cli/services.go` PublishMessage).
 */
import {
  declareStruct,
  kinds,
  type Message,
  messageSchema,
  messageStruct,
  messageToLotusJson,
  type StructJson,
  type StructValue,
} from '../types/index.js';
import type { ParamDeclaration, ResultDeclaration } from './method.js';
import { listParam } from './params.js';

/** The Message field as Lotus writes it: with its output-only `CID`. */
const messageWithCidKind = { ...messageStruct.kind, toJson: messageToLotusJson, schema: messageSchema };

export const messagePrototypeStruct = declareStruct('MessagePrototype', [
  { key: 'message', json: 'Message', kind: messageWithCidKind },
  { key: 'validNonce', json: 'ValidNonce', kind: kinds.bool, description: 'false: the pool assigns the nonce' },
]);
export type MessagePrototype = StructValue<typeof messagePrototypeStruct>;
export type MessagePrototypeJson = StructJson<typeof messagePrototypeStruct>;

/** What a builder answers: the message, whose nonce MpoolPushMessage assigns. */
export function prototypeOf(message: Message): MessagePrototype {
  return { message, validNonce: false };
}

export function messagePrototypeResult(description: string): ResultDeclaration<MessagePrototype, MessagePrototypeJson> {
  return {
    name: 'messagePrototype',
    description,
    schema: messagePrototypeStruct.schema,
    encode: messagePrototypeStruct.toLotusJson,
  };
}

export function messagePrototypesParam(
  name: string,
  description: string,
): ParamDeclaration<MessagePrototype[], MessagePrototypeJson[] | null> {
  return listParam(name, description, {
    schema: messagePrototypeStruct.schema,
    decode: messagePrototypeStruct.fromLotusJson,
  });
}
