import { type DrandNetwork, maxBeaconRoundForEpoch, verifyBeaconEntry } from '../../src/beacon/index.js';
import type { BeaconEntry } from '../../src/types/index.js';
import { fromHex } from '../../src/utils/bytes.js';
import { readVectorJson } from './vectors-dir.js';

interface ChainInfo {
  public_key: string;
  period: number;
  genesis_time: number;
}
interface EntryVector {
  network: string;
  round: number;
  signature_hex: string;
  previous_signature_hex?: string | null;
  verifies: boolean | null;
}
interface DrandVectors {
  networks: Record<string, { chain_info: ChainInfo }>;
  entries: EntryVector[];
  negatives: (EntryVector & { expect: boolean })[];
  rounds_for_epoch: {
    drand_mainnet_cases: { epoch: number; nv15: number; nv16: number }[];
    quicknet_cases_nv22: { epoch: number; round: number }[];
  };
}

const vectors = readVectorJson<DrandVectors>('drand', 'drand_vectors.json');

function network(name: string): DrandNetwork {
  const info = vectors.networks[name]!.chain_info;
  return {
    name,
    publicKey: fromHex(info.public_key),
    periodSecs: BigInt(info.period),
    genesisTime: BigInt(info.genesis_time),
    scheme: name === 'quicknet' ? 'unchained' : 'chained',
  };
}

const entry = (v: EntryVector): BeaconEntry => ({ round: BigInt(v.round), data: fromHex(v.signature_hex) });
const previousOf = (v: EntryVector): BeaconEntry | undefined =>
  v.previous_signature_hex ? { round: BigInt(v.round - 1), data: fromHex(v.previous_signature_hex) } : undefined;

describe('drand beacon entries (incentinet, mainnet, quicknet)', () => {
  const verifiable = vectors.entries.filter((v) => v.verifies !== null);

  it('covers every network', () => {
    expect(new Set(verifiable.map((v) => v.network))).toEqual(new Set(['incentinet', 'mainnet', 'quicknet']));
    expect(verifiable.length).toBeGreaterThanOrEqual(40);
  });

  it.each(verifiable.map((v) => [`${v.network} round ${v.round}`, v] as const))('%s verifies', (_, v) => {
    expect(verifyBeaconEntry(network(v.network), entry(v), previousOf(v))).toBe(true);
  });

  it.each(verifiable.map((v) => [`${v.network} round ${v.round}`, v] as const))(
    '%s with a flipped bit fails',
    (_, v) => {
      const bad = entry(v);
      const data = Uint8Array.from(bad.data);
      data[10]! ^= 0x01;
      expect(verifyBeaconEntry(network(v.network), { ...bad, data }, previousOf(v))).toBe(false);
      expect(verifyBeaconEntry(network(v.network), { ...bad, round: bad.round + 1n }, previousOf(v))).toBe(false);
    },
  );

  it.each(vectors.negatives.map((v) => [`${v.network} round ${v.round}`, v] as const))('negative %s fails', (_, v) => {
    expect(verifyBeaconEntry(network(v.network), entry(v), previousOf(v))).toBe(v.expect);
  });

  it('refuses a chained entry without its predecessor', () => {
    const v = verifiable.find((e) => e.network === 'mainnet')!;
    expect(verifyBeaconEntry(network('mainnet'), entry(v))).toBe(false);
  });
});

describe('beacon round for epoch (Filecoin mainnet clock)', () => {
  const clock = (networkVersion: number) => ({ genesisTime: 1598306400n, blockDelaySecs: 30n, networkVersion });

  it.each(vectors.rounds_for_epoch.drand_mainnet_cases)('drand mainnet epoch $epoch', ({ epoch, nv15, nv16 }) => {
    expect(maxBeaconRoundForEpoch(network('mainnet'), clock(15), BigInt(epoch))).toBe(BigInt(nv15));
    expect(maxBeaconRoundForEpoch(network('mainnet'), clock(16), BigInt(epoch))).toBe(BigInt(nv16));
  });

  it.each(vectors.rounds_for_epoch.quicknet_cases_nv22)('quicknet epoch $epoch', ({ epoch, round }) => {
    expect(maxBeaconRoundForEpoch(network('quicknet'), clock(22), BigInt(epoch))).toBe(BigInt(round));
  });

  it('maps mainnet epochs 1–3 to the incentinet rounds their real blocks carry', () => {
    for (const [epoch, round] of [
      [1n, 81086n],
      [2n, 81087n],
      [3n, 81088n],
    ] as const) {
      expect(maxBeaconRoundForEpoch(network('incentinet'), clock(0), epoch)).toBe(round);
    }
  });
});
