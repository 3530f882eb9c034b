import { LocalBeacon, maxBeaconRoundForEpoch, verifyBeaconEntry } from '../../src/beacon/index.js';

describe('LocalBeacon', () => {
  const seed = new TextEncoder().encode('devnet seed');
  const beacon = LocalBeacon.fromSeed(seed, 1_700_000_000n, 4n);

  it('signs rounds that verify against its public key as drand quicknet entries', () => {
    const entry = beacon.entry(7n);
    expect(entry.data).toHaveLength(48);
    expect(beacon.network.publicKey).toHaveLength(96);
    expect(verifyBeaconEntry(beacon.network, entry)).toBe(true);
    expect(verifyBeaconEntry(beacon.network, { ...entry, round: 8n })).toBe(false);
  });

  it('is deterministic per seed', () => {
    const again = LocalBeacon.fromSeed(seed, 1_700_000_000n, 4n);
    expect(again.entry(3n)).toEqual(beacon.entry(3n));
    const other = LocalBeacon.fromSeed(new TextEncoder().encode('other'), 1_700_000_000n, 4n);
    expect(verifyBeaconEntry(beacon.network, other.entry(3n))).toBe(false);
  });

  it('makes round r due at epoch r', () => {
    const clock = { genesisTime: 1_700_000_000n, blockDelaySecs: 4n, networkVersion: 28 };
    expect(maxBeaconRoundForEpoch(beacon.network, clock, 1n)).toBe(1n);
    expect(maxBeaconRoundForEpoch(beacon.network, clock, 10n)).toBe(10n);
  });
});
