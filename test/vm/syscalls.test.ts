/**
 * The randomness and proof syscalls as an actor method sees them: a runtime over a real call
 * manager and state, chain randomness from a real chain store, real proofs (a pre-sealed miner's
 * window PoSt, a committed-capacity sector sealed once with this project's devnet parameters and
 * kept in fixtures/). Each call must answer what the chain or the proof says and charge the FVM's gas.
 */
import { readFileSync } from 'node:fs';
import { ChainRandomness } from '../../src/chain/index.js';
import { DomainSeparationTag } from '../../src/crypto/index.js';
import { ensureParameters, generateWindowPost, sealedCid, unsealedCid, zeroCommDCid } from '../../src/proofs/index.js';
import { StateTree } from '../../src/state/index.js';
import { Address, type BeaconEntry, encodeAddress } from '../../src/types/index.js';
import { fromHex } from '../../src/utils/bytes.js';
import { CallManager } from '../../src/vm/call-manager.js';
import { GasTracker } from '../../src/vm/gas/gas-tracker.js';
import type { GasCharge } from '../../src/vm/gas/price-list.js';
import { ActorError, ExitCode, PRICES, type SealVerifyInfo, VmError } from '../../src/vm/index.js';
import { InvocationRuntime } from '../../src/vm/invocation-runtime.js';
import type { RandomnessSource } from '../../src/vm/vm-context.js';
import { PARAMS } from '../helpers/genesis.js';
import { TestChain } from '../helpers/test-chain.js';
import { filled, flipByte, PARAMETERS_TIMEOUT_MS, type PresealedMiner, presealedMiner } from '../proofs/fixtures.js';

const MILLI = 1000;
const MINER_ID = 1000n;
const ENTROPY = encodeAddress(Address.newId(MINER_ID));
const EPOCH = 3n;

function entry(round: bigint): BeaconEntry {
  return { round, data: new Uint8Array(32).fill(Number(round % 251n)) };
}

/** A miner method's runtime at EPOCH, with every gas charge recorded. */
function minerRuntime(t: TestChain, randomness: RandomnessSource | undefined) {
  const head = t.chain.head();
  const tree = StateTree.load(t.chain.blockstore, head.parentStateRoot);
  const context = {
    networkParams: PARAMS,
    epoch: EPOCH,
    timestamp: head.timestamp,
    baseFee: 0n,
    circulatingSupply: 0n,
    tracing: false,
    randomness,
  };
  const gas = new GasTracker(10_000_000_000n);
  const charges: GasCharge[] = [];
  gas.onCharge = (charge) => charges.push(charge);
  const calls = new CallManager(context, tree, gas, { id: 100n, address: Address.newId(100n), nonce: 0n }, MINER_ID);
  const rt = new InvocationRuntime(calls, {
    from: 100n,
    to: MINER_ID,
    method: 2n,
    value: 0n,
    type: 'storageminer',
  });
  return { rt, charges };
}

const names = (charges: readonly GasCharge[]) => charges.map((c) => c.name);

describe('randomness syscalls', () => {
  let t: TestChain;
  let source: ChainRandomness;

  beforeAll(async () => {
    t = TestChain.create({ beaconSchedule: (epoch) => 100n + epoch });
    await t.mine([{ beaconEntries: [entry(101n)] }]);
    await t.mine([{ beaconEntries: [entry(102n)] }]);
    source = new ChainRandomness(t.chain, await t.mine([{ beaconEntries: [entry(103n)] }]));
  });

  afterAll(() => t.close());

  it('get_randomness_from_tickets: the chain draw, charged by lookback plus the draw hash', () => {
    const { rt, charges } = minerRuntime(t, source);
    const drawn = rt.getRandomnessFromTickets(DomainSeparationTag.SealRandomness, 1n, ENTROPY);
    expect(drawn).toEqual(source.drawFromTickets(DomainSeparationTag.SealRandomness, 1n, ENTROPY));
    expect(charges).toEqual([
      { name: 'OnGetRandomness', compute: 0, storage: (PRICES.lookbackFlat + 2 * PRICES.lookbackPerEpoch) * MILLI },
      { name: 'OnHashing', compute: (48 + ENTROPY.length) * PRICES.blake2b256PerByte * MILLI, storage: 0 },
    ]);
  });

  it('get_randomness_from_beacon: the beacon draw, a negative round reading genesis', () => {
    const { rt, charges } = minerRuntime(t, source);
    const tag = DomainSeparationTag.InteractiveSealChallengeSeed;
    expect(rt.getRandomnessFromBeacon(tag, 2n, ENTROPY)).toEqual(source.drawFromBeacon(tag, 2n, ENTROPY));
    expect(rt.getRandomnessFromBeacon(tag, 3n, ENTROPY)).toEqual(source.drawFromBeacon(tag, 3n, ENTROPY));
    expect(rt.getRandomnessFromBeacon(tag, -10n, ENTROPY)).toEqual(source.drawFromBeacon(tag, -10n, ENTROPY));
    expect(names(charges)).toEqual([
      'OnGetRandomness',
      'OnHashing',
      'OnGetRandomness',
      'OnHashing',
      'OnGetRandomness',
      'OnHashing',
    ]);
    // A lookback of 13 epochs for round -10 at epoch 3.
    expect(charges[4]?.storage).toBe((PRICES.lookbackFlat + 13 * PRICES.lookbackPerEpoch) * MILLI);
  });

  it('a round after the current epoch is an illegal argument for the actor, as in the FVM', () => {
    const { rt, charges } = minerRuntime(t, source);
    expect(() => rt.getRandomnessFromTickets(DomainSeparationTag.SealRandomness, EPOCH + 1n, ENTROPY)).toThrow(
      expect.objectContaining({ exitCode: ExitCode.UsrIllegalArgument }),
    );
    expect(charges).toEqual([]);
  });

  it('a round the chain cannot answer is an illegal argument too', () => {
    const plain = TestChain.create();
    try {
      const { rt } = minerRuntime(plain, new ChainRandomness(plain.chain, plain.chain.head()));
      let error: unknown;
      try {
        rt.getRandomnessFromBeacon(DomainSeparationTag.WindowedPoStChallengeSeed, 0n, ENTROPY);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ActorError);
      expect(error).toMatchObject({ exitCode: ExitCode.UsrIllegalArgument });
      expect((error as Error).message).toMatch(/invalid lookback epoch: .*beacon schedule/);
    } finally {
      plain.close();
    }
  });

  it('without a chain (genesis) asking for randomness fails the VM, not the actor', () => {
    const { rt } = minerRuntime(t, undefined);
    expect(() => rt.getRandomnessFromTickets(DomainSeparationTag.SealRandomness, 1n, ENTROPY)).toThrow(VmError);
    expect(() => rt.getRandomnessFromTickets(DomainSeparationTag.SealRandomness, 1n, ENTROPY)).toThrow(
      /runs without a chain/,
    );
  });
});

