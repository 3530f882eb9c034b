/**
 * Message (lotus chain/types): CBOR 10-tuple `[Version, To, From, Nonce, Value, GasLimit, GasFeeCap,
 * GasPremium, Method, Params]`, Version always 0. Its CID is what gets signed (as binary CID bytes)
 * and what BLS messages are known by on chain.
 */
import type { CID } from 'multiformats/cid';
import { addressKind } from './address.js';
import { cidOfCbor } from './cid.js';
import { InvalidMessageError } from './errors.js';
import { bigInt, bytes, cidSchema, constant, int64, uint64 } from './field-kinds.js';
import { type CidJson, cidToLotusJson } from './json.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';
import { TOTAL_FILECOIN } from './token-amount.js';

export const messageStruct = declareStruct('Message', [
  { json: 'Version', kind: constant(uint64, 0n, 'the only message version') },
  { key: 'to', json: 'To', kind: addressKind },
  { key: 'from', json: 'From', kind: addressKind },
  { key: 'nonce', json: 'Nonce', kind: uint64 },
  { key: 'value', json: 'Value', kind: bigInt, description: 'attoFIL' },
  { key: 'gasLimit', json: 'GasLimit', kind: int64 },
  { key: 'gasFeeCap', json: 'GasFeeCap', kind: bigInt, description: 'attoFIL per gas unit' },
  { key: 'gasPremium', json: 'GasPremium', kind: bigInt, description: 'attoFIL per gas unit' },
  { key: 'method', json: 'Method', kind: uint64 },
  { key: 'params', json: 'Params', kind: bytes },
]);

export type Message = StructValue<typeof messageStruct>;

export type MessageJson = StructJson<typeof messageStruct> & {
  /** Output only (Lotus adds it); ignored on input. */
  CID: CidJson;
};

/** Lotus's JSON of a message carries its CID, which the declaration cannot derive: output only, as in Lotus. */
export const messageSchema = {
  ...messageStruct.schema,
  properties: {
    ...(messageStruct.schema.properties as object),
    CID: { ...cidSchema, description: 'output only; ignored on input' },
  },
};

export const messageToCborNode = messageStruct.toCborNode;
export const messageFromCborNode = messageStruct.fromCborNode;
export const encodeMessage = messageStruct.encode;
export const decodeMessage = messageStruct.decode;
export const messageFromLotusJson = messageStruct.fromLotusJson;

export function messageCid(message: Message): CID {
  return cidOfCbor(encodeMessage(message));
}

/** What a sender signs: the binary CID of the message (38 bytes), not its CBOR. */
export function messageSigningBytes(message: Message): Uint8Array {
  return messageCid(message).bytes;
}

export function messageToLotusJson(message: Message): MessageJson {
  return messageToLotusJsonWithCid(message, messageCid(message));
}

/** `messageToLotusJson` with the message's CID already known (no encoding and hashing again). */
export function messageToLotusJsonWithCid(message: Message, cid: CID): MessageJson {
  const json = messageStruct.toLotusJson(message) as MessageJson;
  json.CID = cidToLotusJson(cid);
  return json;
}

/**
 * The checks of Lotus `Message.ValidForBlockInclusion` that need no chain parameters: amounts in
 * range and a positive gas limit. Callers add the block gas limit, the minimum gas and the
 * network-version address rules.
 */
export function validateMessageFields(message: Message): void {
  const fail = (reason: string): never => {
    throw new InvalidMessageError(reason);
  };
  if (message.value < 0n) fail("'Value' field cannot be negative");
  if (message.value > TOTAL_FILECOIN) fail("'Value' field cannot be greater than total filecoin supply");
  if (message.gasFeeCap < 0n) fail("'GasFeeCap' field cannot be negative");
  if (message.gasPremium < 0n) fail("'GasPremium' field cannot be negative");
  if (message.gasPremium > message.gasFeeCap) fail("'GasFeeCap' less than 'GasPremium'");
  if (message.gasLimit <= 0n) fail(`'GasLimit' field ${message.gasLimit} must be positive`);
}
