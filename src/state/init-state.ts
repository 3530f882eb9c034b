/**
 * The Init actor's state, `[AddressMap, NextID, NetworkName]` (builtin-actors `init/src/state.rs`,
 * unchanged since actors v0): the HAMT mapping robust addresses (f1/f2/f3/f4 bytes) to actor IDs,
 * the next ID to hand out and the network's name. The state tree reads it to resolve addresses;
 * the Init actor writes it.
 */
import type { CID } from 'multiformats/cid';
import { encodeCbor } from '../types/cbor.js';
import { readCid, readTuple, readUint64 } from '../types/cbor-fields.js';
import { decodeChainCbor } from '../types/cbor-node.js';
import { StateError, StateErrorCode } from './errors.js';

export interface InitState {
  readonly addressMap: CID;
  readonly nextId: bigint;
  readonly networkName: string;
}

export function encodeInitState(state: InitState): Uint8Array {
  return encodeCbor([state.addressMap, state.nextId, state.networkName]);
}

export function decodeInitState(bytes: Uint8Array): InitState {
  const [addressMap, nextId, networkName] = readTuple(decodeChainCbor(bytes, 'InitState'), 'InitState', 3);
  if (typeof networkName !== 'string') {
    throw new StateError(StateErrorCode.InvalidState, 'InitState.NetworkName: expected a text string');
  }
  return {
    addressMap: readCid(addressMap, 'InitState.AddressMap'),
    nextId: readUint64(nextId, 'InitState.NextID'),
    networkName,
  };
}

/** An address map value is the actor ID as a CBOR unsigned integer. */
export function decodeActorId(bytes: Uint8Array): bigint {
  return readUint64(decodeChainCbor(bytes, 'ActorID'), 'ActorID');
}
