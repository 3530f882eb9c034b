/**
 * DAG-CBOR encoding and strict decoding. Decoding rejects non-canonical input (non-minimal
 * lengths and integers, indefinite lengths, duplicate map keys, undefined, NaN) because a
 * re-encoded object must hash to the CID it arrived under.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { LedgerError } from '../utils/errors.js';

/** Input bytes are not valid canonical DAG-CBOR, or do not have the shape a type expects. */
export class CborDecodeError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CBOR_DECODE', message, options);
  }
}

export const DAG_CBOR_CODE = 0x71;

export function encodeCbor(value: unknown): Uint8Array {
  return dagCbor.encode(value);
}

export function decodeCbor(bytes: Uint8Array, what = 'value'): unknown {
  try {
    return dagCbor.decode(bytes);
  } catch (error) {
    throw new CborDecodeError(`invalid DAG-CBOR for ${what}: ${(error as Error).message}`, { cause: error });
  }
}
