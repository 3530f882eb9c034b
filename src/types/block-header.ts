/**
 * BlockHeader (lotus chain/types/blockheader.go): a CBOR 16-tuple. Its CID names the block; the
 * miner's worker key signs `blockSigningBytes`, the same tuple with BlockSig set to null.
 */
import type { CID } from 'multiformats/cid';
import { addressKind } from './address.js';
import { beaconEntryStruct } from './beacon-entry.js';
import { cidOfCbor } from './cid.js';
import { electionProofStruct } from './election-proof.js';
import { array, bigInt, cid, int64, nullable, struct, uint64 } from './field-kinds.js';
import { postProofStruct } from './post-proof.js';
import { signatureKind } from './signature.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';
import { ticketStruct } from './ticket.js';

export const blockHeaderStruct = declareStruct('BlockHeader', [
  { key: 'miner', json: 'Miner', kind: addressKind },
  { key: 'ticket', json: 'Ticket', kind: nullable(struct(ticketStruct)) },
  { key: 'electionProof', json: 'ElectionProof', kind: nullable(struct(electionProofStruct)) },
  { key: 'beaconEntries', json: 'BeaconEntries', kind: array(struct(beaconEntryStruct)) },
  { key: 'winPoStProof', json: 'WinPoStProof', kind: array(struct(postProofStruct)) },
  {
    key: 'parents',
    json: 'Parents',
    kind: array(cid),
    description: "the parent tipset's block CIDs in canonical order",
  },
  { key: 'parentWeight', json: 'ParentWeight', kind: bigInt },
  { key: 'height', json: 'Height', kind: int64 },
  { key: 'parentStateRoot', json: 'ParentStateRoot', kind: cid },
  { key: 'parentMessageReceipts', json: 'ParentMessageReceipts', kind: cid },
  { key: 'messages', json: 'Messages', kind: cid, description: "the CID of the block's TxMeta" },
  { key: 'blsAggregate', json: 'BLSAggregate', kind: nullable(signatureKind) },
  { key: 'timestamp', json: 'Timestamp', kind: uint64, description: 'Unix seconds' },
  { key: 'blockSig', json: 'BlockSig', kind: nullable(signatureKind) },
  { key: 'forkSignaling', json: 'ForkSignaling', kind: uint64 },
  { key: 'parentBaseFee', json: 'ParentBaseFee', kind: bigInt, description: 'attoFIL per gas unit' },
]);

export type BlockHeader = StructValue<typeof blockHeaderStruct>;
export type BlockHeaderJson = StructJson<typeof blockHeaderStruct>;

export const blockHeaderToCborNode = blockHeaderStruct.toCborNode;
export const blockHeaderFromCborNode = blockHeaderStruct.fromCborNode;
export const encodeBlockHeader = blockHeaderStruct.encode;
export const decodeBlockHeader = blockHeaderStruct.decode;
export const blockHeaderToLotusJson = blockHeaderStruct.toLotusJson;
export const blockHeaderFromLotusJson = blockHeaderStruct.fromLotusJson;

export function blockCid(header: BlockHeader): CID {
  return cidOfCbor(encodeBlockHeader(header));
}

/** What the block signature covers: the full header CBOR with BlockSig null (not a CID). */
export function blockSigningBytes(header: BlockHeader): Uint8Array {
  return encodeBlockHeader({ ...header, blockSig: null });
}
