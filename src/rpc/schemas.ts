/** JSON schemas of the Lotus JSON shapes, for the OpenRPC document and docs/api.md. */
import { PERMISSIONS } from './method.js';

export const addressSchema = {
  title: 'Address',
  type: 'string',
  description:
    'A Filecoin address: f/t, the protocol digit (0 ID, 1 secp256k1, 2 actor, 3 BLS, 4 delegated), the payload',
  pattern: '^[ft][0-4][0-9a-z]+$',
  examples: ['t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba'],
} as const;

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

export const signatureSchema = {
  title: 'Signature',
  type: 'object',
  properties: {
    Type: { type: 'integer', enum: [1, 2, 3], description: '1 secp256k1, 2 BLS, 3 delegated' },
    Data: bytesSchema,
  },
  required: ['Type', 'Data'],
} as const;

export const keyTypeSchema = {
  title: 'KeyType',
  oneOf: [
    { type: 'string', enum: ['secp256k1', 'bls'] },
    { type: 'integer', enum: [1, 2], description: 'deprecated: 1 secp256k1, 2 BLS' },
  ],
} as const;

export const keyInfoSchema = {
  title: 'KeyInfo',
  type: 'object',
  properties: {
    Type: { type: 'string', enum: ['secp256k1', 'bls'] },
    PrivateKey: { ...bytesSchema, description: '32 bytes: big-endian for secp256k1, little-endian for BLS' },
  },
  required: ['Type', 'PrivateKey'],
} as const;

const integerSchema = { type: 'integer', minimum: 0 } as const;
const bigIntSchema = { type: 'string', pattern: '^-?[0-9]+$', description: 'a decimal integer' } as const;

export const messageSchema = {
  title: 'Message',
  type: 'object',
  properties: {
    Version: { type: 'integer', enum: [0] },
    To: addressSchema,
    From: addressSchema,
    Nonce: integerSchema,
    Value: { ...bigIntSchema, description: 'attoFIL' },
    GasLimit: { type: 'integer' },
    GasFeeCap: { ...bigIntSchema, description: 'attoFIL per gas unit' },
    GasPremium: { ...bigIntSchema, description: 'attoFIL per gas unit' },
    Method: integerSchema,
    Params: { oneOf: [bytesSchema, { type: 'null' }] },
    CID: { ...cidSchema, description: 'output only; ignored on input' },
  },
  required: ['To', 'From'],
} as const;

export const signedMessageSchema = {
  title: 'SignedMessage',
  type: 'object',
  properties: { Message: messageSchema, Signature: signatureSchema, CID: cidSchema },
  required: ['Message', 'Signature'],
} as const;

export const permissionListSchema = {
  title: 'Permissions',
  type: 'array',
  items: { type: 'string', enum: [...PERMISSIONS] },
} as const;

export const apiVersionSchema = {
  title: 'APIVersion',
  type: 'object',
  properties: {
    Version: { type: 'string', description: 'node version and network' },
    APIVersion: { type: 'integer', description: 'API semver packed as major<<16 | minor<<8 | patch' },
    BlockDelay: { type: 'integer', description: 'seconds per epoch' },
    Agent: { type: 'string' },
  },
  required: ['Version', 'APIVersion', 'BlockDelay', 'Agent'],
} as const;

export const stringSchema = { type: 'string' } as const;
export const booleanSchema = { type: 'boolean' } as const;
export const nullSchema = { type: 'null' } as const;
export const openRpcDocumentSchema = { title: 'OpenRPCDocument', type: 'object' } as const;
