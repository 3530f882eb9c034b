/**
 * Beacon entries in blocks (filecoin-project/lotus `chain/beacon/beacon.go`), for unchained beacons
 * (drand quicknet and the devnet's local beacon): a block carries one entry per epoch since its
 * parent, entry i for epoch parent + i + 1, the last one for its own epoch — none when its epoch
 * brings no new round.
 */
import {
  type BeaconSource,
  type ChainClock,
  type DrandNetwork,
  maxBeaconRoundForEpoch,
  verifyBeaconEntry,
} from '../beacon/index.js';
import type { BeaconEntry, BlockHeader } from '../types/index.js';
import { nextTurn } from '../utils/abort.js';
import { BlockCheckError, BlockErrorCode } from './errors.js';

/** Beacon work runs on this thread (≈1 ms an entry); hand the event loop back this often. */
const ENTRIES_PER_SLICE = 16;

/**
 * The entries a block at `epoch` on a parent at `parentEpoch` carries (Lotus `BeaconEntriesForBlock`).
 * One entry per epoch in between: `signal` (an RPC call's) stops the work between slices.
 */
export async function beaconEntriesForBlock(
  beacon: BeaconSource,
  clock: ChainClock,
  epoch: bigint,
  parentEpoch: bigint,
  previous: BeaconEntry,
  signal?: AbortSignal,
): Promise<BeaconEntry[]> {
  if (maxBeaconRoundForEpoch(beacon.network, clock, epoch) === previous.round) return [];
  const entries: BeaconEntry[] = [];
  for (let e = parentEpoch + 1n; e <= epoch; e++) {
    entries.push(await beacon.entry(maxBeaconRoundForEpoch(beacon.network, clock, e)));
    if (entries.length % ENTRIES_PER_SLICE === 0) await nextTurn(signal);
  }
  return entries;
}

/** Lotus `ValidateBlockValues` for an unchained beacon; throws `ERR_BAD_BEACON_ENTRIES` saying what is wrong. */
export async function validateBeaconValues(
  network: DrandNetwork,
  clock: ChainClock,
  header: BlockHeader,
  parentEpoch: bigint,
  previous: BeaconEntry,
): Promise<void> {
  const fail = (reason: string): never => {
    throw new BlockCheckError(BlockErrorCode.BadBeaconEntries, reason);
  };
  const entries = header.beaconEntries;
  const maxRound = maxBeaconRoundForEpoch(network, clock, header.height);
  if (maxRound === previous.round) {
    if (entries.length !== 0) fail(`expected not to have any beacon entries in this block, got ${entries.length}`);
    return;
  }
  const last = entries[entries.length - 1];
  if (last === undefined) return fail("expected to have beacon entries in this block, but didn't find any");
  if (last.round !== maxRound)
    fail(`expected final beacon entry in block to be at round ${maxRound}, got ${last.round}`);
  for (const [i, entry] of entries.entries()) {
    const epoch = parentEpoch + BigInt(i) + 1n;
    const expected = maxBeaconRoundForEpoch(network, clock, epoch);
    if (entry.round !== expected)
      fail(`unexpected beacon round ${entry.round}, expected ${expected} for epoch ${epoch}`);
  }
  for (const [i, entry] of entries.entries()) {
    if (!verifyBeaconEntry(network, entry)) fail(`beacon entry ${i} (round ${entry.round}) was invalid`);
    if ((i + 1) % ENTRIES_PER_SLICE === 0) await nextTurn(undefined);
  }
}
