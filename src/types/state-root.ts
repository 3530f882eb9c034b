/**
 * StateRoot: `[Version, Actors, Info]` — the state tree version, the root of the actors HAMT and the
 * CID of the (empty) info block. Version 0 state trees have no such wrapper: their root is the HAMT
 * itself, and decoding it here fails, which is how Lotus tells them apart.
 */
import type { CID } from 'multiformats/cid';
import { encodeCbor } from './cbor.js';
import { readCid, readTuple, readUint64 } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { checkRange } from './integers.js';
import {
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonCid,
  readJsonObject,
  readJsonUint64,
  toJsonInteger,
} from './json.js';

export interface StateRoot {
  /** State tree version: 1 = actors v2, … 4 = actors v5–v9, 5 = actors v10+. */
  readonly version: bigint;
  readonly actors: CID;
  readonly info: CID;
}

export interface StateRootJson {
  Version: JsonInteger;
  Actors: CidJson;
  Info: CidJson;
}

export function stateRootToCborNode(root: StateRoot): CborNode[] {
  return [checkRange(root.version, 'uint64', 'StateRoot.Version'), root.actors, root.info];
}

export function stateRootFromCborNode(node: CborNode, path = 'StateRoot'): StateRoot {
  const [version, actors, info] = readTuple(node, path, 3);
  return {
    version: readUint64(version, `${path}.Version`),
    actors: readCid(actors, `${path}.Actors`),
    info: readCid(info, `${path}.Info`),
  };
}

export function encodeStateRoot(root: StateRoot): Uint8Array {
  return encodeCbor(stateRootToCborNode(root));
}

export function decodeStateRoot(bytes: Uint8Array): StateRoot {
  return stateRootFromCborNode(decodeChainCbor(bytes, 'StateRoot'));
}

export function stateRootToLotusJson(root: StateRoot): StateRootJson {
  return {
    Version: toJsonInteger(root.version),
    Actors: cidToLotusJson(root.actors),
    Info: cidToLotusJson(root.info),
  };
}

export function stateRootFromLotusJson(json: unknown, path = 'StateRoot'): StateRoot {
  const object = readJsonObject(json, path);
  return {
    version: readJsonUint64(jsonField(object, 'Version'), `${path}.Version`),
    actors: readJsonCid(jsonField(object, 'Actors'), `${path}.Actors`),
    info: readJsonCid(jsonField(object, 'Info'), `${path}.Info`),
  };
}
