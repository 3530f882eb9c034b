/**
 * The randomness a block's proofs are drawn from (filecoin-project/lotus `miner/miner.go`,
 * `chain/consensus/filcns/filecoin.go`, `chain/rand/rand.go`). `base` is the block's last beacon
 * entry, or the latest one on the chain when the block carries none. The VRFs are BLS signatures by
 * the worker key over these 32-byte outputs; there is no extra hashing.
 */
import { DomainSeparationTag, drawRandomness } from '../crypto/index.js';
import { type Address, type BeaconEntry, encodeAddress, type Ticket } from '../types/index.js';
import { concatBytes } from '../utils/bytes.js';

/** Lotus `TicketRandomnessLookback`. */
const TICKET_RANDOMNESS_LOOKBACK = 1n;

/** The ticket's VRF input: round height − 1, entropy CBOR(miner) ‖ the parent's min ticket (post-Smoke). */
export function ticketVrfInput(base: BeaconEntry, miner: Address, height: bigint, parentMinTicket: Ticket): Uint8Array {
  const entropy = concatBytes(encodeAddress(miner), parentMinTicket.vrfProof);
  return drawRandomness(base.data, DomainSeparationTag.TicketProduction, height - TICKET_RANDOMNESS_LOOKBACK, entropy);
}

/** The election proof's VRF input. */
export function electionVrfInput(base: BeaconEntry, miner: Address, height: bigint): Uint8Array {
  return drawRandomness(base.data, DomainSeparationTag.ElectionProofProduction, height, encodeAddress(miner));
}

/** The winning PoSt challenge seed. */
export function winningPoStRandomness(base: BeaconEntry, miner: Address, height: bigint): Uint8Array {
  return drawRandomness(base.data, DomainSeparationTag.WinningPoStChallengeSeed, height, encodeAddress(miner));
}

/** The beacon entry a block's randomness comes from: its last entry, else the chain's latest before it. */
export function randomnessBase(entries: readonly BeaconEntry[], previous: BeaconEntry): BeaconEntry {
  return entries[entries.length - 1] ?? previous;
}
