/**
 * The Init actor's state, `[AddressMap, NextID, NetworkName]` (builtin-actors `init/src/state.rs`,
 * unchanged since actors v0): the HAMT mapping robust addresses (f1/f2/f3/f4 bytes) to actor IDs,
 * the next ID to hand out and the network's name. The state tree reads it to resolve addresses;
 * the Init actor writes it.
 */
import { decodeChainCbor } from '../types/cbor-node.js';
import { declareStruct, kinds, readUint64, type StructValue } from '../types/index.js';

export const initStateStruct = declareStruct('InitState', [
  { key: 'addressMap', json: 'AddressMap', kind: kinds.cid, description: 'HAMT: robust address bytes → actor ID' },
  { key: 'nextId', json: 'NextID', kind: kinds.uint64 },
  { key: 'networkName', json: 'NetworkName', kind: kinds.text },
]);

export type InitState = StructValue<typeof initStateStruct>;

export const encodeInitState = initStateStruct.encode;
export const decodeInitState = initStateStruct.decode;

/** An address map value is the actor ID as a CBOR unsigned integer. */
export function decodeActorId(bytes: Uint8Array): bigint {
  return readUint64(decodeChainCbor(bytes, 'ActorID'), 'ActorID');
}
