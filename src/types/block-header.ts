/**
 * BlockHeader (lotus chain/types/blockheader.go): a CBOR 16-tuple. Its CID names the block; the
 * miner's worker key signs `blockSigningBytes`, the same tuple with BlockSig set to null.
 */
import type { CID } from 'multiformats/cid';
import {
  type Address,
  addressFromCborNode,
  addressFromLotusJson,
  addressToCborNode,
  addressToLotusJson,
} from './address.js';
import {
  type BeaconEntry,
  type BeaconEntryJson,
  beaconEntryFromCborNode,
  beaconEntryFromLotusJson,
  beaconEntryToCborNode,
  beaconEntryToLotusJson,
} from './beacon-entry.js';
import { bigIntFromCborNode, bigIntFromLotusJson, bigIntToCborNode, bigIntToLotusJson } from './big-int.js';
import { encodeCbor } from './cbor.js';
import { checkArrayLength, readArray, readCid, readInt64, readNullable, readTuple, readUint64 } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { cidOfCbor } from './cid.js';
import {
  type ElectionProof,
  type ElectionProofJson,
  electionProofFromCborNode,
  electionProofFromLotusJson,
  electionProofToCborNode,
  electionProofToLotusJson,
} from './election-proof.js';
import { checkRange } from './integers.js';
import {
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonArray,
  readJsonCid,
  readJsonInt64,
  readJsonNullable,
  readJsonObject,
  readJsonUint64,
  sliceToLotusJson,
  toJsonInteger,
} from './json.js';
import {
  type PoStProof,
  type PoStProofJson,
  postProofFromCborNode,
  postProofFromLotusJson,
  postProofToCborNode,
  postProofToLotusJson,
} from './post-proof.js';
import {
  type Signature,
  type SignatureJson,
  signatureFromCborNode,
  signatureFromLotusJson,
  signatureToCborNode,
  signatureToLotusJson,
} from './signature.js';
import {
  type Ticket,
  type TicketJson,
  ticketFromCborNode,
  ticketFromLotusJson,
  ticketToCborNode,
  ticketToLotusJson,
} from './ticket.js';

export interface BlockHeader {
  readonly miner: Address;
  readonly ticket: Ticket | null;
  readonly electionProof: ElectionProof | null;
  readonly beaconEntries: readonly BeaconEntry[];
  readonly winPoStProof: readonly PoStProof[];
  /** The parent tipset's block CIDs in canonical order. */
  readonly parents: readonly CID[];
  readonly parentWeight: bigint;
  readonly height: bigint;
  readonly parentStateRoot: CID;
  readonly parentMessageReceipts: CID;
  /** The CID of the block's TxMeta. */
  readonly messages: CID;
  readonly blsAggregate: Signature | null;
  /** Unix seconds. */
  readonly timestamp: bigint;
  readonly blockSig: Signature | null;
  readonly forkSignaling: bigint;
  readonly parentBaseFee: bigint;
}

export interface BlockHeaderJson {
  Miner: string;
  Ticket: TicketJson | null;
  ElectionProof: ElectionProofJson | null;
  BeaconEntries: BeaconEntryJson[] | null;
  WinPoStProof: PoStProofJson[] | null;
  Parents: CidJson[] | null;
  ParentWeight: string;
  Height: JsonInteger;
  ParentStateRoot: CidJson;
  ParentMessageReceipts: CidJson;
  Messages: CidJson;
  BLSAggregate: SignatureJson | null;
  Timestamp: JsonInteger;
  BlockSig: SignatureJson | null;
  ForkSignaling: JsonInteger;
  ParentBaseFee: string;
}

export function blockHeaderToCborNode(header: BlockHeader): CborNode[] {
  return [
    addressToCborNode(header.miner),
    header.ticket === null ? null : ticketToCborNode(header.ticket),
    header.electionProof === null ? null : electionProofToCborNode(header.electionProof),
    checkArrayLength(header.beaconEntries, 'BlockHeader.BeaconEntries').map(beaconEntryToCborNode),
    checkArrayLength(header.winPoStProof, 'BlockHeader.WinPoStProof').map(postProofToCborNode),
    [...checkArrayLength(header.parents, 'BlockHeader.Parents')],
    bigIntToCborNode(header.parentWeight),
    checkRange(header.height, 'int64', 'BlockHeader.Height'),
    header.parentStateRoot,
    header.parentMessageReceipts,
    header.messages,
    header.blsAggregate === null ? null : signatureToCborNode(header.blsAggregate),
    checkRange(header.timestamp, 'uint64', 'BlockHeader.Timestamp'),
    header.blockSig === null ? null : signatureToCborNode(header.blockSig),
    checkRange(header.forkSignaling, 'uint64', 'BlockHeader.ForkSignaling'),
    bigIntToCborNode(header.parentBaseFee),
  ];
}

