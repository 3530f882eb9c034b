/**
 * Drand in consensus, through a network's beacon schedule: a definition whose local beacon serves
 * epochs 0–9 and drand incentinet (chained, 30 s rounds) from epoch 10, its rounds fetched from local
 * relays serving the recorded rounds of vectors/drand. Blocks carry linked entries; a tampered or
 * unlinked entry is refused naming its round; a relay serving a tampered round is passed over.
 */
import { pino } from 'pino';
import type { DrandBeacon } from '../../src/beacon/index.js';
import { BlockCheckError, beaconEntriesForBlock, validateBeaconValues } from '../../src/consensus/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { networkBeacon } from '../../src/node/chain-services.js';
import { parseNetworkDefinition } from '../../src/node/network-definition.js';
import type { BeaconEntry, BlockHeader } from '../../src/types/index.js';
import { DrandTestRelay, drandVectors } from '../beacon/drand-relay-server.js';

const INCENTINET = drandVectors.networks.incentinet!.chain_info;
// Epoch 10 is incentinet round 81090: genesis + 9 epochs of 30 s lands in its period (Lotus MaxBeaconRoundForEpoch).
const GENESIS_TIME = INCENTINET.genesis_time + 81_089 * 30 - 9 * 30;
const clock = { genesisTime: BigInt(GENESIS_TIME), blockDelaySecs: 30n, networkVersion: 28 };
const header = (height: bigint, beaconEntries: readonly BeaconEntry[]) => ({ height, beaconEntries }) as BlockHeader;

function definition(relays: string[]) {
  return parseNetworkDefinition(
    {
      Name: 'beacon-schedule-test',
      Genesis: { Cid: 'bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2', Timestamp: GENESIS_TIME },
      Params: 'mainnet',
      Beacon: [
        { StartEpoch: 0, Type: 'local', Seed: '00'.repeat(32) },
        { StartEpoch: 10, Type: 'drand', Name: 'incentinet', ChainInfo: INCENTINET, Relays: relays },
      ],
    },
    'test',
    '/',
  );
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BlockCheckError);
  return (error as Error).message;
}

describe('beacon entries through the schedule, drand chained', () => {
  let good: DrandTestRelay;
  let tampering: DrandTestRelay;
  let db: LedgerDatabase;
  beforeAll(async () => {
    good = await DrandTestRelay.start('incentinet');
    tampering = await DrandTestRelay.start('incentinet', { tamper: new Set([81_093]) });
  });
  beforeEach(() => {
    db = LedgerDatabase.open(':memory:');
  });
  afterEach(() => db.close());
  afterAll(async () => {
    await good.stop();
    await tampering.stop();
  });

  test("the fork block carries the chained network's two rounds; later blocks link on, fetched and verified", async () => {
    const beacon = networkBeacon(definition([good.url]), db, pino({ level: 'silent' }));
    const local = beacon.forEpoch(9n);
    const previous = await local.entry(9n);
    const fork = await beaconEntriesForBlock(beacon, clock, 10n, 9n, previous);
    expect(fork.map((e) => e.round)).toEqual([81_089n, 81_090n]);
    await validateBeaconValues(beacon, clock, header(10n, fork), 9n, previous);

    // Two epochs later (a null round between): two linked entries, the last for epoch 12.
    const next = await beaconEntriesForBlock(beacon, clock, 12n, 10n, fork[1]!);
    expect(next.map((e) => e.round)).toEqual([81_091n, 81_092n]);
    await validateBeaconValues(beacon, clock, header(12n, next), 10n, fork[1]!);
    // Verified entries are kept in the node database.
    const incentinet = beacon.forEpoch(12n) as DrandBeacon;
    expect(db.drand.count(incentinet.client.chainInfo.hash)).toBe(4n);
  });

  test('a tampered entry is refused naming its round; so is one that does not follow the previous round', async () => {
    const beacon = networkBeacon(definition([good.url]), db, pino({ level: 'silent' }));
    const previous = {
      round: 81_090n,
      data: Buffer.from(drandVectors.entries.find((e) => e.round === 81_090)!.signature_hex, 'hex'),
    };
    const entries = await beaconEntriesForBlock(beacon, clock, 12n, 10n, previous);
    const tampered = entries.map((e) => ({ ...e, data: Uint8Array.from(e.data) }));
    tampered[1]!.data[5]! ^= 0x01;
    // A fresh database: the verdict comes from the signature, not from the cache of good entries.
    const fresh = LedgerDatabase.open(':memory:');
    try {
      const verifier = networkBeacon(definition([]), fresh, pino({ level: 'silent' }));
      expect(await refusal(validateBeaconValues(verifier, clock, header(12n, tampered), 10n, previous))).toBe(
        'beacon entry 1 (round 81092) was invalid: its signature does not verify against the incentinet public key',
      );
      expect(await refusal(validateBeaconValues(verifier, clock, header(12n, [entries[1]!]), 10n, previous))).toBe(
        'beacon entry 0 (round 81092) does not follow round 81090: incentinet is chained',
      );
      await validateBeaconValues(verifier, clock, header(12n, entries), 10n, previous);
    } finally {
      fresh.close();
    }
    // The cache answers too: a stored round with other bytes is refused.
    expect(await refusal(validateBeaconValues(beacon, clock, header(12n, tampered), 10n, previous))).toMatch(
      /^beacon entry 1 \(round 81092\) was invalid/,
    );
  });

  test('a relay serving a tampered round is refused with an error naming it, and the next relay serves the block', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const beacon = networkBeacon(definition([tampering.url, good.url]), db, logger);
    const previous = {
      round: 81_092n,
      data: Buffer.from(drandVectors.entries.find((e) => e.round === 81_092)!.signature_hex, 'hex'),
    };
    const entries = await beaconEntriesForBlock(beacon, clock, 14n, 12n, previous);
    expect(entries.map((e) => e.round)).toEqual([81_093n, 81_094n]);
    await validateBeaconValues(beacon, clock, header(14n, entries), 12n, previous);
    const warnings = lines.map((line) => JSON.parse(line) as { msg: string; err: { message: string } });
    expect(warnings.map((w) => `${w.msg}: ${w.err.message}`)).toEqual([
      `drand relay failed: drand relay ${tampering.url}: refused round 81093: its signature does not verify against the incentinet public key`,
    ]);
  });

  test('the fork block must carry exactly two entries', async () => {
    const beacon = networkBeacon(definition([good.url]), db, pino({ level: 'silent' }));
    const previous = await beacon.forEpoch(9n).entry(9n);
    const fork = await beaconEntriesForBlock(beacon, clock, 10n, 9n, previous);
    expect(await refusal(validateBeaconValues(beacon, clock, header(10n, [fork[1]!]), 9n, previous))).toBe(
      'expected two beacon entries at the incentinet beacon fork, got 1',
    );
  });
});
