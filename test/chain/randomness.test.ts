/**
 * Chain randomness (Lotus `chain/rand/rand.go`) on a real chain store: tickets and beacon entries
 * of hand-made tipsets, null rounds, negative rounds, entropy. The expected values are computed here
 * from the formula `blake2b256(i64_BE(DST) ‖ blake2b256(base) ‖ i64_BE(round) ‖ entropy)`, by hand.
 */
import { ChainError, ChainRandomness } from '../../src/chain/index.js';
import { blake2b256, DomainSeparationTag } from '../../src/crypto/index.js';
import { Address, type BeaconEntry, encodeAddress, type TipSet } from '../../src/types/index.js';
import { TestChain } from '../helpers/test-chain.js';

/** Lotus's DrawRandomness, written out independently of the code under test. */
function expectedDraw(base: Uint8Array, dst: number, round: bigint, entropy: Uint8Array): Uint8Array {
  const input = Buffer.alloc(8 + 32 + 8 + entropy.length);
  input.writeBigInt64BE(BigInt(dst), 0);
  input.set(blake2b256(base), 8);
  input.writeBigInt64BE(round, 40);
  input.set(entropy, 48);
  return blake2b256(input);
}

function entry(round: bigint): BeaconEntry {
  return { round, data: blake2b256(new TextEncoder().encode(`beacon ${round}`)) };
}

/** A beacon slower than the chain: epochs 5 and 6 read the same round, so block 6 carries no entry. */
const BEACON_ROUNDS: Record<string, bigint> = { 1: 101n, 2: 102n, 3: 103n, 4: 104n, 5: 105n, 6: 105n, 7: 106n };

const MINER_ENTROPY = encodeAddress(Address.newId(1000n));
const SEAL = DomainSeparationTag.SealRandomness;
const SEED = DomainSeparationTag.InteractiveSealChallengeSeed;