export function blockHeaderFromCborNode(node: CborNode, path = 'BlockHeader'): BlockHeader {
  const [
    miner,
    ticket,
    electionProof,
    beaconEntries,
    winPoStProof,
    parents,
    parentWeight,
    height,
    parentStateRoot,
    parentMessageReceipts,
    messages,
    blsAggregate,
    timestamp,
    blockSig,
    forkSignaling,
    parentBaseFee,
  ] = readTuple(node, path, 16);
  return {
    miner: addressFromCborNode(miner, `${path}.Miner`),
    ticket: readNullable(ticket, `${path}.Ticket`, ticketFromCborNode),
    electionProof: readNullable(electionProof, `${path}.ElectionProof`, electionProofFromCborNode),
    beaconEntries: readArray(beaconEntries, `${path}.BeaconEntries`, beaconEntryFromCborNode),
    winPoStProof: readArray(winPoStProof, `${path}.WinPoStProof`, postProofFromCborNode),
    parents: readArray(parents, `${path}.Parents`, readCid),
    parentWeight: bigIntFromCborNode(parentWeight, `${path}.ParentWeight`),
    height: readInt64(height, `${path}.Height`),
    parentStateRoot: readCid(parentStateRoot, `${path}.ParentStateRoot`),
    parentMessageReceipts: readCid(parentMessageReceipts, `${path}.ParentMessageReceipts`),
    messages: readCid(messages, `${path}.Messages`),
    blsAggregate: readNullable(blsAggregate, `${path}.BLSAggregate`, signatureFromCborNode),
    timestamp: readUint64(timestamp, `${path}.Timestamp`),
    blockSig: readNullable(blockSig, `${path}.BlockSig`, signatureFromCborNode),
    forkSignaling: readUint64(forkSignaling, `${path}.ForkSignaling`),
    parentBaseFee: bigIntFromCborNode(parentBaseFee, `${path}.ParentBaseFee`),
  };
}

export function encodeBlockHeader(header: BlockHeader): Uint8Array {
  return encodeCbor(blockHeaderToCborNode(header));
}

export function decodeBlockHeader(bytes: Uint8Array): BlockHeader {
  return blockHeaderFromCborNode(decodeChainCbor(bytes, 'BlockHeader'));
}

export function blockCid(header: BlockHeader): CID {
  return cidOfCbor(encodeBlockHeader(header));
}

/** What the block signature covers: the full header CBOR with BlockSig null (not a CID). */
export function blockSigningBytes(header: BlockHeader): Uint8Array {
  return encodeBlockHeader({ ...header, blockSig: null });
}

export function blockHeaderToLotusJson(header: BlockHeader): BlockHeaderJson {
  return {
    Miner: addressToLotusJson(header.miner),
    Ticket: header.ticket === null ? null : ticketToLotusJson(header.ticket),
    ElectionProof: header.electionProof === null ? null : electionProofToLotusJson(header.electionProof),
    BeaconEntries: sliceToLotusJson(header.beaconEntries, beaconEntryToLotusJson),
    WinPoStProof: sliceToLotusJson(header.winPoStProof, postProofToLotusJson),
    Parents: sliceToLotusJson(header.parents, cidToLotusJson),
    ParentWeight: bigIntToLotusJson(header.parentWeight),
    Height: toJsonInteger(header.height),
    ParentStateRoot: cidToLotusJson(header.parentStateRoot),
    ParentMessageReceipts: cidToLotusJson(header.parentMessageReceipts),
    Messages: cidToLotusJson(header.messages),
    BLSAggregate: header.blsAggregate === null ? null : signatureToLotusJson(header.blsAggregate),
    Timestamp: toJsonInteger(header.timestamp),
    BlockSig: header.blockSig === null ? null : signatureToLotusJson(header.blockSig),
    ForkSignaling: toJsonInteger(header.forkSignaling),
    ParentBaseFee: bigIntToLotusJson(header.parentBaseFee),
  };
}

export function blockHeaderFromLotusJson(json: unknown, path = 'BlockHeader'): BlockHeader {
  const object = readJsonObject(json, path);
  const field = (name: string) => jsonField(object, name);
  return {
    miner: addressFromLotusJson(field('Miner'), `${path}.Miner`),
    ticket: readJsonNullable(field('Ticket'), `${path}.Ticket`, ticketFromLotusJson),
    electionProof: readJsonNullable(field('ElectionProof'), `${path}.ElectionProof`, electionProofFromLotusJson),
    beaconEntries: readJsonArray(field('BeaconEntries'), `${path}.BeaconEntries`, beaconEntryFromLotusJson),
    winPoStProof: readJsonArray(field('WinPoStProof'), `${path}.WinPoStProof`, postProofFromLotusJson),
    parents: readJsonArray(field('Parents'), `${path}.Parents`, readJsonCid),
    parentWeight: bigIntFromLotusJson(field('ParentWeight'), `${path}.ParentWeight`),
    height: readJsonInt64(field('Height'), `${path}.Height`),
    parentStateRoot: readJsonCid(field('ParentStateRoot'), `${path}.ParentStateRoot`),
    parentMessageReceipts: readJsonCid(field('ParentMessageReceipts'), `${path}.ParentMessageReceipts`),
    messages: readJsonCid(field('Messages'), `${path}.Messages`),
    blsAggregate: readJsonNullable(field('BLSAggregate'), `${path}.BLSAggregate`, signatureFromLotusJson),
    timestamp: readJsonUint64(field('Timestamp'), `${path}.Timestamp`),
    blockSig: readJsonNullable(field('BlockSig'), `${path}.BlockSig`, signatureFromLotusJson),
    forkSignaling: readJsonUint64(field('ForkSignaling'), `${path}.ForkSignaling`),
    parentBaseFee: bigIntFromLotusJson(field('ParentBaseFee'), `${path}.ParentBaseFee`),
  };
}
