/** BeaconEntry: CBOR `[Round, Data]`, a drand round and its signature carried in a block header. */
import { encodeCbor } from './cbor.js';
import { readBytes, readTuple, readUint64 } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { checkRange } from './integers.js';
import {
  bytesToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonBytes,
  readJsonObject,
  readJsonUint64,
  toJsonInteger,
} from './json.js';

export interface BeaconEntry {
  readonly round: bigint;
  readonly data: Uint8Array;
}

export interface BeaconEntryJson {
  Round: JsonInteger;
  Data: string | null;
}

export function beaconEntryToCborNode(entry: BeaconEntry): CborNode[] {
  return [checkRange(entry.round, 'uint64', 'BeaconEntry.Round'), entry.data];
}

export function beaconEntryFromCborNode(node: CborNode, path = 'BeaconEntry'): BeaconEntry {
  const [round, data] = readTuple(node, path, 2);
  return { round: readUint64(round, `${path}.Round`), data: readBytes(data, `${path}.Data`) };
}

export function encodeBeaconEntry(entry: BeaconEntry): Uint8Array {
  return encodeCbor(beaconEntryToCborNode(entry));
}

export function decodeBeaconEntry(bytes: Uint8Array): BeaconEntry {
  return beaconEntryFromCborNode(decodeChainCbor(bytes, 'BeaconEntry'));
}

export function beaconEntryToLotusJson(entry: BeaconEntry): BeaconEntryJson {
  return { Round: toJsonInteger(entry.round), Data: bytesToLotusJson(entry.data) };
}

export function beaconEntryFromLotusJson(json: unknown, path = 'BeaconEntry'): BeaconEntry {
  const object = readJsonObject(json, path);
  return {
    round: readJsonUint64(jsonField(object, 'Round'), `${path}.Round`),
    data: readJsonBytes(jsonField(object, 'Data'), `${path}.Data`),
  };
}