describe('proof syscalls', () => {
  let t: TestChain;
  let miner: PresealedMiner;
  let postProof: Uint8Array;
  let seal: SealVerifyInfo;
  const randomness = filled(0xee);

  beforeAll(async () => {
    await ensureParameters({ porep: true });
    t = TestChain.create();
    miner = await presealedMiner(MINER_ID, 2);
    postProof = await generateWindowPost(miner.dir, { minerId: MINER_ID, randomness, sectors: miner.sectors });
    const sector = JSON.parse(readFileSync(new URL('fixtures/cc-sector-seal.json', import.meta.url), 'utf8'));
    seal = {
      sealProof: 5,
      minerId: BigInt(sector.minerId),
      sectorNumber: BigInt(sector.sectorNumber),
      ticket: fromHex(sector.ticket),
      seed: fromHex(sector.seed),
      proof: fromHex(sector.proof),
      sealedCid: sealedCid(fromHex(sector.commR)),
      unsealedCid: zeroCommDCid(5),
    };
  }, PARAMETERS_TIMEOUT_MS);

  afterAll(async () => {
    t?.close();
    await miner?.remove();
  });

  const challenged = () =>
    miner.sectors.map((s) => ({ sealProof: 5, sectorNumber: s.sectorNumber, sealedCid: sealedCid(s.commR) }));

  it('verify_post: true for the real proof, with stand-ins collapsing, charged per listed sector', () => {
    const { rt, charges } = minerRuntime(t, undefined);
    const [first, second] = challenged();
    const info = {
      randomness,
      proofs: [{ postProof: 10n, proofBytes: postProof }],
      challengedSectors: [first!, second!, second!],
      prover: MINER_ID,
    };
    expect(rt.verifyPoSt(info)).toBe(true);
    expect(charges).toEqual([
      { name: 'OnVerifyPost', compute: (PRICES.verifyPostFlat + 3 * PRICES.verifyPostPerSector) * MILLI, storage: 0 },
    ]);
  });

  it('verify_post: false for a flipped byte, a seal type of another size, or two proofs', () => {
    const { rt } = minerRuntime(t, undefined);
    const info = {
      randomness,
      proofs: [{ postProof: 10, proofBytes: postProof }],
      challengedSectors: challenged(),
      prover: MINER_ID,
    };
    expect(rt.verifyPoSt({ ...info, proofs: [{ postProof: 10, proofBytes: flipByte(postProof, 3) }] })).toBe(false);
    expect(
      rt.verifyPoSt({ ...info, challengedSectors: info.challengedSectors.map((s) => ({ ...s, sealProof: 8 })) }),
    ).toBe(false);
    expect(rt.verifyPoSt({ ...info, proofs: [...info.proofs, ...info.proofs] })).toBe(false);
    expect(rt.verifyPoSt({ ...info, challengedSectors: [] })).toBe(false);
  });

  it('batch_verify_seals: one answer per seal, OnVerifySeal for each', () => {
    const { rt, charges } = minerRuntime(t, undefined);
    const answers = rt.batchVerifySeals([
      seal,
      { ...seal, proof: flipByte(seal.proof, 9) },
      // The CID kinds swapped: the FVM refuses the input, the actor sees a failed proof.
      { ...seal, sealedCid: seal.unsealedCid, unsealedCid: seal.sealedCid },
      { ...seal, seed: filled(1) },
    ]);
    expect(answers).toEqual([true, false, false, false]);
    expect(charges).toEqual(
      Array.from({ length: 4 }, () => ({ name: 'OnVerifySeal', compute: PRICES.verifySealBase * MILLI, storage: 0 })),
    );
  });

  it('verify_seal: the zero CommD of a CC sector verifies; another CommD does not', () => {
    const { rt } = minerRuntime(t, undefined);
    expect(rt.verifySeal(seal)).toBe(true);
    expect(rt.verifySeal({ ...seal, unsealedCid: unsealedCid(filled(0)) })).toBe(false);
  });

  it('aggregate proofs are refused with USR_ILLEGAL_ARGUMENT', () => {
    const { rt } = minerRuntime(t, undefined);
    expect(() =>
      rt.verifyAggregateSeals({ miner: MINER_ID, sealProof: 5, aggregateProof: 1n, proof: filled(1, 100), infos: [] }),
    ).toThrow(
      expect.objectContaining({
        exitCode: ExitCode.UsrIllegalArgument,
        message: expect.stringContaining('aggregate proofs are not supported by this node'),
      }),
    );
  });
});
