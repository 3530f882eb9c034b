/**
 * Sector commitments as CIDs (ref-fvm `commcid`): CommR is codec fil-commitment-sealed (0xf102)
 * with multihash poseidon-bls12_381-a2-fc1 (0xb401); CommD (and piece CommP) is codec
 * fil-commitment-unsealed (0xf101) with multihash sha2-256-trunc254-padded (0x1012).
 */
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { ProofsError } from './errors.js';

export const FIL_COMMITMENT_UNSEALED = 0xf101;
export const FIL_COMMITMENT_SEALED = 0xf102;
export const SHA2_256_TRUNC254_PADDED = 0x1012;
export const POSEIDON_BLS12_381_A2_FC1 = 0xb401;

const KINDS = {
  sealed: { codec: FIL_COMMITMENT_SEALED, hash: POSEIDON_BLS12_381_A2_FC1, name: 'CommR' },
  unsealed: { codec: FIL_COMMITMENT_UNSEALED, hash: SHA2_256_TRUNC254_PADDED, name: 'CommD' },
} as const;
type Kind = keyof typeof KINDS;

function toCid(kind: Kind, commitment: Uint8Array): CID {
  const { codec, hash, name } = KINDS[kind];
  if (commitment.length !== 32) {
    throw new ProofsError('ERR_INVALID_PROOF_INPUT', `${name} must be 32 bytes, got ${commitment.length}`);
  }
  return CID.createV1(codec, Digest.create(hash, Uint8Array.from(commitment)));
}

function fromCid(kind: Kind, cid: CID): Uint8Array {
  const { codec, hash, name } = KINDS[kind];
  if (cid.version !== 1 || cid.code !== codec || cid.multihash.code !== hash || cid.multihash.size !== 32) {
    throw new ProofsError('ERR_INVALID_PROOF_INPUT', `${cid} is not a ${name} CID`);
  }
  return Uint8Array.from(cid.multihash.digest);
}

/** CommR as a CID (`bagboea4b5abc…`). */
export function sealedCid(commR: Uint8Array): CID {
  return toCid('sealed', commR);
}

/** CommD as a CID (`baga6ea4seaq…`). */
export function unsealedCid(commD: Uint8Array): CID {
  return toCid('unsealed', commD);
}

export function commRFromCid(cid: CID): Uint8Array {
  return fromCid('sealed', cid);
}

export function commDFromCid(cid: CID): Uint8Array {
  return fromCid('unsealed', cid);
}
