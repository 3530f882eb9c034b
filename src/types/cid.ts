/**
 * CIDs of chain objects: CIDv1, codec dag-cbor, multihash blake2b-256 (`bafy2bzace…`).
 */
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { blake2b256 } from '../crypto/index.js';
import { LedgerError } from '../utils/errors.js';
import { DAG_CBOR_CODE } from './cbor.js';

export { CID };

export const BLAKE2B_256_CODE = 0xb220;

export class InvalidCidError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_INVALID_CID', message, options);
  }
}

/** The CID Filecoin gives DAG-CBOR bytes. */
export function cidOfCbor(bytes: Uint8Array): CID {
  return CID.createV1(DAG_CBOR_CODE, Digest.create(BLAKE2B_256_CODE, blake2b256(bytes)));
}

const RAW_CODE = 0x55;

/** The CID Filecoin gives a raw (IPLD_RAW) block, as the EVM actor stores bytecode. */
export function cidOfRaw(bytes: Uint8Array): CID {
  return CID.createV1(RAW_CODE, Digest.create(BLAKE2B_256_CODE, blake2b256(bytes)));
}

/** Parses a CID string with a clear error. */
export function parseCid(text: string): CID {
  try {
    return CID.parse(text);
  } catch (error) {
    throw new InvalidCidError(`invalid CID ${JSON.stringify(text)}: ${(error as Error).message}`, { cause: error });
  }
}

/** Decodes binary CID bytes with a clear error. */
export function cidFromBytes(bytes: Uint8Array): CID {
  try {
    return CID.decode(bytes);
  } catch (error) {
    throw new InvalidCidError(`invalid binary CID: ${(error as Error).message}`, { cause: error });
  }
}

/** True when `bytes` hash (blake2b-256) to the digest in `cid`. Other hash functions are not checked here. */
export function cidMatchesBytes(cid: CID, bytes: Uint8Array): boolean {
  if (cid.multihash.code !== BLAKE2B_256_CODE) return false;
  return Buffer.from(blake2b256(bytes)).equals(Buffer.from(cid.multihash.digest));
}
