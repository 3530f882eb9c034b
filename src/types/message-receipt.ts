/**
 * MessageReceipt: v0 `[ExitCode, Return, GasUsed]`; v1 (FIP-0049, network version 18 on) adds
 * `EventsRoot` (CID of the events AMT, or null). Decoding picks the version by the tuple length and
 * keeps it, so a receipt re-encodes to its original bytes. Lotus JSON does not carry the version:
 * `EventsRoot` is null for v0 receipts too.
 */
import type { CID } from 'multiformats/cid';
import { InvalidArgumentError } from '../utils/errors.js';
import { encodeCbor } from './cbor.js';
import { readBytes, readCid, readInt64, readNullable, readTupleOfLengths } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { checkRange } from './integers.js';
import {
  bytesToLotusJson,
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonBytes,
  readJsonCid,
  readJsonInt64,
  readJsonNullable,
  readJsonObject,
  toJsonInteger,
} from './json.js';

export type MessageReceiptVersion = 0 | 1;

export interface MessageReceipt {
  readonly version: MessageReceiptVersion;
  readonly exitCode: bigint;
  readonly return: Uint8Array;
  readonly gasUsed: bigint;
  /** Always null in a v0 receipt. */
  readonly eventsRoot: CID | null;
}

export interface MessageReceiptJson {
  ExitCode: JsonInteger;
  Return: string | null;
  GasUsed: JsonInteger;
  EventsRoot: CidJson | null;
}

export function messageReceiptToCborNode(receipt: MessageReceipt): CborNode[] {
  const fields: CborNode[] = [
    checkRange(receipt.exitCode, 'int64', 'MessageReceipt.ExitCode'),
    receipt.return,
    checkRange(receipt.gasUsed, 'int64', 'MessageReceipt.GasUsed'),
  ];
  if (receipt.version === 1) return [...fields, receipt.eventsRoot];
  if (receipt.eventsRoot !== null) {
    throw new InvalidArgumentError('MessageReceipt.EventsRoot: a v0 receipt cannot carry events');
  }
  return fields;
}

export function messageReceiptFromCborNode(node: CborNode, path = 'MessageReceipt'): MessageReceipt {
  const [exitCode, returnValue, gasUsed, eventsRoot] = readTupleOfLengths(node, path, [3, 4]);
  return {
    version: eventsRoot === undefined ? 0 : 1,
    exitCode: readInt64(exitCode as CborNode, `${path}.ExitCode`),
    return: readBytes(returnValue as CborNode, `${path}.Return`),
    gasUsed: readInt64(gasUsed as CborNode, `${path}.GasUsed`),
    eventsRoot: eventsRoot === undefined ? null : readNullable(eventsRoot, `${path}.EventsRoot`, readCid),
  };
}

export function encodeMessageReceipt(receipt: MessageReceipt): Uint8Array {
  return encodeCbor(messageReceiptToCborNode(receipt));
}

export function decodeMessageReceipt(bytes: Uint8Array): MessageReceipt {
  return messageReceiptFromCborNode(decodeChainCbor(bytes, 'MessageReceipt'));
}

export function messageReceiptToLotusJson(receipt: MessageReceipt): MessageReceiptJson {
  return {
    ExitCode: toJsonInteger(receipt.exitCode),
    Return: bytesToLotusJson(receipt.return),
    GasUsed: toJsonInteger(receipt.gasUsed),
    EventsRoot: receipt.eventsRoot === null ? null : cidToLotusJson(receipt.eventsRoot),
  };
}

/**
 * JSON does not say which version a receipt is: a non-null EventsRoot makes it v1; otherwise
 * `version` decides (v0 unless the caller knows the receipt comes from network version 18 or later).
 */
export function messageReceiptFromLotusJson(
  json: unknown,
  path = 'MessageReceipt',
  version: MessageReceiptVersion = 0,
): MessageReceipt {
  const object = readJsonObject(json, path);
  const eventsRoot = readJsonNullable(jsonField(object, 'EventsRoot'), `${path}.EventsRoot`, readJsonCid);
  return {
    version: eventsRoot === null ? version : 1,
    exitCode: readJsonInt64(jsonField(object, 'ExitCode'), `${path}.ExitCode`),
    return: readJsonBytes(jsonField(object, 'Return'), `${path}.Return`),
    gasUsed: readJsonInt64(jsonField(object, 'GasUsed'), `${path}.GasUsed`),
    eventsRoot,
  };
}
