/**
 * StateRoot: `[Version, Actors, Info]` — the state tree version, the root of the actors HAMT and the
 * CID of the (empty) info block. Version 0 state trees have no such wrapper: their root is the HAMT
 * itself, and decoding it here fails, which is how Lotus tells them apart.
 */
import { cid, uint64 } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export const stateRootStruct = declareStruct('StateRoot', [
  {
    key: 'version',
    json: 'Version',
    kind: uint64,
    description: 'state tree version: 1 = actors v2, … 4 = actors v5–v9, 5 = actors v10+',
  },
  { key: 'actors', json: 'Actors', kind: cid, description: 'the root of the actors HAMT' },
  { key: 'info', json: 'Info', kind: cid },
]);

export type StateRoot = StructValue<typeof stateRootStruct>;
export type StateRootJson = StructJson<typeof stateRootStruct>;

export const encodeStateRoot = stateRootStruct.encode;
export const decodeStateRoot = stateRootStruct.decode;
export const stateRootToLotusJson = stateRootStruct.toLotusJson;
export const stateRootFromLotusJson = stateRootStruct.fromLotusJson;
