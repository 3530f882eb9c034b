import { DomainSeparationTag, drawRandomness } from '../../src/crypto/index.js';
import { encodeCbor } from '../../src/types/cbor.js';
import { Address } from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { readVectorJson } from './vectors-dir.js';

interface HeaderVector {
  height: number;
  decoded: { Miner: string };
  derived?: { vrf_beacon: { round: number }; ticket_vrf_input_hex: string; election_vrf_input_hex: string };
}

const headers = readVectorJson<{ headers: HeaderVector[] }>('blocks', 'export40_headers.json').headers;
const beacon = new Map(
  readVectorJson<{ entries: { network: string; round: number; signature_hex: string }[] }>(
    'drand',
    'drand_vectors.json',
  )
    .entries.filter((e) => e.network === 'incentinet')
    .map((e) => [e.round, fromHex(e.signature_hex)]),
);

describe('DrawRandomness on real mainnet blocks (pre-Smoke ticket rule)', () => {
  const withInputs = headers.filter((h) => h.derived !== undefined);

  it.each(withInputs.map((h, i) => [i, h] as const))('block %i: ticket and election VRF inputs', (_, h) => {
    const derived = h.derived!;
    const base = beacon.get(derived.vrf_beacon.round);
    expect(base).toBeDefined();
    const entropy = encodeCbor(Address.fromString(h.decoded.Miner).bytes);
    const height = BigInt(h.height);
    expect(toHex(drawRandomness(base!, DomainSeparationTag.TicketProduction, height - 1n, entropy))).toBe(
      derived.ticket_vrf_input_hex,
    );
    expect(toHex(drawRandomness(base!, DomainSeparationTag.ElectionProofProduction, height, entropy))).toBe(
      derived.election_vrf_input_hex,
    );
  });

  it('checks all 48 mined blocks', () => {
    expect(withInputs).toHaveLength(48);
  });
});
