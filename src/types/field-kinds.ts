/**
 * The field kinds of `declareStruct` (struct.ts): how a field is written in a cbor-gen tuple and in
 * Lotus JSON, and its JSON schema. Each kind is the strict reader and writer the chain types have
 * always used (cbor-fields.ts, json.ts, big-int.ts), so errors read the same. Kinds of irregular
 * formats live beside their type: `addressKind` (address.ts), `signatureKind` (signature.ts),
 * `tipSetKeyKind` (tipset-key.ts).
 */
import type { CID } from 'multiformats/cid';
import { InvalidArgumentError } from '../utils/errors.js';
import { bigIntFromCborNode, bigIntFromLotusJson, bigIntToCborNode, bigIntToLotusJson } from './big-int.js';
import { CborDecodeError } from './cbor.js';
import {
  checkArrayLength,
  describeNode,
  MAX_ARRAY_LENGTH,
  MAX_BYTE_ARRAY_LENGTH,
  readArray,
  readBytes,
  readCid,
  readInt64,
  readUint64,
} from './cbor-fields.js';
import { JsonDecodeError } from './errors.js';
import { checkRange } from './integers.js';
import {
  bytesToLotusJson,
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  readJsonArray,
  readJsonBytes,
  readJsonCid,
  readJsonInt64,
  readJsonUint64,
  sliceToLotusJson,
  toJsonInteger,
} from './json.js';
import type { FieldKind, JsonSchema, StructCodec } from './struct.js';

export const bigIntSchema = { type: 'string', pattern: '^-?[0-9]+$', description: 'a decimal integer' } as const;

export const bytesSchema = {
  title: 'Bytes',
  type: 'string',
  contentEncoding: 'base64',
  description: 'Bytes in standard base64 with padding',
  examples: ['Ynl0ZSBhcnJheQ=='],
} as const;

export const cidSchema = {
  title: 'Cid',
  type: 'object',
  properties: { '/': { type: 'string' } },
  required: ['/'],
  additionalProperties: false,
} as const;

const nullSchema = { type: 'null' } as const;

/** cbor-gen `uint64`; a JSON number (a bigint beyond 2^53, see json.ts). */
export const uint64: FieldKind<bigint, JsonInteger> = {
  toCbor: (value, path) => checkRange(value, 'uint64', path),
  fromCbor: readUint64,
  toJson: toJsonInteger,
  fromJson: readJsonUint64,
  schema: { type: 'integer', minimum: 0 },
};

/** cbor-gen `int64` (epochs, exit codes, gas); a JSON number. */
export const int64: FieldKind<bigint, JsonInteger> = {
  toCbor: (value, path) => checkRange(value, 'int64', path),
  fromCbor: readInt64,
  toJson: toJsonInteger,
  fromJson: readJsonInt64,
  schema: { type: 'integer' },
};

/** Filecoin's BigInt (big-int.ts): sign-prefixed bytes in CBOR, a decimal string in JSON. */
export const bigInt: FieldKind<bigint, string> = {
  toCbor: bigIntToCborNode,
  fromCbor: bigIntFromCborNode,
  toJson: bigIntToLotusJson,
  fromJson: bigIntFromLotusJson,
  schema: bigIntSchema,
};

/**
 * A byte string of at most `maxLength` bytes (cbor-gen's `ByteArrayMaxLen` unless the type says
 * less); encoding refuses more, so that we never write what Lotus cannot read. Base64 or null in JSON.
 */
export function bytesOfAtMost(maxLength: number): FieldKind<Uint8Array, string | null> {
  return {
    toCbor: (value, path) => {
      if (value.length > maxLength) {
        throw new InvalidArgumentError(`${path}: ${value.length} bytes exceed ${maxLength}`);
      }
      return value;
    },
    fromCbor: (node, path) => readBytes(node, path, maxLength),
    toJson: bytesToLotusJson,
    fromJson: readJsonBytes,
    schema: { oneOf: [bytesSchema, nullSchema] },
  };
}

export const bytes = bytesOfAtMost(MAX_BYTE_ARRAY_LENGTH);

