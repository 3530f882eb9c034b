/**
 * The window PoSt scheduler's decisions against the state of a real devnet chain (genesis miner
 * t01000 with two really pre-sealed 2 KiB sectors in deadline 0, period start −110): which
 * deadlines it proves and when it submits, what a partition proves and skips when a replica is
 * missing, the stand-in sector list (proven for real and checked by the VM's `verify_post`), and
 * which faulty sectors it declares recovered for which deadline.
 */
import { rename } from 'node:fs/promises';
import type { CID } from 'multiformats/cid';
import { ChainRandomness } from '../../../src/chain/randomness.js';
import type { DomainSeparationTag } from '../../../src/crypto/index.js';
import { BitField } from '../../../src/ipld/index.js';
import {
  challengeRandomness,
  deadlinesToProve,
  headProvingView,
  type ProvingView,
  proofSectors,
  proveBatch,
  provingBatches,
  readableSectors,
  recoveryDeadline,
  recoveryDeclarations,
  sectorFiles,
  sectorsToProve,
  submissionDue,
} from '../../../src/miner/window-post/index.js';
import { MAINNET, type MinerPolicy } from '../../../src/params/index.js';
import type { RegisteredPoStProof } from '../../../src/proofs/index.js';
import { newDeadlineInfoFromOffsetAndEpoch } from '../../../src/vm/actors/miner/deadline-info.js';
import { Partition } from '../../../src/vm/actors/miner/partition.js';
import { verifyPoSt } from '../../../src/vm/proof-syscalls.js';
import { PARAMS } from '../../helpers/genesis.js';
import { MINER, type MiningChain, miningChain } from '../../helpers/mining-chain.js';

const POLICY = PARAMS.minerPolicy;
let mc: MiningChain;
let genesisView: ProvingView;

beforeAll(async () => {
  mc = await miningChain();
  genesisView = headProvingView(mc.chain, POLICY, MINER);
});
afterAll(async () => {
  await mc?.remove();
});

/** The genesis state seen from another height (the state does not change until a proof is due). */
function viewAt(height: bigint, policy: MinerPolicy = POLICY): ProvingView {
  return { ...genesisView, height, deadline: newDeadlineInfoFromOffsetAndEpoch(policy, -110n, height) };
}

const all = () => BitField.of([0n, 1n]);

test('the genesis view: the deadline open at the head, both sectors in partition 0 of deadline 0', () => {
  expect(genesisView.deadline.isOpen()).toBe(true);
  expect(genesisView.deadline.periodStart).toBe(-110n);
  expect(genesisView.deadline.index).toBe(27n);
  const partitions = genesisView.partitions(0n);
  expect(partitions.map((p) => [...p.sectors.values()])).toEqual([[0n, 1n]]);
  expect(partitions.map((p) => [...sectorsToProve(p).values()])).toEqual([[0n, 1n]]);
});

test('a deadline is proven once its challenge is 2 epochs deep, and submitted from open − 1 while a message can still land', () => {
  // Deadline 0 of the period from 82: challenge 62, window [82, 86).
  const indices = (height: bigint) => deadlinesToProve(POLICY, viewAt(height)).map((d) => d.index);
  expect(indices(63n)).not.toContain(0n);
  expect(indices(64n)).toContain(0n);
  expect(indices(84n)).toContain(0n);
  expect(indices(85n)).not.toContain(0n);
  const deadline0 = deadlinesToProve(POLICY, viewAt(64n)).find((d) => d.index === 0n)!;
  expect([deadline0.open, deadline0.close, deadline0.challenge]).toEqual([82n, 86n, 62n]);
  expect([80n, 81n, 84n, 85n].map((h) => submissionDue(deadline0, h))).toEqual([false, true, true, false]);
});

test('with every replica readable the partition proves both sectors and skips none', async () => {
  const readable = await readableSectors(mc.ctx.sectorDirectory, 1000n, 2048n, all());
  expect([...readable.values()]).toEqual([0n, 1n]);
  const deadline0 = deadlinesToProve(POLICY, viewAt(64n)).find((d) => d.index === 0n)!;
  const batches = provingBatches(genesisView, deadline0, readable);
  expect(batches).toHaveLength(1);
  expect(batches[0]!.map((p) => [p.index, [...p.skipped.values()], p.sectors.map((s) => s.sectorNumber)])).toEqual([
    [0n, [], [0n, 1n]],
  ]);
  // A partition posted in this window is not proven again.
  const posted = { ...genesisView, postedPartitions: () => BitField.of([0n]) };
  expect(provingBatches(posted, deadline0, readable)).toEqual([]);
});

