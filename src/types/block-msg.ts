/**
 * A block with its messages. `FullBlock` carries the messages themselves (Lotus `types.FullBlock`):
 * BLS messages unsigned, their signatures aggregated in the header; secp256k1 messages signed.
 * `BlockMsg` names them by CID (Lotus `types.BlockMsg`: what MinerCreateBlock returns, what
 * SyncSubmitBlock takes and what block gossip carries); Lotus JSON
 * `{Header, BlsMessages: [CID] | null, SecpkMessages: [CID] | null}`.
 */
import type { CID } from 'multiformats/cid';
import {
  type BlockHeader,
  type BlockHeaderJson,
  blockHeaderFromCborNode,
  blockHeaderFromLotusJson,
  blockHeaderToCborNode,
  blockHeaderToLotusJson,
} from './block-header.js';
import { encodeCbor } from './cbor.js';
import { readArray, readCid, readTuple } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { type CidJson, cidToLotusJson, jsonField, readJsonArray, readJsonCid, readJsonObject } from './json.js';
import type { Message } from './message.js';
import type { SignedMessage } from './signed-message.js';

export interface FullBlock {
  readonly header: BlockHeader;
  readonly blsMessages: readonly Message[];
  readonly secpkMessages: readonly SignedMessage[];
}

export interface BlockMsg {
  readonly header: BlockHeader;
  /** CIDs of the unsigned BLS messages, in block order. */
  readonly blsMessages: readonly CID[];
  /** CIDs of the signed secp256k1 messages, in block order. */
  readonly secpkMessages: readonly CID[];
}

export interface BlockMsgJson {
  Header: BlockHeaderJson;
  BlsMessages: CidJson[] | null;
  SecpkMessages: CidJson[] | null;
}

/** Lotus appends each CID to a nil slice, so an empty list is null. */
function cidListToLotusJson(cids: readonly CID[]): CidJson[] | null {
  return cids.length === 0 ? null : cids.map(cidToLotusJson);
}

export function blockMsgToLotusJson(block: BlockMsg): BlockMsgJson {
  return {
    Header: blockHeaderToLotusJson(block.header),
    BlsMessages: cidListToLotusJson(block.blsMessages),
    SecpkMessages: cidListToLotusJson(block.secpkMessages),
  };
}

export function blockMsgFromLotusJson(json: unknown, path = 'BlockMsg'): BlockMsg {
  const object = readJsonObject(json, path);
  return {
    header: blockHeaderFromLotusJson(jsonField(object, 'Header'), `${path}.Header`),
    blsMessages: readJsonArray(jsonField(object, 'BlsMessages'), `${path}.BlsMessages`, readJsonCid),
    secpkMessages: readJsonArray(jsonField(object, 'SecpkMessages'), `${path}.SecpkMessages`, readJsonCid),
  };
}

/** CBOR tuple `[Header, BlsMessages [CID], SecpkMessages [CID]]`: the `/fil/blocks/<network>` gossip payload. */
export function blockMsgToCborNode(block: BlockMsg): CborNode[] {
  return [blockHeaderToCborNode(block.header), [...block.blsMessages], [...block.secpkMessages]];
}

export function encodeBlockMsg(block: BlockMsg): Uint8Array {
  return encodeCbor(blockMsgToCborNode(block));
}

/** Decodes strictly: trailing bytes and non-canonical CBOR are refused, as Lotus refuses them. */
export function decodeBlockMsg(bytes: Uint8Array, path = 'BlockMsg'): BlockMsg {
  const [header, bls, secpk] = readTuple(decodeChainCbor(bytes, path), path, 3);
  return {
    header: blockHeaderFromCborNode(header, `${path}.Header`),
    blsMessages: readArray(bls, `${path}.BlsMessages`, readCid),
    secpkMessages: readArray(secpk, `${path}.SecpkMessages`, readCid),
  };
}
