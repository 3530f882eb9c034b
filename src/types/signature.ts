/**
 * Signature (go-state-types crypto.Signature): in CBOR one byte string `type || data`, at most 200
 * bytes; in Lotus JSON `{"Type": n, "Data": base64}`.
 */
import { concatBytes, toBase64 } from '../utils/bytes.js';
import { InvalidArgumentError } from '../utils/errors.js';
import { CborDecodeError, encodeCbor } from './cbor.js';
import { readBytes } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { bytesSchema } from './field-kinds.js';
import { jsonField, readJsonBytes, readJsonEnum, readJsonObject } from './json.js';
import type { FieldKind } from './struct.js';

export const SignatureType = { Secp256k1: 1, BLS: 2, Delegated: 3 } as const;
export type SignatureType = (typeof SignatureType)[keyof typeof SignatureType];
const SIGNATURE_TYPES: readonly SignatureType[] = [1, 2, 3];

export const SIGNATURE_MAX_LENGTH = 200;

export interface Signature {
  readonly type: SignatureType;
  readonly data: Uint8Array;
}

export interface SignatureJson {
  Type: SignatureType;
  Data: string;
}

export function signatureToCborNode(signature: Signature): Uint8Array {
  if (!SIGNATURE_TYPES.includes(signature.type)) {
    throw new InvalidArgumentError(`Signature.Type: expected 1, 2 or 3, got ${signature.type}`);
  }
  const bytes = concatBytes(Uint8Array.of(signature.type), signature.data);
  if (bytes.length > SIGNATURE_MAX_LENGTH) {
    throw new InvalidArgumentError(`Signature: ${bytes.length} bytes exceed ${SIGNATURE_MAX_LENGTH}`);
  }
  return bytes;
}

export function signatureFromCborNode(node: CborNode, path: string): Signature {
  const bytes = readBytes(node, path, SIGNATURE_MAX_LENGTH);
  if (bytes.length === 0) throw new CborDecodeError(`${path}: empty signature (no type byte)`);
  const type = bytes[0] as SignatureType;
  if (!SIGNATURE_TYPES.includes(type)) {
    throw new CborDecodeError(`${path}: unknown signature type ${type} (1 secp256k1, 2 BLS, 3 delegated)`);
  }
  return { type, data: bytes.subarray(1) };
}

export function encodeSignature(signature: Signature): Uint8Array {
  return encodeCbor(signatureToCborNode(signature));
}

export function decodeSignature(bytes: Uint8Array): Signature {
  return signatureFromCborNode(decodeChainCbor(bytes, 'Signature'), 'Signature');
}

/** `Data` is always base64, even when empty: Lotus slices it out of the CBOR bytes, so it is never nil. */
export function signatureToLotusJson(signature: Signature): SignatureJson {
  return { Type: signature.type, Data: toBase64(signature.data) };
}

export function signatureFromLotusJson(json: unknown, path = 'Signature'): Signature {
  const object = readJsonObject(json, path);
  return {
    type: readJsonEnum(jsonField(object, 'Type'), `${path}.Type`, SIGNATURE_TYPES),
    data: readJsonBytes(jsonField(object, 'Data'), `${path}.Data`),
  };
}

export const signatureSchema = {
  title: 'Signature',
  type: 'object',
  properties: {
    Type: { type: 'integer', enum: [1, 2, 3], description: '1 secp256k1, 2 BLS, 3 delegated' },
    Data: bytesSchema,
  },
  required: ['Type', 'Data'],
} as const;

/**
 * The signature as a struct field, by hand: in CBOR it is not a tuple but one byte string whose first
 * byte is the type (go-state-types crypto/signature.go `MarshalCBOR`), while its JSON is an object.
 */
export const signatureKind: FieldKind<Signature, SignatureJson> = {
  toCbor: signatureToCborNode,
  fromCbor: signatureFromCborNode,
  toJson: signatureToLotusJson,
  fromJson: signatureFromLotusJson,
  schema: signatureSchema,
  required: true,
};
