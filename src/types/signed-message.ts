/**
 * SignedMessage: CBOR `[Message, Signature]`. Its CID follows Lotus: a BLS-signed message is known
 * by its unsigned message's CID (blocks carry BLS messages unsigned, their signatures aggregated);
 * any other by the CID of the SignedMessage CBOR.
 */
import type { CID } from 'multiformats/cid';
import { encodeCbor } from './cbor.js';
import { readTuple } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { cidOfCbor } from './cid.js';
import { type CidJson, cidToLotusJson, jsonField, readJsonObject } from './json.js';
import {
  type Message,
  type MessageJson,
  messageCid,
  messageFromCborNode,
  messageFromLotusJson,
  messageToCborNode,
  messageToLotusJson,
  messageToLotusJsonWithCid,
} from './message.js';
import {
  type Signature,
  type SignatureJson,
  SignatureType,
  signatureFromCborNode,
  signatureFromLotusJson,
  signatureToCborNode,
  signatureToLotusJson,
} from './signature.js';

export interface SignedMessage {
  readonly message: Message;
  readonly signature: Signature;
}

export interface SignedMessageJson {
  Message: MessageJson;
  Signature: SignatureJson;
  /** Output only: the chain CID (see `signedMessageCid`). */
  CID: CidJson;
}

export function signedMessageToCborNode(signedMessage: SignedMessage): CborNode[] {
  return [messageToCborNode(signedMessage.message), signatureToCborNode(signedMessage.signature)];
}

export function signedMessageFromCborNode(node: CborNode, path = 'SignedMessage'): SignedMessage {
  const [message, signature] = readTuple(node, path, 2);
  return {
    message: messageFromCborNode(message, `${path}.Message`),
    signature: signatureFromCborNode(signature, `${path}.Signature`),
  };
}

export function encodeSignedMessage(signedMessage: SignedMessage): Uint8Array {
  return encodeCbor(signedMessageToCborNode(signedMessage));
}

export function decodeSignedMessage(bytes: Uint8Array): SignedMessage {
  return signedMessageFromCborNode(decodeChainCbor(bytes, 'SignedMessage'));
}

/** The CID a message has on chain and in the mpool: the unsigned CID for BLS, else the signed one. */
export function signedMessageCid(signedMessage: SignedMessage): CID {
  if (signedMessage.signature.type === SignatureType.BLS) return messageCid(signedMessage.message);
  return cidOfCbor(encodeSignedMessage(signedMessage));
}

export function signedMessageToLotusJson(signedMessage: SignedMessage): SignedMessageJson {
  return {
    Message: messageToLotusJson(signedMessage.message),
    Signature: signatureToLotusJson(signedMessage.signature),
    CID: cidToLotusJson(signedMessageCid(signedMessage)),
  };
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

export function signedMessageFromLotusJson(json: unknown, path = 'SignedMessage'): SignedMessage {
  const object = readJsonObject(json, path);
  return {
    message: messageFromLotusJson(jsonField(object, 'Message'), `${path}.Message`),
    signature: signatureFromLotusJson(jsonField(object, 'Signature'), `${path}.Signature`),
  };
}
