/**
 * JSON schemas of the Lotus JSON shapes, for the OpenRPC document and docs/api.md. The chain types'
 * schemas derive from their declarations in src/types (struct.ts); this module re-exports them beside
 * the schemas of the RPC's own shapes.
 */
import { bytesSchema } from '../types/index.js';
import { PERMISSIONS } from './method.js';

export {
  addressSchema,
  bigIntSchema,
  bytesSchema,
  cidSchema,
  messageSchema,
  signatureSchema,
  signedMessageSchema,
} from '../types/index.js';

export const keyTypeSchema = {
  title: 'KeyType',
  oneOf: [
    { type: 'string', enum: ['secp256k1', 'bls', 'delegated'] },
    { type: 'integer', enum: [1, 2, 3], description: 'deprecated: 1 secp256k1, 2 BLS, 3 delegated' },
  ],
} as const;

export const keyInfoSchema = {
  title: 'KeyInfo',
  type: 'object',
  properties: {
    Type: { type: 'string', enum: ['secp256k1', 'bls', 'delegated'] },
    PrivateKey: {
      ...bytesSchema,
      description: '32 bytes: big-endian for secp256k1 and delegated (an Ethereum key), little-endian for BLS',
    },
  },
  required: ['Type', 'PrivateKey'],
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
