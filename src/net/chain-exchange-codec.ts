/**
 * ChainExchange wire formats (filecoin-project/lotus `chain/exchange`), CBOR tuples:
 * Request `[Head [CID], Length uint64, Options uint64]`; Response `[Status uint64, ErrorMessage
 * string, Chain [BSTipSet]]`; BSTipSet `[Blocks [BlockHeader], Messages CompactedMessages | null]`;
 * CompactedMessages `[Bls [Message], BlsIncludes [[uint64]], Secpk [SignedMessage], SecpkIncludes
 * [[uint64]]]`, each message once per tipset, `Includes[i]` the indices of block i's messages.
 */
import type { CID } from 'multiformats/cid';
import {
  type BlockHeader,
  blockHeaderFromCborNode,
  blockHeaderToCborNode,
  CborDecodeError,
  type CborNode,
  decodeChainCbor,
  encodeCbor,
  type Message,
  messageFromCborNode,
  messageToCborNode,
  readArray,
  readCid,
  readNullable,
  readTuple,
  readUint64,
  type SignedMessage,
  signedMessageFromCborNode,
  signedMessageToCborNode,
} from '../types/index.js';

export const CHAIN_EXCHANGE_PROTOCOL = '/fil/chain/xchg/0.0.1';

/** Lotus `MaxRequestLength`: ChainFinality. */
export const MAX_REQUEST_LENGTH = 900;
/** Lotus's cbor-gen limit on the message lists of CompactedMessages. */
const MAX_COMPACTED_MESSAGES = 150_000;

export const ExchangeOptions = { Headers: 1n, Messages: 2n } as const;

export const ExchangeStatus = {
  Ok: 0,
  Partial: 101,
  NotFound: 201,
  GoAway: 202,
  InternalError: 203,
  BadRequest: 204,
} as const;
export type ExchangeStatus = (typeof ExchangeStatus)[keyof typeof ExchangeStatus];

export function exchangeStatusName(status: number): string {
  const entry = Object.entries(ExchangeStatus).find(([, code]) => code === status);
  return entry === undefined ? `unknown status ${status}` : entry[0];
}

export interface ExchangeRequest {
  readonly head: readonly CID[];
  readonly length: bigint;
  readonly options: bigint;
}

export interface CompactedMessages {
  readonly bls: readonly Message[];
  readonly blsIncludes: readonly (readonly bigint[])[];
  readonly secpk: readonly SignedMessage[];
  readonly secpkIncludes: readonly (readonly bigint[])[];
}

export interface BSTipSet {
  readonly blocks: readonly BlockHeader[];
  readonly messages: CompactedMessages | null;
}

export interface ExchangeResponse {
  readonly status: number;
  readonly errorMessage: string;
  readonly chain: readonly BSTipSet[];
}

export function encodeExchangeRequest(request: ExchangeRequest): Uint8Array {
  return encodeCbor([[...request.head], request.length, request.options] satisfies CborNode[]);
}

export function decodeExchangeRequest(bytes: Uint8Array): ExchangeRequest {
  const path = 'Request';
  const [head, length, options] = readTuple(decodeChainCbor(bytes, path), path, 3);
  return {
    head: readArray(head, `${path}.Head`, readCid),
    length: readUint64(length, `${path}.Length`),
    options: readUint64(options, `${path}.Options`),
  };
}

function includesToCbor(includes: readonly (readonly bigint[])[]): CborNode[] {
  return includes.map((indices) => [...indices]);
}

function compactedToCbor(messages: CompactedMessages): CborNode[] {
  return [
    messages.bls.map(messageToCborNode),
    includesToCbor(messages.blsIncludes),
    messages.secpk.map(signedMessageToCborNode),
    includesToCbor(messages.secpkIncludes),
  ];
}

function readIncludes(node: CborNode, path: string): bigint[][] {
  return readArray(node, path, (item, itemPath) => readArray(item, itemPath, readUint64, MAX_COMPACTED_MESSAGES));
}

function compactedFromCbor(node: CborNode, path: string): CompactedMessages {
  const [bls, blsIncludes, secpk, secpkIncludes] = readTuple(node, path, 4);
  return {
    bls: readArray(bls, `${path}.Bls`, messageFromCborNode, MAX_COMPACTED_MESSAGES),
    blsIncludes: readIncludes(blsIncludes, `${path}.BlsIncludes`),
    secpk: readArray(secpk, `${path}.Secpk`, signedMessageFromCborNode, MAX_COMPACTED_MESSAGES),
    secpkIncludes: readIncludes(secpkIncludes, `${path}.SecpkIncludes`),
  };
}

export function encodeExchangeResponse(response: ExchangeResponse): Uint8Array {
  return encodeCbor([
    response.status,
    response.errorMessage,
    response.chain.map((tipSet) => [
      tipSet.blocks.map(blockHeaderToCborNode),
      tipSet.messages === null ? null : compactedToCbor(tipSet.messages),
    ]),
  ] satisfies CborNode[]);
}

export function decodeExchangeResponse(bytes: Uint8Array): ExchangeResponse {
  const path = 'Response';
  const [status, errorMessage, chain] = readTuple(decodeChainCbor(bytes, path), path, 3);
  if (typeof errorMessage !== 'string') throw new CborDecodeError(`${path}.ErrorMessage: expected a text string`);
  return {
    status: Number(readUint64(status, `${path}.Status`)),
    errorMessage,
    chain: readArray(chain, `${path}.Chain`, (node, tipSetPath) => {
      const [blocks, messages] = readTuple(node, tipSetPath, 2);
      return {
        blocks: readArray(blocks, `${tipSetPath}.Blocks`, blockHeaderFromCborNode),
        messages: readNullable(messages, `${tipSetPath}.Messages`, compactedFromCbor),
      };
    }),
  };
}