/** A CID link (tag 42); `{"/": "bafy…"}` in JSON. */
export const cid: FieldKind<CID, CidJson> = {
  toCbor: (value) => value,
  fromCbor: readCid,
  toJson: cidToLotusJson,
  fromJson: readJsonCid,
  schema: cidSchema,
  required: true,
};

/** A CBOR boolean; a JSON boolean (absent: false, Go's zero value). Actor params have them. */
export const bool: FieldKind<boolean, boolean> = {
  toCbor: (value) => value,
  fromCbor: (node, path) => {
    if (typeof node !== 'boolean') throw new CborDecodeError(`${path}: expected a boolean, got ${describeNode(node)}`);
    return node;
  },
  toJson: (value) => value,
  fromJson: (json, path) => {
    if (json === undefined || json === null) return false;
    if (typeof json !== 'boolean') throw new JsonDecodeError(`${path}: expected true or false`);
    return json;
  },
  schema: { type: 'boolean' },
};

/** A CBOR text string (the init actor's network name); a JSON string (absent: ""). */
export const text: FieldKind<string, string> = {
  toCbor: (value) => value,
  fromCbor: (node, path) => {
    if (typeof node !== 'string')
      throw new CborDecodeError(`${path}: expected a text string, got ${describeNode(node)}`);
    return node;
  },
  toJson: (value) => value,
  fromJson: (json, path) => {
    if (json === undefined || json === null) return '';
    if (typeof json !== 'string') throw new JsonDecodeError(`${path}: expected a string`);
    return json;
  },
  schema: { type: 'string' },
};

/** `kind` or null (a Go pointer); an absent JSON field is null. */
export function nullable<T, J>(kind: FieldKind<T, J>): FieldKind<T | null, J | null> {
  return {
    toCbor: (value, path) => (value === null ? null : kind.toCbor(value, path)),
    fromCbor: (node, path) => (node === null ? null : kind.fromCbor(node, path)),
    toJson: (value) => (value === null ? null : kind.toJson(value)),
    fromJson: (json, path) => (json === undefined || json === null ? null : kind.fromJson(json, path)),
    schema: { oneOf: [kind.schema, nullSchema] },
  };
}

/**
 * A slice of at most `maxLength` items (cbor-gen's `MaxLength`). In JSON null when empty, since
 * Lotus writes the nil slices cbor-gen decodes from empty arrays as null, and null reads as empty.
 */
export function array<T, J>(kind: FieldKind<T, J>, maxLength = MAX_ARRAY_LENGTH): FieldKind<readonly T[], J[] | null> {
  return {
    toCbor: (items, path) => checkArrayLength(items, path, maxLength).map((item) => kind.toCbor(item, path)),
    fromCbor: (node, path) => readArray(node, path, kind.fromCbor, maxLength),
    toJson: (items) => sliceToLotusJson(items, kind.toJson),
    fromJson: (json, path) => readJsonArray(json, path, kind.fromJson),
    schema: { type: ['array', 'null'], items: kind.schema },
  };
}

/** Another declared struct as a field (an embedded tuple in CBOR, an object in JSON). */
export function struct<T, J>(codec: StructCodec<T, J>): FieldKind<T, J> {
  return codec.kind;
}

/**
 * A field that always holds `value` (Message's Version): it is written without being part of the
 * value (declare it without `key`) and input holding anything else is refused, `reason` saying why.
 */
export function constant<T extends bigint, J>(kind: FieldKind<T, J>, value: T, reason: string): FieldKind<void, J> {
  const json = kind.toJson(value);
  return {
    toCbor: (_, path) => kind.toCbor(value, path),
    fromCbor: (node, path) => {
      if (kind.fromCbor(node, path) !== value) {
        throw new CborDecodeError(`${path}: must be ${value}, got ${describeNode(node)}`);
      }
    },
    toJson: () => json,
    fromJson: (input, path) => {
      const read = kind.fromJson(input, path);
      if (read !== value) throw new JsonDecodeError(`${path}: must be ${value} (${reason}), got ${read}`);
    },
    schema: { ...kind.schema, enum: [json], description: reason } satisfies JsonSchema,
  };
}
