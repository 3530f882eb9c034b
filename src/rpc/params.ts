/**
 * Parameter declarations shared by method declarations: each pairs a JSON schema with the strict
 * Lotus JSON decoder of its type, so a bad value is refused with a message naming the parameter.
 */
import {
  type Address,
  addressFromLotusJson,
  bigIntFromLotusJson,
  type JsonInteger,
  jsonFail,
  type Message,
  type MessageJson,
  messageFromLotusJson,
  readJsonArray,
  readJsonBytes,
  readJsonInt64,
  readJsonUint64,
  type Signature,
  type SignatureJson,
  signatureFromLotusJson,
} from '../types/index.js';
import {
  type KeyInfo,
  type KeyInfoJson,
  type KeyType,
  keyInfoFromLotusJson,
  keyTypeFromLotusJson,
} from '../wallet/index.js';
import { isPermission, type JsonSchema, type ParamDeclaration, type Permission } from './method.js';
import {
  addressSchema,
  bigIntSchema,
  booleanSchema,
  bytesSchema,
  keyInfoSchema,
  keyTypeSchema,
  messageSchema,
  permissionListSchema,
  signatureSchema,
  stringSchema,
} from './schemas.js';

export function addressParam(name: string, description: string): ParamDeclaration<Address, string> {
  return { name, description, schema: addressSchema, decode: addressFromLotusJson };
}

/** Base64 bytes; `null` is no bytes, as Go decodes it into a nil slice. */
export function bytesParam(name: string, description: string): ParamDeclaration<Uint8Array, string | null> {
  return { name, description, schema: bytesSchema, decode: readJsonBytes };
}

/** A signature, or `null` for none (Lotus passes a nil `*crypto.Signature` on). */
export function nullableSignatureParam(
  name: string,
  description: string,
): ParamDeclaration<Signature | null, SignatureJson | null> {
  return {
    name,
    description,
    schema: { oneOf: [signatureSchema, { type: 'null' }] },
    decode: (json, path) => (json === null ? null : signatureFromLotusJson(json, path)),
  };
}

export function messageParam(name: string, description: string): ParamDeclaration<Message, MessageJson> {
  return { name, description, schema: messageSchema, decode: messageFromLotusJson };
}

export function keyTypeParam(name: string, description: string): ParamDeclaration<KeyType, KeyType | number> {
  return { name, description, schema: keyTypeSchema, decode: keyTypeFromLotusJson };
}

export function keyInfoParam(name: string, description: string): ParamDeclaration<KeyInfo, KeyInfoJson> {
  return { name, description, schema: keyInfoSchema, decode: keyInfoFromLotusJson };
}

/** A parameter of one JSON primitive type; anything else is refused as not `expected`. */
function primitiveParam<T extends string | boolean>(schema: { type: 'string' | 'boolean' }, expected: string) {
  return (name: string, description: string): ParamDeclaration<T, T> => ({
    name,
    description,
    schema,
    decode: (json, path) => (typeof json === schema.type ? (json as T) : jsonFail(path, expected, json)),
  });
}

export const stringParam = primitiveParam<string>(stringSchema, 'a string');

export const booleanParam = primitiveParam<boolean>(booleanSchema, 'true or false');

export function permissionsParam(
  name: string,
  description: string,
): ParamDeclaration<Permission[], readonly Permission[]> {
  return {
    name,
    description,
    schema: permissionListSchema,
    decode: (json, path) => {
      if (!Array.isArray(json)) jsonFail(path, 'an array of permissions', json);
      return json.map((item, i) =>
        isPermission(item) ? item : jsonFail(`${path}[${i}]`, 'one of "read", "write", "sign", "admin"', item),
      );
    },
  };
}

export function int64Param(name: string, description: string): ParamDeclaration<bigint, JsonInteger> {
  return { name, description, schema: { type: 'integer' }, decode: readJsonInt64 };
}

export function uint64Param(name: string, description: string): ParamDeclaration<bigint, JsonInteger> {
  return { name, description, schema: { type: 'integer', minimum: 0 }, decode: readJsonUint64 };
}

/** A big integer (attoFIL, power) as a decimal string; a JSON number or null is refused, as Go refuses them. */
export function bigIntParam(name: string, description: string): ParamDeclaration<bigint, string> {
  return { name, description, schema: bigIntSchema, decode: bigIntFromLotusJson };
}

/** A list of `item`s; `null` is none, as Go decodes it into a nil slice. */
export function listParam<T, J>(
  name: string,
  description: string,
  item: { readonly schema: JsonSchema; readonly decode: (json: unknown, path: string) => T },
): ParamDeclaration<T[], J[] | null> {
  return {
    name,
    description,
    schema: { type: ['array', 'null'], items: item.schema },
    decode: (json, path) => (json === null ? [] : readJsonArray(json, path, item.decode)),
  };
}

export function messagesParam(name: string, description: string): ParamDeclaration<Message[], MessageJson[] | null> {
  return listParam(name, description, { schema: messageSchema, decode: messageFromLotusJson });
}

export function addressesParam(name: string, description: string): ParamDeclaration<Address[], string[] | null> {
  return listParam(name, description, { schema: addressSchema, decode: addressFromLotusJson });
}
