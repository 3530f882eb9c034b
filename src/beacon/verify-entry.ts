/**
 * Beacon entry verification for both drand schemes, against the network's public key.
 *
 * - chained: message = sha256(previous signature || uint64_be(round)); Filecoin's own BLS scheme.
 * - unchained (quicknet): message = sha256(uint64_be(round)); G1 signatures, G2 key.
 */
import { createHash } from 'node:crypto';
import { bls, drand } from '../crypto/index.js';
import type { BeaconEntry } from '../types/index.js';
import type { DrandNetwork } from './drand-network.js';

function roundBytes(round: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, round);
  return out;
}

/** The bytes the beacon signs for `round` (`previousSignature` only matters for chained networks). */
export function beaconMessage(network: DrandNetwork, round: bigint, previousSignature?: Uint8Array): Uint8Array {
  const hash = createHash('sha256');
  if (network.scheme === 'chained') {
    if (previousSignature === undefined) {
      throw new TypeError(`a chained beacon message for round ${round} needs the previous round's signature`);
    }
    hash.update(previousSignature);
  }
  hash.update(roundBytes(round));
  return new Uint8Array(hash.digest());
}

/**
 * True iff `entry` is the network's signature for its round. A chained entry needs the entry of
 * the round right before it; an unchained one stands alone.
 */
export function verifyBeaconEntry(network: DrandNetwork, entry: BeaconEntry, previous?: BeaconEntry): boolean {
  if (network.scheme === 'unchained') {
    return drand.unchainedVerify(network.publicKey, beaconMessage(network, entry.round), entry.data);
  }
  if (previous === undefined || previous.round + 1n !== entry.round) return false;
  return bls.verify(network.publicKey, beaconMessage(network, entry.round, previous.data), entry.data);
}
