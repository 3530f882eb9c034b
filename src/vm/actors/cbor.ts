/**
 * Readers and writers for the CBOR tuples of actor params, returns and states, on top of the chain
 * type codecs: the same strictness (every field checked, the failing one named), plus the few
 * shapes chain types do not have (booleans, text, FilterEstimate).
 */
import { CborDecodeError } from '../../types/cbor.js';
import type { CborNode } from '../../types/cbor-node.js';
import {
  type Address,
  addressFromCborNode,
  bigIntFromCborNode,
  bigIntToCborNode,
  describeNode,
  readArray,
  readBytes,
  readCid,
  readInt64,
  readTuple,
  readUint64,
} from '../../types/index.js';

export type { CborNode };
export { readArray, readBytes, readCid, readInt64, readTuple, readUint64 };

export const readAddress = addressFromCborNode;
/** TokenAmount and StoragePower: Filecoin BigInt bytes. */
export const readBigInt = bigIntFromCborNode;

export function readBool(node: CborNode, path: string): boolean {
  if (typeof node !== 'boolean') throw new CborDecodeError(`${path}: expected a boolean, got ${describeNode(node)}`);
  return node;
}

export function readText(node: CborNode, path: string): string {
  if (typeof node !== 'string') throw new CborDecodeError(`${path}: expected a text string, got ${describeNode(node)}`);
  return node;
}

/** BigInt bytes for a CBOR tree. */
export function bigInt(value: bigint): Uint8Array {
  return bigIntToCborNode(value);
}

export function address(value: Address): Uint8Array {
  return value.bytes;
}

/** A smoothed estimate (builtin-actors `FilterEstimate`): position and velocity in Q.128. */
export interface FilterEstimate {
  readonly position: bigint;
  readonly velocity: bigint;
}

export function filterEstimateToCborNode(estimate: FilterEstimate): CborNode[] {
  return [bigInt(estimate.position), bigInt(estimate.velocity)];
}

export function readFilterEstimate(node: CborNode, path: string): FilterEstimate {
  const [position, velocity] = readTuple(node, path, 2);
  return {
    position: readBigInt(position, `${path}.Position`),
    velocity: readBigInt(velocity, `${path}.Velocity`),
  };
}
