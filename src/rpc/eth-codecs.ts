/**
 * The Ethereum JSON-RPC's own JSON (not Lotus JSON): quantities as minimal `0x` hex, byte strings
 * as `0x` hex (20-byte addresses, 32-byte hashes), block parameters as tags, hex numbers or the
 * EIP-1898 object. Each codec is declared once, as a parameter (schema + strict decoder) or an
 * encoder, and reused by every eth method (filecoin-project/lotus `chain/types/ethtypes/eth_types.go`).
 */
import { jsonFail, readJsonObject } from '../types/index.js';
import { fromHex, toHex } from '../utils/bytes.js';
import type { JsonSchema, ParamDeclaration } from './method.js';

export const quantitySchema = {
  title: 'EthUint64',
  type: 'string',
  pattern: '^0x[0-9a-fA-F]+$',
  description: 'a quantity: minimal 0x hex',
} as const;
export const dataSchema = { title: 'EthBytes', type: 'string', pattern: '^0x([0-9a-fA-F]{2})*$' } as const;
export const ethAddressSchema = { title: 'EthAddress', type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' } as const;
export const ethHashSchema = { title: 'EthHash', type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } as const;
const blockTagSchema = {
  type: 'string',
  description: '"latest", "pending", "safe", "finalized", "earliest" or a 0x hex block number',
} as const;
export const blockParamSchema = {
  title: 'EthBlockNumberOrHash',
  oneOf: [
    blockTagSchema,
    {
      type: 'object',
      properties: {
        blockNumber: quantitySchema,
        blockHash: ethHashSchema,
        requireCanonical: { type: 'boolean' },
      },
    },
  ],
} as const;

/** A quantity as Ethereum JSON writes it: `0x0`, `0x1a`, never leading zeros. */
export function quantity(value: bigint | number): string {
  return `0x${value.toString(16)}`;
}

/** Bytes as `0x` hex (`0x` for none). */
export function hexData(bytes: Uint8Array): string {
  return `0x${toHex(bytes)}`;
}

/** An unsigned hex quantity; leading zeros are read, as Lotus's `EthUint64` reads them. */
export function readQuantity(json: unknown, path: string): bigint {
  if (typeof json !== 'string' || !/^0x[0-9a-fA-F]+$/.test(json)) jsonFail(path, 'a hex quantity ("0x…")', json);
  return BigInt(json);
}

/**
 * `0x` hex bytes of `length` bytes when given. An odd number of digits is left-padded with a zero,
 * as Lotus's `DecodeHexString` does.
 */
export function readHexData(json: unknown, path: string, length?: number): Uint8Array {
  const expected = length === undefined ? 'hex data ("0x…")' : `${length} bytes of hex ("0x" and ${2 * length} digits)`;
  if (typeof json !== 'string' || !/^0x[0-9a-fA-F]*$/.test(json)) jsonFail(path, expected, json);
  const digits = json.slice(2);
  const bytes = fromHex(digits.length % 2 === 0 ? digits : `0${digits}`);
  if (length !== undefined && bytes.length !== length) jsonFail(path, expected, json);
  return bytes;
}

export const readEthAddress = (json: unknown, path: string): Uint8Array => readHexData(json, path, 20);
export const readEthHash = (json: unknown, path: string): Uint8Array => readHexData(json, path, 32);

/** A block parameter: a tag, a height, or (EIP-1898) a block hash. */
export type BlockParam =
  | { readonly kind: 'tag'; readonly tag: 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest' }
  | { readonly kind: 'number'; readonly height: bigint }
  | { readonly kind: 'hash'; readonly hash: Uint8Array; readonly requireCanonical: boolean };

const BLOCK_TAGS = ['latest', 'pending', 'safe', 'finalized', 'earliest'] as const;

export function readBlockParam(json: unknown, path: string): BlockParam {
  if (typeof json === 'string') {
    const tag = BLOCK_TAGS.find((t) => t === json);
    if (tag !== undefined) return { kind: 'tag', tag };
    if (/^0x[0-9a-fA-F]+$/.test(json)) return { kind: 'number', height: BigInt(json) };
    jsonFail(path, 'a block tag ("latest", "pending", "safe", "finalized", "earliest") or a hex block number', json);
  }
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const object = readJsonObject(json, path);
    if (object.blockHash !== undefined && object.blockNumber !== undefined) {
      jsonFail(path, 'either blockHash or blockNumber, not both', json);
    }
    if (object.blockHash !== undefined) {
      const requireCanonical = object.requireCanonical;
      if (requireCanonical !== undefined && typeof requireCanonical !== 'boolean') {
        jsonFail(`${path}.requireCanonical`, 'true or false', requireCanonical);
      }
      return {
        kind: 'hash',
        hash: readEthHash(object.blockHash, `${path}.blockHash`),
        requireCanonical: requireCanonical === true,
      };
    }
    if (object.blockNumber !== undefined) return readBlockParam(object.blockNumber, `${path}.blockNumber`);
  }
  return jsonFail(path, 'a block tag, a hex block number or {"blockHash": …}', json);
}

/** The transaction object of eth_call and eth_estimateGas (Lotus `EthCall`). */
export interface EthCallRequest {
  readonly from: Uint8Array | null;
  readonly to: Uint8Array | null;
  readonly gas: bigint | null;
  readonly gasPrice: bigint | null;
  readonly maxFeePerGas: bigint | null;
  readonly maxPriorityFeePerGas: bigint | null;
  readonly value: bigint;
  readonly input: Uint8Array;
}

function optional<T>(
  object: Record<string, unknown>,
  key: string,
  path: string,
  read: (json: unknown, path: string) => T,
): T | null {
  const value = object[key];
  return value === undefined || value === null ? null : read(value, `${path}.${key}`);
}

export function readEthCallRequest(json: unknown, path: string): EthCallRequest {
  const object = readJsonObject(json, path);
  // Lotus prefers `input` over `data` when both are there (ethtypes `EthCall.UnmarshalJSON`).
  const input = optional(object, 'input', path, readHexData) ?? optional(object, 'data', path, readHexData);
  return {
    from: optional(object, 'from', path, readEthAddress),
    to: optional(object, 'to', path, readEthAddress),
    gas: optional(object, 'gas', path, readQuantity),
    gasPrice: optional(object, 'gasPrice', path, readQuantity),
    maxFeePerGas: optional(object, 'maxFeePerGas', path, readQuantity),
    maxPriorityFeePerGas: optional(object, 'maxPriorityFeePerGas', path, readQuantity),
    value: optional(object, 'value', path, readQuantity) ?? 0n,
    input: input ?? new Uint8Array(0),
  };
}

const callRequestSchema = {
  title: 'EthCall',
  type: 'object',
  properties: {
    from: ethAddressSchema,
    to: { oneOf: [ethAddressSchema, { type: 'null' }] },
    gas: quantitySchema,
    gasPrice: quantitySchema,
    maxFeePerGas: quantitySchema,
    maxPriorityFeePerGas: quantitySchema,
    value: quantitySchema,
    data: dataSchema,
    input: dataSchema,
  },
} as const;

function ethParam<T>(
  schema: JsonSchema,
  decode: (json: unknown, path: string) => T,
): (name: string, description: string, options?: { optional: true }) => ParamDeclaration<T, string> {
  return (name, description, options) => ({ name, description, schema, decode, ...options });
}

export const quantityParam = ethParam(quantitySchema, readQuantity);
export const dataParam = ethParam(dataSchema, readHexData);
export const ethAddressParam = ethParam(ethAddressSchema, readEthAddress);
export const ethHashParam = ethParam(ethHashSchema, readEthHash);
export const blockParam = ethParam<BlockParam>(blockParamSchema, readBlockParam);
export const callRequestParam = ethParam<EthCallRequest>(callRequestSchema, readEthCallRequest);

/** A parameter that may be left out (decoded as null then), as go-jsonrpc allows for pointer params. */
export function optionalParam<T, J>(param: ParamDeclaration<T, J>): ParamDeclaration<T | null, J | null> {
  return {
    ...param,
    optional: true,
    decode: (json, path) => (json === null || json === undefined ? null : param.decode(json, path)),
  };
}