test('a missing replica is skipped, sector 0 stands in for it, and the proof passes the VM verification', async () => {
  const dir = mc.ctx.sectorDirectory;
  const files = sectorFiles(dir, 1000n, 1n);
  await rename(files.sealed, `${files.sealed}.away`);
  let readable: BitField;
  try {
    readable = await readableSectors(dir, 1000n, 2048n, all());
  } finally {
    await rename(`${files.sealed}.away`, files.sealed);
  }
  expect([...readable.values()]).toEqual([0n]);
  const deadline = genesisView.deadline;
  const partition0 = { ...genesisView, partitions: () => genesisView.partitions(0n) };
  const [batch] = provingBatches(partition0, deadline, readable);
  expect(batch!.map((p) => [[...p.skipped.values()], p.sectors.map((s) => s.sectorNumber)])).toEqual([
    [[1n], [0n, 0n]],
  ]);
  expect(proofSectors(batch![0]!.sectors, BitField.EMPTY)).toBeUndefined();

  const randomnessApi = {
    stateGetRandomnessFromBeacon: async (tag: DomainSeparationTag, epoch: bigint, entropy: Uint8Array) =>
      new ChainRandomness(mc.chain, mc.chain.head()).drawFromBeacon(tag, epoch, entropy),
  };
  const randomness = await challengeRandomness(randomnessApi, 1000n, deadline);
  const proof = await proveBatch({
    sectorDirectory: dir,
    minerId: 1000n,
    postProof: Number(genesisView.windowPoStProofType) as RegisteredPoStProof,
    randomness,
    batch: batch!,
  });
  const verify = (sectors: readonly { sealProof: bigint; sectorNumber: bigint; sealedCid: CID }[]) =>
    verifyPoSt({
      randomness,
      proofs: [{ postProof: genesisView.windowPoStProofType, proofBytes: proof }],
      challengedSectors: sectors.map((s) => ({
        sealProof: Number(s.sealProof),
        sectorNumber: s.sectorNumber,
        sealedCid: s.sealedCid,
      })),
      prover: 1000n,
    });
  // The actor checks the stand-in list (builtin-actors `Sectors::load_for_proof`); the full list is another statement.
  expect(verify(batch![0]!.sectors)).toBe(true);
  expect(verify(genesisView.sectors(all()))).toBe(false);
});

test('faulty sectors readable again are declared recovered, for the first deadline whose fault cutoff is ahead', async () => {
  const [genesisPartition] = genesisView.partitions(0n);
  const faulty = Partition.fromState({ ...genesisPartition!.toState(), faults: BitField.of([1n]) });
  expect([...sectorsToProve(faulty).values()]).toEqual([0n]);
  const readable = await readableSectors(mc.ctx.sectorDirectory, 1000n, 2048n, all());
  expect(recoveryDeclarations(0n, [faulty], readable)).toEqual([
    { deadline: 0n, partition: 0n, sectors: BitField.of([1n]) },
  ]);
  expect(recoveryDeclarations(0n, [faulty], BitField.of([0n]))).toEqual([]);
  const recovering = Partition.fromState({ ...faulty.toState(), recoveries: BitField.of([1n]) });
  expect([...sectorsToProve(recovering).values()]).toEqual([0n, 1n]);
  expect(recoveryDeclarations(0n, [recovering], readable)).toEqual([]);

  // Devnet (4-epoch windows, cutoff 70): at height 10, the first deadline whose cutoff is past 10 + RECOVERY_MARGIN.
  const target = recoveryDeadline(POLICY, viewAt(10n));
  expect(target.faultCutoff).toBeGreaterThan(12n);
  expect(target.faultCutoff - POLICY.wPoStChallengeWindow).toBeLessThanOrEqual(12n);
  // Mainnet (60-epoch windows, cutoff 70): Lotus's `index + 2`.
  const mainnet = MAINNET.minerPolicy;
  const early = newDeadlineInfoFromOffsetAndEpoch(mainnet, 0n, 5n * 60n + 10n);
  const mainnetTarget = recoveryDeadline(mainnet, { ...genesisView, height: early.currentEpoch, deadline: early });
  expect(mainnetTarget.index).toBe(early.index + 2n);
});
