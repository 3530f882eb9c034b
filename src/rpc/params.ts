/**
 * Parameter declarations shared by method declarations: each pairs a JSON schema with the strict
 * Lotus JSON decoder of its type, so a bad value is refused with a message naming the parameter.
 */
import {
  type Address,
  addressFromLotusJson,
  jsonFail,
  type Message,
  messageFromLotusJson,
  readJsonBytes,
  type Signature,
  signatureFromLotusJson,
} from '../types/index.js';
import { type KeyInfo, type KeyType, keyInfoFromLotusJson, keyTypeFromLotusJson } from '../wallet/index.js';
import { isPermission, type ParamDeclaration, type Permission } from './method.js';
import {
  addressSchema,
  bytesSchema,
  keyInfoSchema,
  keyTypeSchema,
  messageSchema,
  permissionListSchema,
  signatureSchema,
  stringSchema,
} from './schemas.js';

export function addressParam(name: string, description: string): ParamDeclaration<Address> {
  return { name, description, schema: addressSchema, decode: addressFromLotusJson };
}

/** Base64 bytes; `null` is no bytes, as Go decodes it into a nil slice. */
export function bytesParam(name: string, description: string): ParamDeclaration<Uint8Array> {
  return { name, description, schema: bytesSchema, decode: readJsonBytes };
}

/** A signature, or `null` for none (Lotus passes a nil `*crypto.Signature` on). */
export function nullableSignatureParam(name: string, description: string): ParamDeclaration<Signature | null> {
  return {
    name,
    description,
    schema: { oneOf: [signatureSchema, { type: 'null' }] },
    decode: (json, path) => (json === null ? null : signatureFromLotusJson(json, path)),
  };
}

export function messageParam(name: string, description: string): ParamDeclaration<Message> {
  return { name, description, schema: messageSchema, decode: messageFromLotusJson };
}

export function keyTypeParam(name: string, description: string): ParamDeclaration<KeyType> {
  return { name, description, schema: keyTypeSchema, decode: keyTypeFromLotusJson };
}

export function keyInfoParam(name: string, description: string): ParamDeclaration<KeyInfo> {
  return { name, description, schema: keyInfoSchema, decode: keyInfoFromLotusJson };
}

export function stringParam(name: string, description: string): ParamDeclaration<string> {
  return {
    name,
    description,
    schema: stringSchema,
    decode: (json, path) => (typeof json === 'string' ? json : jsonFail(path, 'a string', json)),
  };
}

export function permissionsParam(name: string, description: string): ParamDeclaration<Permission[]> {
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
