/**
 * The devnet's beacon. drand cannot be reached from a local network, so a devnet runs its own
 * beacon with drand quicknet's scheme (unchained: G1 signatures over sha256(round)): entries are
 * real BLS signatures that every node verifies against the public key in its network config, and
 * round r falls due at the start of epoch r (period = block delay, round 1 = genesis time).
 *
 * The key is derived from a seed stored with the devnet, so its randomness is reproducible and
 * NOT unpredictable: fine for development, never for a network with something at stake.
 */
import { blake2b256, bls, drand } from '../crypto/index.js';
import type { BeaconEntry } from '../types/index.js';
import type { BeaconSource } from './beacon-source.js';
import type { DrandNetwork } from './drand-network.js';
import { beaconMessage } from './verify-entry.js';

const KEY_DOMAIN = new TextEncoder().encode('ledger-node local beacon key v1:');

export class LocalBeacon implements BeaconSource {
  readonly network: DrandNetwork;
  readonly #privateKey: Uint8Array;

  private constructor(privateKey: Uint8Array, network: DrandNetwork) {
    this.#privateKey = privateKey;
    this.network = network;
  }

  /** The beacon for a devnet whose chain starts at `genesisTime` with `blockDelaySecs` epochs. */
  static fromSeed(seed: Uint8Array, genesisTime: bigint, blockDelaySecs: bigint): LocalBeacon {
    const privateKey = bls.privateKeyFromSeed(blake2b256(new Uint8Array([...KEY_DOMAIN, ...seed])));
    return new LocalBeacon(privateKey, {
      name: 'ledger-local',
      publicKey: drand.unchainedPublicKey(privateKey),
      periodSecs: blockDelaySecs,
      genesisTime,
      scheme: 'unchained',
    });
  }

  entry(round: bigint): BeaconEntry {
    return { round, data: drand.unchainedSign(this.#privateKey, beaconMessage(this.network, round)) };
  }
}
