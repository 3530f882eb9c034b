/**
 * TxMeta (Lotus MsgMeta): `[BlsMessages, SecpkMessages]`, the roots of the two message AMTs of a
 * block; its CID is the header's `Messages` field.
 */
import type { CID } from 'multiformats/cid';
import { encodeCbor } from './cbor.js';
import { readCid, readTuple } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { cidOfCbor } from './cid.js';
import { type CidJson, cidToLotusJson, jsonField, readJsonCid, readJsonObject } from './json.js';

export interface TxMeta {
  /** Root of the AMT of unsigned BLS message CIDs. */
  readonly blsMessages: CID;
  /** Root of the AMT of secp256k1 SignedMessage CIDs. */
  readonly secpkMessages: CID;
}

export interface TxMetaJson {
  BlsMessages: CidJson;
  SecpkMessages: CidJson;
}

export function txMetaToCborNode(txMeta: TxMeta): CborNode[] {
  return [txMeta.blsMessages, txMeta.secpkMessages];
}

export function txMetaFromCborNode(node: CborNode, path = 'TxMeta'): TxMeta {
  const [blsMessages, secpkMessages] = readTuple(node, path, 2);
  return {
    blsMessages: readCid(blsMessages, `${path}.BlsMessages`),
    secpkMessages: readCid(secpkMessages, `${path}.SecpkMessages`),
  };
}

export function encodeTxMeta(txMeta: TxMeta): Uint8Array {
  return encodeCbor(txMetaToCborNode(txMeta));
}

export function decodeTxMeta(bytes: Uint8Array): TxMeta {
  return txMetaFromCborNode(decodeChainCbor(bytes, 'TxMeta'));
}

export function txMetaCid(txMeta: TxMeta): CID {
  return cidOfCbor(encodeTxMeta(txMeta));
}

export function txMetaToLotusJson(txMeta: TxMeta): TxMetaJson {
  return { BlsMessages: cidToLotusJson(txMeta.blsMessages), SecpkMessages: cidToLotusJson(txMeta.secpkMessages) };
}

export function txMetaFromLotusJson(json: unknown, path = 'TxMeta'): TxMeta {
  const object = readJsonObject(json, path);
  return {
    blsMessages: readJsonCid(jsonField(object, 'BlsMessages'), `${path}.BlsMessages`),
    secpkMessages: readJsonCid(jsonField(object, 'SecpkMessages'), `${path}.SecpkMessages`),
  };
}
