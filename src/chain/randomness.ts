/**
 * Chain randomness as Lotus serves it to the VM and the RPC (filecoin-project/lotus
 * `chain/rand/rand.go`, `GetChainRandomness` / `GetBeaconRandomness`), read from the chain behind
 * one tipset: the tipset being executed's parent when the VM asks, the requested tipset for
 * `StateGetRandomnessFrom…`. The digests are what the FVM externs return; the draw
 * (`crypto/randomness.ts`) is applied by the runtime or here for the RPC.
 *
 * - Tickets: the tipset at `max(0, round)` on that chain (from network version 13 the first
 *   non-null one after a null round, before it the one before), blake2b256 of its min-ticket
 *   block's VRF proof.
 * - Beacon (network version 14 on): the entry whose round is the beacon round of `round`, searched
 *   in the first block of that tipset and up to 19 parents; a negative round reads the latest
 *   entry at genesis, as version 13 did for every round.
 * - Both refuse a round above the tipset's height ("from the future"). The draw hashes the round
 *   as asked, negative or not.
 */
import type { CID } from 'multiformats/cid';
import { blake2b256, type DomainSeparationTag, drawRandomnessFromDigest } from '../crypto/index.js';
import type { BeaconEntry, TipSet } from '../types/index.js';
import type { RandomnessSource } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { ChainError, ChainErrorCode } from './errors.js';

/**
 * The beacon round a Filecoin epoch reads (Lotus `BeaconForEpoch(e).MaxBeaconRoundForEpoch(nv, e)`);
 * built from the node's beacon network (`beacon/drand-network.ts`).
 */
export type BeaconSchedule = (epoch: bigint) => bigint;

/** Lotus `extractBeaconEntryForEpoch` searches the tipset and this many minus one parents. */
const BEACON_SEARCH_DEPTH = 20;

/** Network versions at which Lotus changed the lookups (`chain/rand/rand.go`). */
const NEXT_TIPSET_AT_NULL_ROUNDS = 13;
const BEACON_ROUND_BY_EPOCH = 14;

/** What the lookups read from the chain store. */
export type RandomnessChain = Pick<
  ChainStore,
  'params' | 'beaconSchedule' | 'getTipSetByHeight' | 'loadTipSet' | 'latestBeaconEntry'
>;

export class ChainRandomness implements RandomnessSource {
  readonly #chain: RandomnessChain;
  readonly #tipSet: TipSet;

  /** Randomness of the chain behind `tipSet` (included). */
  constructor(chain: RandomnessChain, tipSet: TipSet) {
    this.#chain = chain;
    this.#tipSet = tipSet;
  }

  /** blake2b256 of the min ticket at `round` (Lotus `GetChainRandomness`). */
  ticketDigest(round: bigint): Uint8Array {
    const lookback = this.#chain.params.networkVersion < NEXT_TIPSET_AT_NULL_ROUNDS;
    return blake2b256(this.#tipSetAt(round, lookback).minTicketBlock.ticket!.vrfProof);
  }

  /** blake2b256 of the beacon entry `round` reads (Lotus `GetBeaconRandomness`). */
  beaconDigest(round: bigint): Uint8Array {
    return blake2b256(this.beaconEntry(round).data);
  }

  /** Lotus `FvmExtern.GetTipsetCid`: the key CID of the tipset at `epoch` (the one before it at a null round). */
  tipsetCid(epoch: bigint): CID {
    return this.#tipSetAt(epoch, true).key.cid();
  }

  /** Lotus `DrawChainRandomness`: what `StateGetRandomnessFromTickets` answers. */
  drawFromTickets(tag: DomainSeparationTag | bigint, round: bigint, entropy: Uint8Array): Uint8Array {
    return drawRandomnessFromDigest(this.ticketDigest(round), tag, round, entropy);
  }

  /** Lotus `DrawBeaconRandomness`: what `StateGetRandomnessFromBeacon` answers. */
  drawFromBeacon(tag: DomainSeparationTag | bigint, round: bigint, entropy: Uint8Array): Uint8Array {
    return drawRandomnessFromDigest(this.beaconDigest(round), tag, round, entropy);
  }

  #tipSetAt(round: bigint, lookback: boolean): TipSet {
    if (round > this.#tipSet.height) {
      throw new ChainError(
        ChainErrorCode.InvalidHeight,
        `cannot draw randomness from the future: round ${round} is above the tipset's height ${this.#tipSet.height}`,
      );
    }
    return this.#chain.getTipSetByHeight(round < 0n ? 0n : round, this.#tipSet, lookback);
  }

  /**
   * The beacon entry an epoch reads on this chain (Lotus `extractBeaconEntryForEpoch`): what beacon
   * randomness hashes and what `StateGetBeaconEntry` answers.
   */
  beaconEntry(round: bigint): BeaconEntry {
    const version = this.#chain.params.networkVersion;
    if (version < BEACON_ROUND_BY_EPOCH || round < 0n) {
      return this.#chain.latestBeaconEntry(this.#tipSetAt(round, version < NEXT_TIPSET_AT_NULL_ROUNDS));
    }
    let tipSet = this.#tipSetAt(round, false);
    const schedule = this.#chain.beaconSchedule;
    if (schedule === undefined) {
      throw new ChainError(
        ChainErrorCode.NotFound,
        `beacon randomness at epoch ${round} needs the chain's beacon schedule, and this chain store has none`,
      );
    }
    const beaconRound = schedule(round);
    for (let i = 0; i < BEACON_SEARCH_DEPTH; i++) {
      // Lotus reads `Blocks()[0]`, the min-ticket block.
      const entry = tipSet.minTicketBlock.beaconEntries.find((e) => e.round === beaconRound);
      if (entry !== undefined) return entry;
      if (tipSet.height === 0n) break;
      tipSet = this.#chain.loadTipSet(tipSet.parents);
    }
    throw new ChainError(ChainErrorCode.NotFound, `didn't find beacon for round ${beaconRound} (epoch ${round})`);
  }
}
