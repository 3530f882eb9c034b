/**
 * Filecoin's DrawRandomness (lotus chain/rand, builtin-actors runtime randomness):
 *   blake2b256( int64_be(DST) || blake2b256(base) || int64_be(round) || entropy )
 * `base` is a beacon entry's Data or a ticket's VRFProof; the entropy is usually CBOR(miner address).
 */
import { concatBytes } from '../utils/bytes.js';
import { blake2b256 } from './blake2b.js';

/** Domain separation tags (builtin-actors `DomainSeparationTag`). */
export const DomainSeparationTag = {
  TicketProduction: 1,
  ElectionProofProduction: 2,
  WinningPoStChallengeSeed: 3,
  WindowedPoStChallengeSeed: 4,
  SealRandomness: 5,
  InteractiveSealChallengeSeed: 6,
  WindowPoStDeadlineAssignment: 7,
  MarketDealCronSeed: 8,
  PoStChainCommit: 9,
  EvmPrevRandao: 10,
} as const;
export type DomainSeparationTag = (typeof DomainSeparationTag)[keyof typeof DomainSeparationTag];

function int64BigEndian(value: bigint | number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, BigInt(value));
  return out;
}

/**
 * DrawRandomness from the 32-byte digest of the base (what the FVM randomness syscalls return).
 * The tag is any int64: Lotus's RPC passes the caller's number through.
 */
export function drawRandomnessFromDigest(
  digest: Uint8Array,
  tag: DomainSeparationTag | bigint,
  round: bigint | number,
  entropy: Uint8Array,
): Uint8Array {
  return blake2b256(concatBytes(int64BigEndian(tag), digest, int64BigEndian(round), entropy));
}

export function drawRandomness(
  base: Uint8Array,
  tag: DomainSeparationTag,
  round: bigint | number,
  entropy: Uint8Array,
): Uint8Array {
  return drawRandomnessFromDigest(blake2b256(base), tag, round, entropy);
}
