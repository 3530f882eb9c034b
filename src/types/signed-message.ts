/**
 * SignedMessage: CBOR `[Message, Signature]`. Its CID follows Lotus: a BLS-signed message is known
 * by its unsigned message's CID (blocks carry BLS messages unsigned, their signatures aggregated);
 * any other by the CID of the SignedMessage CBOR.
 */
import type { CID } from 'multiformats/cid';
import { cidOfCbor } from './cid.js';
import { cidSchema, struct } from './field-kinds.js';
import { type CidJson, cidToLotusJson } from './json.js';
import { type MessageJson, messageCid, messageSchema, messageStruct, messageToLotusJsonWithCid } from './message.js';
import { type SignatureJson, SignatureType, signatureKind, signatureToLotusJson } from './signature.js';
import { declareStruct, type StructValue } from './struct.js';

export const signedMessageStruct = declareStruct('SignedMessage', [
  { key: 'message', json: 'Message', kind: struct(messageStruct) },
  { key: 'signature', json: 'Signature', kind: signatureKind },
]);

export type SignedMessage = StructValue<typeof signedMessageStruct>;

export interface SignedMessageJson {
  Message: MessageJson;
  Signature: SignatureJson;
  /** Output only: the chain CID (see `signedMessageCid`). */
  CID: CidJson;
}

/** Lotus writes both CIDs, the message's and the chain CID, which the declaration cannot derive: output only. */
export const signedMessageSchema = {
  ...signedMessageStruct.schema,
  properties: { Message: messageSchema, Signature: signatureKind.schema, CID: cidSchema },
};

export const signedMessageToCborNode = signedMessageStruct.toCborNode;
export const signedMessageFromCborNode = signedMessageStruct.fromCborNode;
export const encodeSignedMessage = signedMessageStruct.encode;
export const decodeSignedMessage = signedMessageStruct.decode;
export const signedMessageFromLotusJson = signedMessageStruct.fromLotusJson;

/** The CID a message has on chain and in the mpool: the unsigned CID for BLS, else the signed one. */
export function signedMessageCid(signedMessage: SignedMessage): CID {
  if (signedMessage.signature.type === SignatureType.BLS) return messageCid(signedMessage.message);
  return cidOfCbor(encodeSignedMessage(signedMessage));
}

export function signedMessageToLotusJson(signedMessage: SignedMessage): SignedMessageJson {
  const unsignedCid = messageCid(signedMessage.message);
  const cid =
    signedMessage.signature.type === SignatureType.BLS ? unsignedCid : cidOfCbor(encodeSignedMessage(signedMessage));
  return signedMessageToLotusJsonWithCids(signedMessage, cid, unsignedCid);
}

/** `signedMessageToLotusJson` with both CIDs already known: the chain CID and the unsigned message's. */
export function signedMessageToLotusJsonWithCids(
  signedMessage: SignedMessage,
  cid: CID,
  unsignedCid: CID,
): SignedMessageJson {
  return {
    Message: messageToLotusJsonWithCid(signedMessage.message, unsignedCid),
    Signature: signatureToLotusJson(signedMessage.signature),
    CID: cidToLotusJson(cid),
  };
}
