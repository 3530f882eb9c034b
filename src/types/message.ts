/**
 * Message (lotus chain/types): CBOR 10-tuple `[Version, To, From, Nonce, Value, GasLimit, GasFeeCap,
 * GasPremium, Method, Params]`, Version always 0. Its CID is what gets signed (as binary CID bytes)
 * and what BLS messages are known by on chain.
 */
import type { CID } from 'multiformats/cid';
import { InvalidArgumentError } from '../utils/errors.js';
import {
  type Address,
  addressFromCborNode,
  addressFromLotusJson,
  addressToCborNode,
  addressToLotusJson,
} from './address.js';
import { bigIntFromCborNode, bigIntFromLotusJson, bigIntToCborNode, bigIntToLotusJson } from './big-int.js';
import { CborDecodeError, encodeCbor } from './cbor.js';
import { describeNode, MAX_BYTE_ARRAY_LENGTH, readBytes, readInt64, readTuple, readUint64 } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { cidOfCbor } from './cid.js';
import { InvalidMessageError, JsonDecodeError } from './errors.js';
import { checkRange } from './integers.js';
import {
  bytesToLotusJson,
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonBytes,
  readJsonInt64,
  readJsonObject,
  readJsonUint64,
  toJsonInteger,
} from './json.js';
import { TOTAL_FILECOIN } from './token-amount.js';

export interface Message {
  readonly to: Address;
  readonly from: Address;
  readonly nonce: bigint;
  /** attoFIL */
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly gasFeeCap: bigint;
  readonly gasPremium: bigint;
  readonly method: bigint;
  readonly params: Uint8Array;
}

export interface MessageJson {
  Version: 0;
  To: string;
  From: string;
  Nonce: JsonInteger;
  Value: string;
  GasLimit: JsonInteger;
  GasFeeCap: string;
  GasPremium: string;
  Method: JsonInteger;
  Params: string | null;
  /** Output only (Lotus adds it); ignored on input. */
  CID: CidJson;
}

export function messageToCborNode(message: Message): CborNode[] {
  if (message.params.length > MAX_BYTE_ARRAY_LENGTH) {
    throw new InvalidArgumentError(`Message.Params: ${message.params.length} bytes exceed ${MAX_BYTE_ARRAY_LENGTH}`);
  }
  return [
    0,
    addressToCborNode(message.to),
    addressToCborNode(message.from),
    checkRange(message.nonce, 'uint64', 'Message.Nonce'),
    bigIntToCborNode(message.value),
    checkRange(message.gasLimit, 'int64', 'Message.GasLimit'),
    bigIntToCborNode(message.gasFeeCap),
    bigIntToCborNode(message.gasPremium),
    checkRange(message.method, 'uint64', 'Message.Method'),
    message.params,
  ];
}

export function messageFromCborNode(node: CborNode, path = 'Message'): Message {
  const [version, to, from, nonce, value, gasLimit, gasFeeCap, gasPremium, method, params] = readTuple(node, path, 10);
  if (readUint64(version, `${path}.Version`) !== 0n) {
    throw new CborDecodeError(`${path}.Version: must be 0, got ${describeNode(version)}`);
  }
  return {
    to: addressFromCborNode(to, `${path}.To`),
    from: addressFromCborNode(from, `${path}.From`),
    nonce: readUint64(nonce, `${path}.Nonce`),
    value: bigIntFromCborNode(value, `${path}.Value`),
    gasLimit: readInt64(gasLimit, `${path}.GasLimit`),
    gasFeeCap: bigIntFromCborNode(gasFeeCap, `${path}.GasFeeCap`),
    gasPremium: bigIntFromCborNode(gasPremium, `${path}.GasPremium`),
    method: readUint64(method, `${path}.Method`),
    params: readBytes(params, `${path}.Params`),
  };
}

export function encodeMessage(message: Message): Uint8Array {
  return encodeCbor(messageToCborNode(message));
}

export function decodeMessage(bytes: Uint8Array): Message {
  return messageFromCborNode(decodeChainCbor(bytes, 'Message'));
}

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
  return {
    Version: 0,
    To: addressToLotusJson(message.to),
    From: addressToLotusJson(message.from),
    Nonce: toJsonInteger(message.nonce),
    Value: bigIntToLotusJson(message.value),
    GasLimit: toJsonInteger(message.gasLimit),
    GasFeeCap: bigIntToLotusJson(message.gasFeeCap),
    GasPremium: bigIntToLotusJson(message.gasPremium),
    Method: toJsonInteger(message.method),
    Params: bytesToLotusJson(message.params),
    CID: cidToLotusJson(cid),
  };
}

export function messageFromLotusJson(json: unknown, path = 'Message'): Message {
  const object = readJsonObject(json, path);
  const version = readJsonUint64(jsonField(object, 'Version'), `${path}.Version`);
  if (version !== 0n)
    throw new JsonDecodeError(`${path}.Version: must be 0 (the only message version), got ${version}`);
  return {
    to: addressFromLotusJson(jsonField(object, 'To'), `${path}.To`),
    from: addressFromLotusJson(jsonField(object, 'From'), `${path}.From`),
    nonce: readJsonUint64(jsonField(object, 'Nonce'), `${path}.Nonce`),
    value: bigIntFromLotusJson(jsonField(object, 'Value'), `${path}.Value`),
    gasLimit: readJsonInt64(jsonField(object, 'GasLimit'), `${path}.GasLimit`),
    gasFeeCap: bigIntFromLotusJson(jsonField(object, 'GasFeeCap'), `${path}.GasFeeCap`),
    gasPremium: bigIntFromLotusJson(jsonField(object, 'GasPremium'), `${path}.GasPremium`),
    method: readJsonUint64(jsonField(object, 'Method'), `${path}.Method`),
    params: readJsonBytes(jsonField(object, 'Params'), `${path}.Params`),
  };
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
