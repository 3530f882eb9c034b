/** BeaconEntry: CBOR `[Round, Data]`, a drand round and its signature carried in a block header. */
import { bytes, uint64 } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export const beaconEntryStruct = declareStruct('BeaconEntry', [
  { key: 'round', json: 'Round', kind: uint64, description: 'the drand round' },
  { key: 'data', json: 'Data', kind: bytes, description: "the round's signature" },
]);

export type BeaconEntry = StructValue<typeof beaconEntryStruct>;
export type BeaconEntryJson = StructJson<typeof beaconEntryStruct>;

export const beaconEntryToCborNode = beaconEntryStruct.toCborNode;
export const encodeBeaconEntry = beaconEntryStruct.encode;
export const decodeBeaconEntry = beaconEntryStruct.decode;
export const beaconEntryToLotusJson = beaconEntryStruct.toLotusJson;
export const beaconEntryFromLotusJson = beaconEntryStruct.fromLotusJson;
