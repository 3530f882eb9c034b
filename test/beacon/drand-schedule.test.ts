import {
  checkDrandSchedule,
  DRAND_CHAINS,
  DrandBeacons,
  type DrandSchedule,
  FILECOIN_MAINNET_DRAND_SCHEDULE,
  pointForEpoch,
} from '../../src/beacon/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { DrandTestRelay, drandVectors, recordedRounds, vectorChainInfo } from './drand-relay-server.js';

describe('drand schedule', () => {
  it("is Filecoin mainnet's (incentinet, then drand mainnet at Smoke, then quicknet at Phoenix)", () => {
    const expected = Object.entries(drandVectors.filecoin_mainnet_schedule).map(([epoch, name]) => ({
      startEpoch: BigInt(epoch),
      name,
      hash: drandVectors.networks[name]!.chain_info.hash,
    }));
    expect(
      FILECOIN_MAINNET_DRAND_SCHEDULE.map((p) => ({
        startEpoch: p.startEpoch,
        name: p.name,
        hash: toHex(p.chainInfo.hash),
      })),
    ).toEqual(expected);
    for (const name of ['incentinet', 'mainnet', 'quicknet'] as const) {
      expect(DRAND_CHAINS[name]).toEqual(vectorChainInfo(name));
    }
  });

  it('picks the network serving an epoch across each boundary (Lotus BeaconForEpoch)', () => {
    const at = (epoch: bigint) => pointForEpoch(FILECOIN_MAINNET_DRAND_SCHEDULE, epoch).name;
    expect([0n, 50_999n, 51_000n, 3_855_479n, 3_855_480n, 6_000_000n].map(at)).toEqual([
      'incentinet',
      'incentinet',
      'mainnet',
      'mainnet',
      'quicknet',
      'quicknet',
    ]);
  });

  it('refuses a schedule that is empty, starts after 0 or goes back', () => {
    const point = FILECOIN_MAINNET_DRAND_SCHEDULE[2]!;
    expect(() => checkDrandSchedule([])).toThrow('a drand schedule needs at least one network');
    expect(() => checkDrandSchedule([{ ...point, startEpoch: 5n }])).toThrow(
      'a drand schedule starts at epoch 0, not 5',
    );
    expect(() =>
      checkDrandSchedule([
        { ...point, startEpoch: 0n },
        { ...point, startEpoch: 0n },
      ]),
    ).toThrow('drand schedule epochs must increase: quicknet starts at 0, after quicknet at 0');
  });

  it("serves each epoch from its network's relays, chained before the boundary and unchained after", async () => {
    const mainnetRelay = await DrandTestRelay.start('mainnet');
    const quicknetRelay = await DrandTestRelay.start('quicknet');
    const db = LedgerDatabase.open(':memory:');
    try {
      const schedule: DrandSchedule = [
        { startEpoch: 0n, name: 'mainnet', chainInfo: vectorChainInfo('mainnet'), relays: [{ url: mainnetRelay.url }] },
        {
          startEpoch: 101n,
          name: 'quicknet',
          chainInfo: vectorChainInfo('quicknet'),
          relays: [{ url: quicknetRelay.url }],
        },
      ];
      const beacons = new DrandBeacons(schedule, { store: db.drand });
      const before = beacons.beaconForEpoch(100n);
      const after = beacons.beaconForEpoch(101n);
      expect([before.network.scheme, after.network.scheme]).toEqual(['chained', 'unchained']);
      // Each epoch maps to a round of the network serving it (Lotus MaxBeaconRoundForEpoch): the
      // vectors' drand mainnet case before the boundary, their quicknet case after it.
      const clock = { genesisTime: 1_598_306_400n, blockDelaySecs: 30n, networkVersion: 22 };
      const rounds = beacons.roundSchedule(clock);
      expect(rounds(100n)).toBe(95_945n);
      expect(rounds(6_216_200n)).toBe(30_663_002n);
      expect(toHex((await before.entry(3n)).data)).toBe(recordedRounds('mainnet')[0]!.signature);
      expect(toHex((await after.entry(3n)).data)).toBe(recordedRounds('quicknet')[1]!.signature);
      expect(
        mainnetRelay.requests.some((p) => p.startsWith(`/${drandVectors.networks.mainnet!.chain_info.hash}/`)),
      ).toBe(true);
      expect(
        quicknetRelay.requests.some((p) => p.startsWith(`/${drandVectors.networks.quicknet!.chain_info.hash}/`)),
      ).toBe(true);
    } finally {
      db.close();
      await Promise.all([mainnetRelay.stop(), quicknetRelay.stop()]);
    }
  });
});
