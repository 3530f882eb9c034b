/**
 * Beacon entries in blocks (filecoin-project/lotus `chain/beacon/beacon.go` BeaconEntriesForBlock and
 * ValidateBlockValues), through the network's beacon schedule. Unchained beacons (drand quicknet, the
 * devnet's local beacon): a block carries one entry per epoch since its parent, entry i for epoch
 * parent + i + 1, the last one for its own epoch — none when its epoch brings no new round. Chained
 * beacons (drand mainnet, incentinet): the entries link, each signed over the previous one's
 * signature, from the parent's latest entry to the round of the block's epoch; at the epoch where a
 * chained network takes over, a block carries exactly two entries, the new network's last two rounds.
 */
import {
  type AnyBeacon,
  type BeaconSource,
  beaconForEpoch,
  type ChainClock,
  type DrandNetwork,
  maxBeaconRoundForEpoch,
  verifySourceEntry,
} from '../beacon/index.js';
import type { BeaconEntry, BlockHeader } from '../types/index.js';
import { nextTurn } from '../utils/abort.js';
import { BlockCheckError, BlockErrorCode } from './errors.js';

/** Beacon work runs on this thread (≈1 ms an entry); hand the event loop back this often. */
const ENTRIES_PER_SLICE = 16;

/** The source serving `epoch`, of a schedule, a single source, or a bare network (verification only). */
function sourceFor(beacon: AnyBeacon | DrandNetwork, epoch: bigint): BeaconSource | DrandNetwork {
  return 'publicKey' in beacon ? beacon : beaconForEpoch(beacon, epoch);
}

const networkOf = (source: BeaconSource | DrandNetwork): DrandNetwork =>
  'publicKey' in source ? source : source.network;

/**
 * The entries a block at `epoch` on a parent at `parentEpoch` carries (Lotus `BeaconEntriesForBlock`).
 * One entry per epoch in between: `signal` (an RPC call's) stops the work between slices.
 */
export async function beaconEntriesForBlock(
  beacon: AnyBeacon,
  clock: ChainClock,
  epoch: bigint,
  parentEpoch: bigint,
  previous: BeaconEntry,
  signal?: AbortSignal,
): Promise<BeaconEntry[]> {
  const current = beaconForEpoch(beacon, epoch);
  const maxRound = maxBeaconRoundForEpoch(current.network, clock, epoch);
  if (current !== beaconForEpoch(beacon, parentEpoch) && current.network.scheme === 'chained') {
    return [await current.entry(maxRound - 1n, signal), await current.entry(maxRound, signal)];
  }
  if (maxRound === previous.round) return [];
  const entries: BeaconEntry[] = [];
  for (let e = parentEpoch + 1n; e <= epoch; e++) {
    entries.push(await current.entry(maxBeaconRoundForEpoch(current.network, clock, e), signal));
    if (entries.length % ENTRIES_PER_SLICE === 0) await nextTurn(signal);
  }
  return entries;
}

/**
 * Lotus `ValidateBlockValues`; throws `ERR_BAD_BEACON_ENTRIES` saying what is wrong, naming the
 * round of an entry that does not verify. `beacon` is the network's schedule (or one source, or a
 * bare network to verify against).
 */
export async function validateBeaconValues(
  beacon: AnyBeacon | DrandNetwork,
  clock: ChainClock,
  header: BlockHeader,
  parentEpoch: bigint,
  previous: BeaconEntry,
): Promise<void> {
  const fail = (reason: string): never => {
    throw new BlockCheckError(BlockErrorCode.BadBeaconEntries, reason);
  };
  const entries = header.beaconEntries;
  const source = sourceFor(beacon, header.height);
  const network = networkOf(source);
  const chained = network.scheme === 'chained';
  if (chained && source !== sourceFor(beacon, parentEpoch)) {
    const [first, second] = entries;
    if (entries.length !== 2 || first === undefined || second === undefined) {
      return fail(`expected two beacon entries at the ${network.name} beacon fork, got ${entries.length}`);
    }
    if (!verifySourceEntry(source, second, first)) {
      fail(`beacon entry 1 (round ${second.round}) at the ${network.name} beacon fork was invalid`);
    }
    return;
  }
  const maxRound = maxBeaconRoundForEpoch(network, clock, header.height);
  if (maxRound === previous.round) {
    if (entries.length !== 0) fail(`expected not to have any beacon entries in this block, got ${entries.length}`);
    return;
  }
  const last = entries[entries.length - 1];
  if (last === undefined) return fail("expected to have beacon entries in this block, but didn't find any");
  // Lotus skips a chained network's first block: genesis carries no entry to link to.
  if (chained && previous.round === 0n) return;
  if (last.round !== maxRound)
    fail(`expected final beacon entry in block to be at round ${maxRound}, got ${last.round}`);
  if (!chained) {
    for (const [i, entry] of entries.entries()) {
      const epoch = parentEpoch + BigInt(i) + 1n;
      const expected = maxBeaconRoundForEpoch(network, clock, epoch);
      if (entry.round !== expected)
        fail(`unexpected beacon round ${entry.round}, expected ${expected} for epoch ${epoch}`);
    }
  }
  let before = previous;
  for (const [i, entry] of entries.entries()) {
    if (!verifySourceEntry(source, entry, chained ? before : undefined)) {
      fail(
        chained && entry.round !== before.round + 1n
          ? `beacon entry ${i} (round ${entry.round}) does not follow round ${before.round}: ${network.name} is chained`
          : `beacon entry ${i} (round ${entry.round}) was invalid: its signature does not verify against the ${network.name} public key`,
      );
    }
    before = entry;
    if ((i + 1) % ENTRIES_PER_SLICE === 0) await nextTurn(undefined);
  }
}
