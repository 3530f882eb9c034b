import { hash } from 'node:crypto';
import { blake2b256 } from '../crypto/index.js';
import { BLAKE2B_256_CODE, type CID } from '../types/cid.js';
import { bytesEqual } from '../utils/bytes.js';
import { BlockVerificationError } from './errors.js';

const SHA2_256_CODE = 0x12;
const IDENTITY_CODE = 0x00;

/**
 * Throws `BlockVerificationError` unless `bytes` hash to the digest in `cid`. Chain blocks use
 * blake2b-256; the genesis parent uses sha2-256; identity CIDs carry their bytes inline.
 */
export function verifyBlock(cid: CID, bytes: Uint8Array): void {
  const { code, digest } = cid.multihash;
  const problem = digestProblem(code, digest, bytes);
  if (problem !== undefined) throw new BlockVerificationError(cid, problem);
}

/**
 * Why `bytes` do not match a multihash (`code` and `digest`, as a CID carries them), or undefined
 * when they do: `verifyBlock` for callers that hold a CID's bytes, not a CID object (bulk imports).
 */
export function digestProblem(code: number, digest: Uint8Array, bytes: Uint8Array): string | undefined {
  let actual: Uint8Array;
  if (code === BLAKE2B_256_CODE) actual = blake2b256(bytes);
  else if (code === SHA2_256_CODE) actual = hash('sha256', bytes, 'buffer');
  else if (code === IDENTITY_CODE) actual = bytes;
  else return `unsupported multihash 0x${code.toString(16)}`;
  return bytesEqual(actual, digest) ? undefined : 'its bytes do not hash to its CID';
}
