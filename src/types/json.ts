/**
 * Lotus JSON plumbing shared by the type codecs: a lossless JSON reader and writer (Lotus renders
 * uint64 values as JSON numbers beyond 2^53), and readers that validate one JSON value each and name
 * its path in errors (`Message.Value: expected a decimal string, got 1.5`).
 *
 * Input follows Go's encoding/json as Lotus uses it: keys match exactly or else case-insensitively,
 * unknown keys are ignored, and an absent (or, for plain integers, null) field takes Go's zero value
 * — the Zondax vectors omit `Version`, for instance. A field that is present must have the right type.
 * Integer fields accept a JSON number, a bigint from `parseJsonLossless` or a string of digits.
 */
import { parse, stringify } from 'lossless-json';
import { CID } from 'multiformats/cid';
import { fromBase64, toBase64 } from '../utils/bytes.js';
import { JsonDecodeError } from './errors.js';
import { describeRange, type IntegerKind, inRange } from './integers.js';

/** A JSON integer: a number when it is safe, a bigint otherwise (write it with `stringifyJsonLossless`). */
export type JsonInteger = number | bigint;
export type JsonObject = Record<string, unknown>;
export interface CidJson {
  '/': string;
}

function parseNumberLossless(text: string): number | bigint {
  if (/^-?\d+$/.test(text)) {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : BigInt(text);
  }
  return Number(text);
}

/** JSON.parse that keeps integers exact: unsafe integers become bigints, everything else is as JSON.parse. */
export function parseJsonLossless(text: string): unknown {
  try {
    return parse(text, null, parseNumberLossless);
  } catch (error) {
    throw new JsonDecodeError(`invalid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** JSON.stringify that writes bigints as JSON numbers. */
export function stringifyJsonLossless(value: unknown, space?: number | string): string {
  const text = stringify(value, null, space);
  if (text === undefined) throw new JsonDecodeError('value has no JSON representation');
  return text;
}

export function describeJson(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return 'an object';
}

export function jsonFail(path: string, expected: string, value: unknown): never {
  throw new JsonDecodeError(`${path}: expected ${expected}, got ${describeJson(value)}`);
}

export function readJsonObject(value: unknown, path: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) jsonFail(path, 'an object', value);
  return value as JsonObject;
}

/** The value of `name` in `object`, matched like Go: exactly, else case-insensitively. */
export function jsonField(object: JsonObject, name: string): unknown {
  if (Object.hasOwn(object, name)) return object[name];
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : object[key];
}

function readJsonInteger(value: unknown, path: string, kind: IntegerKind): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    jsonFail(path, `${describeRange(kind)}, but this number lost precision (parse with parseJsonLossless)`, value);
  }
  const isInteger =
    typeof value === 'bigint' ||
    (typeof value === 'number' && Number.isSafeInteger(value)) ||
    (typeof value === 'string' && /^-?\d+$/.test(value));
  if (!isInteger) jsonFail(path, describeRange(kind), value);
  const result = BigInt(value);
  if (!inRange(result, kind)) jsonFail(path, `${describeRange(kind)} (out of range)`, value);
  return result;
}

export function readJsonUint64(value: unknown, path: string): bigint {
  return readJsonInteger(value, path, 'uint64');
}

export function readJsonInt64(value: unknown, path: string): bigint {
  return readJsonInteger(value, path, 'int64');
}

/** A small enumeration carried as a JSON number (signature types). */
export function readJsonEnum<T extends number>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'number' || !allowed.includes(value as T)) jsonFail(path, `one of ${allowed.join(', ')}`, value);
  return value as T;
}

/** Base64 bytes; null or absent is empty (Lotus writes nil byte slices as null). */
export function readJsonBytes(value: unknown, path: string): Uint8Array {
  if (value === undefined || value === null) return new Uint8Array(0);
  if (typeof value !== 'string') jsonFail(path, 'a base64 string or null', value);
  try {
    return fromBase64(value);
  } catch {
    jsonFail(path, 'a base64 string', value);
  }
}

export function readJsonCid(value: unknown, path: string): CID {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    jsonFail(path, 'a CID link {"/": "bafy…"}', value);
  }
  const link = (value as JsonObject)['/'];
  if (typeof link !== 'string') jsonFail(path, 'a CID link {"/": "bafy…"}', value);
  try {
    return CID.parse(link);
  } catch (error) {
    throw new JsonDecodeError(`${path}: invalid CID ${describeJson(link)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** A JSON array; null or absent is empty (Lotus writes nil slices as null). */
export function readJsonArray<T>(value: unknown, path: string, readItem: (value: unknown, path: string) => T): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) jsonFail(path, 'an array or null', value);
  return value.map((item, i) => readItem(item, `${path}[${i}]`));
}

export function readJsonNullable<T>(value: unknown, path: string, read: (value: unknown, path: string) => T): T | null {
  return value === undefined || value === null ? null : read(value, path);
}

export function toJsonInteger(value: bigint): JsonInteger {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

export function cidToLotusJson(cid: CID): CidJson {
  return { '/': cid.toString() };
}

/** Base64, or null for no bytes: cbor-gen decodes empty byte strings to nil slices, which Lotus writes as null. */
export function bytesToLotusJson(bytes: Uint8Array): string | null {
  return bytes.length === 0 ? null : toBase64(bytes);
}

/** A JSON array, or null for none: Lotus writes the nil slices that cbor-gen decodes from empty arrays as null. */
export function sliceToLotusJson<T, J>(items: readonly T[], toJson: (item: T) => J): J[] | null {
  return items.length === 0 ? null : items.map(toJson);
}
