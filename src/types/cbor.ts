/**
 * DAG-CBOR encoding and strict decoding. Decoding rejects non-canonical input (non-minimal
 * lengths and integers, indefinite lengths, duplicate map keys, undefined, NaN) because a
 * re-encoded object must hash to the CID it arrived under.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { decode, type TagDecoder } from 'cborg';
import { CID } from 'multiformats/cid';
import { bytesEqual } from '../utils/bytes.js';
import { LedgerError } from '../utils/errors.js';

/** Input bytes are not valid canonical DAG-CBOR, or do not have the shape a type expects. */
export class CborDecodeError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CBOR_DECODE', message, options);
  }
}

export const DAG_CBOR_CODE = 0x71;

const CID_TAG = 42;

/**
 * Tag 42 as go-cid reads it (ipfs/go-cid cid.go, `CidFromBytes`): the binary CID after the 0x00 prefix must be the one
 * form of its CID. multiformats also accepts an explicit version 0 (`00 <codec> <multihash>`) and
 * writes it back as a bare multihash, so a block holding one would re-encode to other bytes and
 * another CID than the one it arrived under; Lotus refuses such a block.
 */
const strictCidTag: TagDecoder = (decodeInner) => {
  const bytes = decodeInner() as Uint8Array;
  if (!(bytes instanceof Uint8Array) || bytes[0] !== 0) {
    throw new Error('Invalid CID for CBOR tag 42; expected a byte string with a leading 0x00');
  }
  const cid = CID.decode(bytes.subarray(1));
  if (!bytesEqual(cid.bytes, bytes.subarray(1))) {
    throw new Error(`Invalid CID for CBOR tag 42: non-canonical CID bytes (${cid} is written differently)`);
  }
  return cid;
};

/** @ipld/dag-cbor's decoding rules, with the strict tag 42 above. */
export const DAG_CBOR_DECODE_OPTIONS = {
  ...dagCbor.decodeOptions,
  tags: { ...dagCbor.decodeOptions.tags, [CID_TAG]: strictCidTag },
};

export function encodeCbor(value: unknown): Uint8Array {
  return dagCbor.encode(value);
}

export function decodeCbor(bytes: Uint8Array, what = 'value'): unknown {
  try {
    return decode(bytes, DAG_CBOR_DECODE_OPTIONS);
  } catch (error) {
    throw new CborDecodeError(`invalid DAG-CBOR for ${what}: ${(error as Error).message}`, { cause: error });
  }
}
