/**
 * Readers and writers for the CBOR tuples of actor params, returns and states, on top of the chain
 * type codecs: the same strictness (every field checked, the failing one named), plus the few
 * kinds and structs chain types do not have (FilterEstimate, lists of addresses).
 */
import type { CborNode } from '../../types/cbor-node.js';
import {
  addressFromCborNode,
  addressKind,
  bigIntFromCborNode,
  bigIntToCborNode,
  declareStruct,
  kinds,
  readUint64,
  type StructValue,
} from '../../types/index.js';

export type { CborNode };
export { readUint64 };

export const readAddress = addressFromCborNode;
/** TokenAmount and StoragePower: Filecoin BigInt bytes. */
export const readBigInt = bigIntFromCborNode;

/** BigInt bytes for a CBOR tree. */
export function bigInt(value: bigint): Uint8Array {
  return bigIntToCborNode(value);
}

/** Lists of addresses and of byte strings (signers, control addresses, multiaddrs), one kind each. */
export const addressListKind = kinds.array(addressKind);
export const bytesListKind = kinds.array(kinds.bytes);

/**
 * A smoothed estimate (builtin-actors `runtime/src/builtin/reward/smooth/alpha_beta_filter.rs`
 * `FilterEstimate`): position and velocity in Q.128; Lotus JSON names from go-state-types
 * `builtin/v16/util/smoothing`.
 */
export const filterEstimateStruct = declareStruct('FilterEstimate', [
  { key: 'position', json: 'PositionEstimate', kind: kinds.bigInt, description: 'Q.128 fixed point' },
  { key: 'velocity', json: 'VelocityEstimate', kind: kinds.bigInt, description: 'Q.128 fixed point' },
]);
export type FilterEstimate = StructValue<typeof filterEstimateStruct>;
