import { LocalBeacon } from '../../src/beacon/index.js';
import {
  BlockCheckError,
  BlockErrorCode,
  beaconEntriesForBlock,
  validateBeaconValues,
} from '../../src/consensus/index.js';
import type { BeaconEntry, BlockHeader } from '../../src/types/index.js';

const GENESIS = 1_700_000_000n;
const beacon = LocalBeacon.fromSeed(new TextEncoder().encode('beacon-values'), GENESIS, 4n);
const clock = { genesisTime: GENESIS, blockDelaySecs: 4n, networkVersion: 28 };
const previous: BeaconEntry = { round: 0n, data: new Uint8Array(32) };

function header(height: bigint, beaconEntries: readonly BeaconEntry[]): BlockHeader {
  return { height, beaconEntries } as BlockHeader;
}

async function reason(height: bigint, entries: readonly BeaconEntry[], parentEpoch = 0n, prev = previous) {
  const error = await validateBeaconValues(beacon.network, clock, header(height, entries), parentEpoch, prev).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BlockCheckError);
  expect((error as BlockCheckError).code).toBe(BlockErrorCode.BadBeaconEntries);
  return (error as BlockCheckError).message;
}

describe('beacon entries in blocks (unchained beacon)', () => {
  test('a block carries one entry per epoch since its parent, the last for its own epoch', async () => {
    const entries = await beaconEntriesForBlock(beacon, clock, 3n, 0n, previous);
    expect(entries.map((e) => e.round)).toEqual([1n, 2n, 3n]);
    await expect(
      validateBeaconValues(beacon.network, clock, header(3n, entries), 0n, previous),
    ).resolves.toBeUndefined();
  });

  test('no entries when the epoch brings no new round', async () => {
    const last = beacon.entry(3n);
    expect(await beaconEntriesForBlock(beacon, clock, 3n, 2n, last)).toEqual([]);
    expect(await reason(3n, [last], 2n, last)).toMatch(/not to have any beacon entries/);
  });

  test('rejects missing, skipped, stale and forged entries, saying which', async () => {
    expect(await reason(2n, [])).toMatch(/expected to have beacon entries/);
    expect(await reason(2n, [beacon.entry(2n)])).toMatch(/unexpected beacon round 2, expected 1/);
    expect(await reason(2n, [beacon.entry(1n)])).toMatch(/final beacon entry in block to be at round 2, got 1/);
    const forged = { round: 2n, data: beacon.entry(3n).data };
    expect(await reason(2n, [beacon.entry(1n), forged])).toMatch(/beacon entry 1 \(round 2\) was invalid/);
  });
});
