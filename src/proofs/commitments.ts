/**
 * Sector commitments as CIDs (ref-fvm `commcid`): CommR is codec fil-commitment-sealed (0xf102)
 * with multihash poseidon-bls12_381-a2-fc1 (0xb401); CommD (and piece CommP) is codec
 * fil-commitment-unsealed (0xf101) with multihash sha2-256-trunc254-padded (0x1012).
 */
import { hash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { ProofsError } from './errors.js';
import { type RegisteredSealProof, sectorSize, windowPostProofOf } from './registered-proofs.js';

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

/**
 * CommD of a sector of zeros (a committed-capacity sector): the root of the binary sha2-256-trunc254
 * tree over 32-byte zero leaves, each node `sha256(left ‖ right)` with its top two bits cleared
 * (builtin-actors `actors/miner/src/commd.rs` ZERO_COMMD_HASH, filecoin-proofs `pieces.rs`). Pass it
 * where a pre-commit's unsealed CID is null.
 */
export function zeroCommDCid(sealProof: number): CID {
  if (windowPostProofOf(sealProof) === undefined) {
    throw new ProofsError('ERR_INVALID_PROOF_INPUT', `unknown registered seal proof ${sealProof}`);
  }
  let node = new Uint8Array(32);
  for (let leaves = sectorSize((sealProof % 5) as RegisteredSealProof) / 32n; leaves > 1n; leaves /= 2n) {
    node = new Uint8Array(hash('sha256', Buffer.concat([node, node]), 'buffer'));
    node[31] = (node[31] as number) & 0x3f;
  }
  return unsealedCid(node);
}
