/**
 * TxMeta (Lotus MsgMeta): `[BlsMessages, SecpkMessages]`, the roots of the two message AMTs of a
 * block; its CID is the header's `Messages` field.
 */
import type { CID } from 'multiformats/cid';
import { cidOfCbor } from './cid.js';
import { cid } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export const txMetaStruct = declareStruct('TxMeta', [
  { key: 'blsMessages', json: 'BlsMessages', kind: cid, description: 'AMT root of the unsigned BLS message CIDs' },
  { key: 'secpkMessages', json: 'SecpkMessages', kind: cid, description: 'AMT root of the SignedMessage CIDs' },
]);

export type TxMeta = StructValue<typeof txMetaStruct>;
export type TxMetaJson = StructJson<typeof txMetaStruct>;

export const txMetaToCborNode = txMetaStruct.toCborNode;
export const encodeTxMeta = txMetaStruct.encode;
export const decodeTxMeta = txMetaStruct.decode;
export const txMetaToLotusJson = txMetaStruct.toLotusJson;
export const txMetaFromLotusJson = txMetaStruct.fromLotusJson;

export function txMetaCid(txMeta: TxMeta): CID {
  return cidOfCbor(encodeTxMeta(txMeta));
}
