/**
 * MessageReceipt: v0 `[ExitCode, Return, GasUsed]`; v1 (FIP-0049, network version 18 on) adds
 * `EventsRoot` (CID of the events AMT, or null). Decoding picks the version by the tuple length and
 * keeps it, so a receipt re-encodes to its original bytes. Lotus JSON does not carry the version:
 * `EventsRoot` is null for v0 receipts too.
 */
import { InvalidArgumentError } from '../utils/errors.js';
import { encodeCbor } from './cbor.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { bytes, cid, int64, nullable } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export type MessageReceiptVersion = 0 | 1;

/** The fields of both versions; the version itself is in neither the CBOR nor the JSON, so it is kept beside them. */
export const messageReceiptStruct = declareStruct(
  'MessageReceipt',
  [
    { key: 'exitCode', json: 'ExitCode', kind: int64 },
    { key: 'return', json: 'Return', kind: bytes },
    { key: 'gasUsed', json: 'GasUsed', kind: int64 },
    {
      key: 'eventsRoot',
      json: 'EventsRoot',
      kind: nullable(cid),
      description: 'the root of the AMT of events; always null in a v0 receipt',
    },
  ],
  { minFields: 3 },
);

export type MessageReceipt = StructValue<typeof messageReceiptStruct> & { readonly version: MessageReceiptVersion };
export type MessageReceiptJson = StructJson<typeof messageReceiptStruct>;

export const messageReceiptToLotusJson: (receipt: MessageReceipt) => MessageReceiptJson =
  messageReceiptStruct.toLotusJson;

/** The version is set on the freshly decoded object, which nothing else holds yet. */
function withVersion(
  receipt: StructValue<typeof messageReceiptStruct>,
  version: MessageReceiptVersion,
): MessageReceipt {
  (receipt as { version?: MessageReceiptVersion }).version = version;
  return receipt as MessageReceipt;
}

export function messageReceiptToCborNode(receipt: MessageReceipt): CborNode[] {
  if (receipt.version === 1) return messageReceiptStruct.toCborNode(receipt);
  if (receipt.eventsRoot !== null) {
    throw new InvalidArgumentError('MessageReceipt.EventsRoot: a v0 receipt cannot carry events');
  }
  return messageReceiptStruct.toCborNodeOfLength(receipt, 3);
}

export function messageReceiptFromCborNode(node: CborNode, path = 'MessageReceipt'): MessageReceipt {
  const receipt = messageReceiptStruct.fromCborNode(node, path);
  return withVersion(receipt, (node as CborNode[]).length === 4 ? 1 : 0);
}

export function encodeMessageReceipt(receipt: MessageReceipt): Uint8Array {
  return encodeCbor(messageReceiptToCborNode(receipt));
}

export function decodeMessageReceipt(bytes: Uint8Array): MessageReceipt {
  return messageReceiptFromCborNode(decodeChainCbor(bytes, 'MessageReceipt'));
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
  const receipt = messageReceiptStruct.fromLotusJson(json, path);
  return withVersion(receipt, receipt.eventsRoot === null ? version : 1);
}
