/**
 * Readers for the fields of cbor-gen tuples. Each takes a decoded `CborNode` and the field's path
 * (`BlockHeader.Height`) and either returns a typed value or throws a `CborDecodeError` that says
 * what was expected and what was found.
 */
import { CID } from 'multiformats/cid';
import { InvalidArgumentError } from '../utils/errors.js';
import { CborDecodeError } from './cbor.js';
import { CborFloat, type CborNode } from './cbor-node.js';
import { describeRange, type IntegerKind, inRange } from './integers.js';

/** cbor-gen's limit for byte strings (`ByteArrayMaxLen`, 2 MiB). */
export const MAX_BYTE_ARRAY_LENGTH = 2 << 20;
/** cbor-gen's limit for arrays of a slice field (`MaxLength`). */
export const MAX_ARRAY_LENGTH = 8192;

/** A short description of a decoded value for error messages. */
export function describeNode(node: CborNode): string {
  if (node === null) return 'null';
  if (typeof node === 'boolean') return `a boolean (${node})`;
  if (typeof node === 'number' || typeof node === 'bigint')
    return node < 0 ? `a negative integer (${node})` : `${node}`;
  if (typeof node === 'string') return 'a text string';
  if (node instanceof Uint8Array) return `bytes (${node.length})`;
  if (node instanceof CborFloat) return `a float (${node.value})`;
  if (CID.asCID(node) !== null) return 'a CID';
  if (Array.isArray(node)) return `an array of ${node.length}`;
  return 'a map';
}

function fail(path: string, expected: string, node: CborNode): never {
  throw new CborDecodeError(`${path}: expected ${expected}, got ${describeNode(node)}`);
}

/** A fixed-length tuple type: `CborTuple<3>` is `[CborNode, CborNode, CborNode]`. */
export type CborTuple<N extends number, T extends CborNode[] = []> = T['length'] extends N
  ? T
  : CborTuple<N, [...T, CborNode]>;

/** A tuple of exactly `length` fields (cbor-gen checks the field count). */
export function readTuple<N extends number>(node: CborNode, path: string, length: N): CborTuple<N> {
  return readTupleOfLengths(node, path, [length]) as CborTuple<N>;
}

/** A tuple whose length selects its version (receipts, actors). */
export function readTupleOfLengths(node: CborNode, path: string, lengths: readonly number[]): CborNode[] {
  const expected = `an array of ${lengths.join(' or ')} fields`;
  if (!Array.isArray(node) || !lengths.includes(node.length)) fail(path, expected, node);
  return node;
}

function readInteger(node: CborNode, path: string, kind: IntegerKind): bigint {
  if (typeof node !== 'number' && typeof node !== 'bigint') fail(path, 'an integer', node);
  const value = BigInt(node);
  if (!inRange(value, kind)) fail(path, describeRange(kind), node);
  return value;
}

export function readUint64(node: CborNode, path: string): bigint {
  return readInteger(node, path, 'uint64');
}

export function readInt64(node: CborNode, path: string): bigint {
  return readInteger(node, path, 'int64');
}

export function readBytes(node: CborNode, path: string, maxLength = MAX_BYTE_ARRAY_LENGTH): Uint8Array {
  if (!(node instanceof Uint8Array)) fail(path, 'bytes', node);
  if (node.length > maxLength) fail(path, `at most ${maxLength} bytes`, node);
  return node;
}

export function readCid(node: CborNode, path: string): CID {
  const cid = CID.asCID(node);
  if (cid === null) fail(path, 'a CID', node);
  return cid;
}

export function readNullable<T>(node: CborNode, path: string, read: (node: CborNode, path: string) => T): T | null {
  return node === null ? null : read(node, path);
}

export function readArray<T>(
  node: CborNode,
  path: string,
  readItem: (node: CborNode, path: string) => T,
  maxLength = MAX_ARRAY_LENGTH,
): T[] {
  if (!Array.isArray(node)) fail(path, 'an array', node);
  if (node.length > maxLength) fail(path, `at most ${maxLength} items`, node);
  return node.map((item, i) => readItem(item, `${path}[${i}]`));
}

/** Guards encoders with cbor-gen's slice limit, so that we never write what Lotus cannot read. */
export function checkArrayLength<T>(items: readonly T[], path: string, maxLength = MAX_ARRAY_LENGTH): readonly T[] {
  if (items.length > maxLength) {
    throw new InvalidArgumentError(`${path}: ${items.length} items exceed ${maxLength}`);
  }
  return items;
}
