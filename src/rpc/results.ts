/** Result declarations shared by method declarations: a JSON schema and the Lotus JSON encoder. */
import {
  type Address,
  addressToLotusJson,
  type Signature,
  type SignatureJson,
  type SignedMessage,
  type SignedMessageJson,
  signatureToLotusJson,
  signedMessageToLotusJsonWithCids,
} from '../types/index.js';
import { toBase64 } from '../utils/bytes.js';
import { signedChainMessage, unsignedMessageCid } from '../vm/index.js';
import { type KeyInfo, type KeyInfoJson, keyInfoToLotusJson } from '../wallet/index.js';
import type { JsonSchema, ResultDeclaration } from './method.js';
import {
  addressSchema,
  booleanSchema,
  bytesSchema,
  keyInfoSchema,
  nullSchema,
  signatureSchema,
  signedMessageSchema,
} from './schemas.js';

/** A result that is already Lotus JSON (plain data built by the handler). */
export function jsonResult<R>(name: string, description: string, schema: JsonSchema): ResultDeclaration<R, R> {
  return { name, description, schema, encode: (value) => value };
}

export function addressResult(description: string): ResultDeclaration<Address, string> {
  return { name: 'address', description, schema: addressSchema, encode: addressToLotusJson };
}

export function addressListResult(description: string): ResultDeclaration<Address[], string[]> {
  return {
    name: 'addresses',
    description,
    schema: { type: 'array', items: addressSchema },
    encode: (addresses) => addresses.map(addressToLotusJson),
  };
}

export function booleanResult(description: string): ResultDeclaration<boolean, boolean> {
  return { name: 'ok', description, schema: booleanSchema, encode: (value) => value };
}

/** Methods that only succeed or fail answer `null`, as go-jsonrpc does. */
export const voidResult: ResultDeclaration<void, null> = {
  name: 'none',
  description: 'null on success',
  schema: nullSchema,
  encode: () => null,
};

export function bytesResult(description: string): ResultDeclaration<Uint8Array, string> {
  return { name: 'bytes', description, schema: bytesSchema, encode: toBase64 };
}

export function signatureResult(description: string): ResultDeclaration<Signature, SignatureJson> {
  return { name: 'signature', description, schema: signatureSchema, encode: signatureToLotusJson };
}

/**
 * Lotus JSON of a signed message with the CIDs remembered for the message object: a message the
 * pool or a block holds is encoded and hashed once, however often MpoolPending lists it.
 */
export function signedMessageJson(signed: SignedMessage): SignedMessageJson {
  return signedMessageToLotusJsonWithCids(signed, signedChainMessage(signed).cid, unsignedMessageCid(signed));
}

export function signedMessageResult(description: string): ResultDeclaration<SignedMessage, SignedMessageJson> {
  return { name: 'signedMessage', description, schema: signedMessageSchema, encode: signedMessageJson };
}

export function keyInfoResult(description: string): ResultDeclaration<KeyInfo, KeyInfoJson> {
  return { name: 'keyInfo', description, schema: keyInfoSchema, encode: keyInfoToLotusJson };
}