describe('chain randomness', () => {
  let t: TestChain;
  let genesis: TipSet;
  const at: Record<number, TipSet> = {};

  beforeAll(async () => {
    t = TestChain.create({
      beaconSchedule: (epoch) => {
        const round = BEACON_ROUNDS[epoch.toString()];
        if (round === undefined) throw new Error(`no beacon round for epoch ${epoch}`);
        return round;
      },
    });
    genesis = t.chain.genesis;
    at[1] = await t.mine([
      { ticket: 'one-a', beaconEntries: [entry(101n)] },
      { ticket: 'one-b', beaconEntries: [entry(101n)] },
    ]);
    at[2] = await t.mine([{ ticket: 'two', beaconEntries: [entry(102n)] }]);
    // Epochs 3 and 4 are null rounds: block 5 carries their entries.
    at[5] = await t.mine([{ ticket: 'five', beaconEntries: [entry(103n), entry(104n), entry(105n)] }], { height: 5n });
    at[6] = await t.mine([{ ticket: 'six' }]);
    at[7] = await t.mine([{ ticket: 'seven', beaconEntries: [entry(106n)] }]);
  });

  afterAll(() => t.close());

  const head = () => new ChainRandomness(t.chain, at[7] as TipSet);
  const ticketOf = (tipSet: TipSet) => tipSet.minTicketBlock.ticket!.vrfProof;

  it('draws from the min ticket of the tipset at the round', () => {
    const one = at[1] as TipSet;
    const tickets = one.blocks.map((b) => b.ticket!.vrfProof);
    const min = tickets.reduce((a, b) => (Buffer.compare(blake2b256(a), blake2b256(b)) <= 0 ? a : b));
    expect(head().drawFromTickets(SEAL, 1n, MINER_ENTROPY)).toEqual(expectedDraw(min, SEAL, 1n, MINER_ENTROPY));
    expect(head().ticketDigest(2n)).toEqual(blake2b256(ticketOf(at[2] as TipSet)));
    expect(head().ticketDigest(7n)).toEqual(blake2b256(ticketOf(at[7] as TipSet)));
  });

  it('at a null round, reads the first tipset after it but hashes the round asked for', () => {
    const five = ticketOf(at[5] as TipSet);
    expect(head().drawFromTickets(SEAL, 3n, MINER_ENTROPY)).toEqual(expectedDraw(five, SEAL, 3n, MINER_ENTROPY));
    expect(head().drawFromTickets(SEAL, 4n, MINER_ENTROPY)).toEqual(expectedDraw(five, SEAL, 4n, MINER_ENTROPY));
    expect(head().drawFromTickets(SEAL, 3n, MINER_ENTROPY)).not.toEqual(
      head().drawFromTickets(SEAL, 5n, MINER_ENTROPY),
    );
  });

  it('a negative round reads genesis and hashes the negative round', () => {
    const base = ticketOf(genesis);
    expect(head().drawFromTickets(SEAL, -1n, MINER_ENTROPY)).toEqual(expectedDraw(base, SEAL, -1n, MINER_ENTROPY));
    expect(head().drawFromTickets(SEAL, -900n, MINER_ENTROPY)).toEqual(expectedDraw(base, SEAL, -900n, MINER_ENTROPY));
  });

  it('entropy and the tag are part of the draw; no entropy is the empty string', () => {
    const two = ticketOf(at[2] as TipSet);
    const other = encodeAddress(Address.newId(1001n));
    expect(head().drawFromTickets(SEAL, 2n, other)).toEqual(expectedDraw(two, SEAL, 2n, other));
    expect(head().drawFromTickets(SEAL, 2n, other)).not.toEqual(head().drawFromTickets(SEAL, 2n, MINER_ENTROPY));
    const chainCommit = DomainSeparationTag.PoStChainCommit;
    expect(head().drawFromTickets(chainCommit, 2n, new Uint8Array())).toEqual(
      expectedDraw(two, chainCommit, 2n, new Uint8Array()),
    );
  });

  it('reads the chain behind the tipset it was made for, and refuses rounds after it', () => {
    const fromTwo = new ChainRandomness(t.chain, at[2] as TipSet);
    expect(fromTwo.ticketDigest(1n)).toEqual(head().ticketDigest(1n));
    expect(() => fromTwo.ticketDigest(3n)).toThrow(ChainError);
    expect(() => fromTwo.ticketDigest(3n)).toThrow('cannot draw randomness from the future');
    expect(() => head().beaconDigest(8n)).toThrow('cannot draw randomness from the future');
  });

  it('draws from the beacon entry of the round the epoch reads', () => {
    const expected = (round: bigint, epoch: bigint) => expectedDraw(entry(round).data, SEED, epoch, MINER_ENTROPY);
    expect(head().drawFromBeacon(SEED, 2n, MINER_ENTROPY)).toEqual(expected(102n, 2n));
    expect(head().drawFromBeacon(SEED, 7n, MINER_ENTROPY)).toEqual(expected(106n, 7n));
    // Null rounds: their entries are in the next block.
    expect(head().drawFromBeacon(SEED, 3n, MINER_ENTROPY)).toEqual(expected(103n, 3n));
    expect(head().drawFromBeacon(SEED, 4n, MINER_ENTROPY)).toEqual(expected(104n, 4n));
    // Block 6 has no entry: its round, 105, is found in its parent.
    expect(head().drawFromBeacon(SEED, 6n, MINER_ENTROPY)).toEqual(expected(105n, 6n));
  });

  it('a negative beacon round reads the latest entry at genesis (round 0, zeros)', () => {
    const [genesisEntry] = genesis.minTicketBlock.beaconEntries;
    expect(genesisEntry).toEqual({ round: 0n, data: new Uint8Array(32) });
    expect(head().drawFromBeacon(SEED, -1n, MINER_ENTROPY)).toEqual(
      expectedDraw(new Uint8Array(32), SEED, -1n, MINER_ENTROPY),
    );
  });

  it('says which round it could not find', () => {
    // A schedule naming a round no block within reach holds.
    const wrong = TestChain.create({ beaconSchedule: () => 999n });
    try {
      expect(() => new ChainRandomness(wrong.chain, wrong.chain.genesis).beaconDigest(0n)).toThrow(
        "didn't find beacon for round 999 (epoch 0)",
      );
    } finally {
      wrong.close();
    }
  });

  it('without a beacon schedule, beacon randomness at a round ≥ 0 fails and says why', () => {
    const plain = TestChain.create();
    try {
      expect(() => new ChainRandomness(plain.chain, plain.chain.genesis).beaconDigest(0n)).toThrow(
        /needs the chain's beacon schedule/,
      );
    } finally {
      plain.close();
    }
  });
});
