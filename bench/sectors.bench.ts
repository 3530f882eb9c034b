/**
 * Sectors, timed. One 2 KiB sector sealed phase by phase (AddPiece, PC1, PC2, C1, C2) and a window
 * PoSt over one partition (2 sectors) generated and verified, each from JS through N-API and
 * straight from Rust (crates/ledger-proofs/benches/seal_phases.rs) on the same inputs in one run,
 * with the time ratio js/rust (the N-API overhead). Then the VM's cost of a tipset holding 10
 * `SubmitWindowedPoSt` messages (10 genesis miners, one partition each), through `applyTipset`:
 * accepted optimistically (builtin-actors records the proof for disputes), and recovering declared
 * faults, which the actor verifies on chain (builtin-actors `actors/miner/src/lib.rs`
 * `submit_windowed_post`).
 *
 *   npm run bench:sectors
 *
 * The PoRep and window PoSt parameters come from the shared cache (generated there if missing).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CID } from 'multiformats/cid';
import { blake2b256, DomainSeparationTag, drawRandomnessFromDigest } from '../src/crypto/index.js';
import { BitField } from '../src/ipld/index.js';
import {
  addPiece,
  type CommitPhase1Output,
  commitPhase1,
  commitPhase2,
  commRFromCid,
  DEVNET_SEAL_PROOF,
  DEVNET_WINDOW_POST_PROOF,
  ensureParameters,
  generateWindowPost,
  type PoStRequest,
  precommitPhase1,
  precommitPhase2,
  presealSector,
  type SectorCommitments,
  verifySeal,
  verifyWindowPost,
} from '../src/proofs/index.js';
import { Address, encodeCbor, type Message } from '../src/types/index.js';
import { toHex } from '../src/utils/bytes.js';
import { newDeadlineInfo, newDeadlineInfoFromOffsetAndEpoch } from '../src/vm/actors/miner/deadline-info.js';
import { Deadlines } from '../src/vm/actors/miner/deadlines.js';
import {
  declareFaultsParams,
  declareFaultsRecoveredParams,
  submitWindowedPoStParams,
} from '../src/vm/actors/miner/params.js';
import { MinerMethod, minerState, type RandomnessSource } from '../src/vm/index.js';
import { applyAt, block } from '../test/helpers/apply-tipset.js';
import { accountOf, devnetTemplate, FIL, genesisState, PARAMS, presealedMiner } from '../test/helpers/genesis.js';
import { type BlsKey, blsKey } from '../test/helpers/keys.js';
import { message } from '../test/helpers/messages.js';
import { loadTree } from '../test/helpers/state.js';
import { assertAgree, cargoBench, type Measurement, measure, report } from './harness.js';

const results: Measurement[] = [];
const ratios: Record<string, number> = {};
/** Mean milliseconds per call, by case and implementation. */
const milliseconds: Record<string, Record<string, number>> = {};
const JS = 'js (napi async)';
const RUST = 'rust';

function record(caseName: string, impl: string, ms: number): void {
  milliseconds[caseName] = { ...milliseconds[caseName], [impl]: ms };
  results.push({ case: caseName, impl, opsPerSec: 1000 / ms });
  console.error(`  ${caseName} [${impl}]: ${ms.toFixed(1)} ms`);
}

/** Records the time ratio js/rust of `caseName` (target ≤ 1.05). */
function compare(caseName: string): void {
  const times = milliseconds[caseName]!;
  ratios[`${caseName} time js/rust`] = times[JS]! / times[RUST]!;
}

// ---- Sealing, phase by phase ------------------------------------------------------------------

const SEAL_PHASES = ['AddPiece', 'PC1', 'PC2', 'C1', 'C2'] as const;
type SealPhase = (typeof SEAL_PHASES)[number];
/**
 * AddPiece, PC1, PC2 and C1 take milliseconds on 2 KiB: their median over several calls (one call slowed
 * by the machine does not move a median). C2 (tens of seconds) runs once.
 */
const REPETITIONS = 9;
/** Window PoSt generations timed on each side (seconds each): their median. */
const GENERATE_CALLS = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** `phase`'s answer and the milliseconds it took. */
async function timedOnce<T>(phase: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const answer = await phase();
  return [answer, performance.now() - started];
}

interface SealAnswer {
  phasesMs: Record<SealPhase, number>;
  commR: string;
  commD: string;
  proof: string;
}

async function sealPhases(work: string): Promise<void> {
  const minerId = 1000n;
  const sectorNumber = 1n;
  const ticket = new Uint8Array(32).fill(3);
  const seed = new Uint8Array(32).fill(4);
  const piece = Uint8Array.from({ length: 2032 }, (_, i) => (i * 31) % 251);

  // JS and Rust seal the same sector in directories of their own.
  const sector = { dir: join(work, 'seal-js'), minerId, sectorNumber };
  // PC2 encodes the replica in place, so AddPiece, PC1 and PC2 repeat as a chain; C1 only reads.
  const times: Record<Exclude<SealPhase, 'C2'>, number[]> = { AddPiece: [], PC1: [], PC2: [], C1: [] };
  let commitments: SectorCommitments | undefined;
  for (let i = 0; i < REPETITIONS; i++) {
    const [commP, addPieceMs] = await timedOnce(() => addPiece(sector, piece));
    const [phase1, pc1Ms] = await timedOnce(() => precommitPhase1(sector, { ticket, commP }));
    const [pre, pc2Ms] = await timedOnce(() => precommitPhase2(sector, phase1));
    times.AddPiece.push(addPieceMs);
    times.PC1.push(pc1Ms);
    times.PC2.push(pc2Ms);
    commitments = pre;
  }
  if (commitments === undefined) throw new Error('no repetition ran');
  const sealed = commitments;
  let c1: CommitPhase1Output | undefined;
  for (let i = 0; i < REPETITIONS; i++) {
    const [output, c1Ms] = await timedOnce(() => commitPhase1(sector, { ...sealed, ticket, seed }));
    times.C1.push(c1Ms);
    c1 = output;
  }
  const [proof, c2Ms] = await timedOnce(() => commitPhase2(sector, c1!));
  const js: Record<SealPhase, number> = {
    AddPiece: median(times.AddPiece),
    PC1: median(times.PC1),
    PC2: median(times.PC2),
    C1: median(times.C1),
    C2: c2Ms,
  };

  const inputsPath = join(work, 'seal.json');
  await writeFile(
    inputsPath,
    JSON.stringify({
      dir: join(work, 'seal-rust'),
      sealProof: DEVNET_SEAL_PROOF,
      minerId: minerId.toString(),
      sectorNumber: sectorNumber.toString(),
      ticket: toHex(ticket),
      seed: toHex(seed),
      piece: toHex(piece),
    }),
  );
  const rust = cargoBench<SealAnswer>('seal_phases', ['seal', inputsPath, String(REPETITIONS)]);

  assertAgree('sealed sector commitments', {
    js: [toHex(commitments.commR), toHex(commitments.commD)],
    rust: [rust.commR, rust.commD],
  });
  // Groth16 proofs are randomized: each side's must verify.
  const verify = (proofBytes: Uint8Array) =>
    verifySeal({ minerId, sectorNumber, ticket, seed, proof: proofBytes, ...commitments });
  assertAgree('seal proofs verify', {
    js: await verify(proof),
    rust: await verify(Buffer.from(rust.proof, 'hex')),
    expected: true,
  });
  for (const phase of SEAL_PHASES) {
    record(`seal ${phase}`, JS, js[phase]);
    record(`seal ${phase}`, RUST, rust.phasesMs[phase]);
    compare(`seal ${phase}`);
  }
}

// ---- Window PoSt, one partition ---------------------------------------------------------------

interface Timing {
  iterations: number;
  meanMs: number;
}

async function windowPostPartition(work: string): Promise<void> {
  const dir = join(work, 'window-post');
  const minerId = 1000n;
  const sectors = [];
  // One partition of the 2 KiB window PoSt: WindowPoStPartitionSectors = 2.
  for (let sectorNumber = 0n; sectorNumber < 2n; sectorNumber++) {
    const { commR } = await presealSector({ dir, minerId, sectorNumber });
    sectors.push({ sectorNumber, commR });
  }
  const request: PoStRequest = {
    postProof: DEVNET_WINDOW_POST_PROOF,
    minerId,
    randomness: new Uint8Array(32).fill(7),
    sectors,
  };
  // The first call loads the parameters; Rust warms up the same way.
  const proof = await generateWindowPost(dir, request);
  const generateMs: number[] = [];
  for (let i = 0; i < GENERATE_CALLS; i++)
    generateMs.push((await timedOnce(() => generateWindowPost(dir, request)))[1]);
  const verify = await measure('window PoSt verify', JS, () => verifyWindowPost(request, proof), { time: 3000 });

  const inputsPath = join(work, 'window-post.json');
  await writeFile(
    inputsPath,
    JSON.stringify({
      dir,
      postProof: request.postProof,
      minerId: minerId.toString(),
      randomness: toHex(request.randomness),
      sectors: sectors.map((s) => ({ sectorNumber: s.sectorNumber.toString(), commR: toHex(s.commR) })),
    }),
  );
  const rust = cargoBench<{ generate: { medianMs: number }; verify: Timing; proof: string }>('seal_phases', [
    'window-post',
    inputsPath,
    '3',
  ]);
  assertAgree('window PoSt proofs verify', {
    js: await verifyWindowPost(request, proof),
    rust: await verifyWindowPost(request, Buffer.from(rust.proof, 'hex')),
    expected: true,
  });
  for (const [caseName, jsOps, rustMs] of [
    ['window PoSt generate (1 partition)', 1000 / median(generateMs), rust.generate.medianMs],
    ['window PoSt verify (1 partition)', verify.opsPerSec, rust.verify.meanMs],
  ] as const) {
    record(caseName, JS, 1000 / jsOps);
    record(caseName, RUST, rustMs);
    compare(caseName);
  }
}

// ---- A tipset of 10 SubmitWindowedPoSt --------------------------------------------------------

const MINERS = 10;
/** 2 sectors (one partition) in each of the 48 deadlines: whatever the epoch, every miner has a deadline open. */
const SECTORS_PER_MINER = 2n * PARAMS.minerPolicy.wPoStPeriodDeadlines;
const POLICY = PARAMS.minerPolicy;
/** Fixed digests per round standing in for the chain's tickets and beacon (as test/vm/miner/lifecycle.test.ts). */
const randomness: RandomnessSource = {
  ticketDigest: (round) => blake2b256(new TextEncoder().encode(`ticket ${round}`)),
  beaconDigest: (round) => blake2b256(new TextEncoder().encode(`beacon ${round}`)),
};

interface Chain {
  readonly root: CID;
  readonly epoch: bigint;
}

/** A miner's partition 0 of the deadline open at the PoSt epoch. */
interface Target {
  readonly key: BlsKey;
  readonly miner: Address;
  readonly deadline: bigint;
  readonly sectors: bigint[];
  readonly open: bigint;
  readonly challenge: bigint;
}

async function windowPostTipset(work: string): Promise<Record<string, unknown>> {
  const dir = join(work, 'miners');
  const workers = Array.from({ length: MINERS }, (_, i) => blsKey(`sectors-bench-miner-${i}`));
  const started = performance.now();
  const miners = [];
  for (const [i, key] of workers.entries()) {
    const id = Address.newId(1000n + BigInt(i));
    miners.push(await presealedMiner(dir, id, key.address, `peer-${i}`, SECTORS_PER_MINER));
  }
  const genesis = genesisState(
    devnetTemplate({ accounts: workers.map((key) => accountOf(key.address, 10_000n * FIL)), miners }),
  );
  const setupSeconds = (performance.now() - started) / 1000;
  const apply = async (chain: Chain, epoch: bigint, messages: Message[]): Promise<Chain> => {
    const result = await applyAt(genesis, chain.root, epoch, [block([], messages)], {
      parentEpoch: chain.epoch,
      randomness,
    });
    for (const receipt of result.receipts) {
      if (receipt.exitCode !== 0n) throw new Error(`a message at epoch ${epoch} exited with ${receipt.exitCode}`);
    }
    return { root: result.stateRoot, epoch };
  };
  const genesisChain: Chain = { root: genesis.genesisRoot, epoch: 0n };
  const tree = loadTree(genesis, genesis.genesisRoot);

  // The first epoch after the fault declaration cutoff (declarations go in at epoch 1) at which
  // every miner's open deadline holds sectors and opened after genesis.
  const targetsAt = (epoch: bigint): Target[] | undefined => {
    const targets: Target[] = [];
    for (const [i, key] of workers.entries()) {
      const miner = Address.newId(1000n + BigInt(i));
      const state = minerState(tree, miner);
      const open = newDeadlineInfoFromOffsetAndEpoch(POLICY, state.provingPeriodStart, epoch);
      const info = newDeadlineInfo(POLICY, open.periodStart, open.index, epoch);
      if (!info.isOpen() || info.open - POLICY.faultDeclarationCutoff <= 1n || info.open <= 0n) return undefined;
      const deadline = Deadlines.load(genesis.store, state.deadlines).loadDeadline(genesis.store, info.index);
      if (deadline.liveSectors === 0n) return undefined;
      const partition = deadline.loadPartition(genesis.store, 0n);
      targets.push({
        key,
        miner,
        deadline: info.index,
        sectors: [...partition.sectors.values()],
        open: info.open,
        challenge: info.challenge,
      });
    }
    return targets;
  };
  let epoch = POLICY.faultDeclarationCutoff + 2n;
  let targets = targetsAt(epoch);
  while (targets === undefined) {
    epoch++;
    if (epoch >= POLICY.wPoStProvingPeriod) throw new Error('no epoch has every miner in an occupied deadline');
    targets = targetsAt(epoch);
  }

  const ticketDraw = (tag: DomainSeparationTag, round: bigint, entropy: Uint8Array) =>
    drawRandomnessFromDigest(randomness.ticketDigest(round), tag, round, entropy);
  const beaconDraw = (tag: DomainSeparationTag, round: bigint, entropy: Uint8Array) =>
    drawRandomnessFromDigest(randomness.beaconDigest(round), tag, round, entropy);
  const proofs: Uint8Array[] = [];
  for (const target of targets) {
    const commRs = miners[Number(target.miner.id() - 1000n)]!.sectors;
    proofs.push(
      await generateWindowPost(dir, {
        postProof: DEVNET_WINDOW_POST_PROOF,
        minerId: target.miner.id(),
        randomness: beaconDraw(
          DomainSeparationTag.WindowedPoStChallengeSeed,
          target.challenge,
          encodeCbor(target.miner.bytes),
        ),
        sectors: target.sectors.map((n) => ({ sectorNumber: n, commR: sealedCommR(commRs, n) })),
      }),
    );
  }
  const send = (target: Target, nonce: bigint, method: bigint, params: Uint8Array) =>
    // BLS messages (the workers are BLS keys, as builtin-actors requires): blocks carry them unsigned.
    message({ from: target.key.address, to: target.miner, nonce, method, params, gasLimit: 900_000_000n });
  const posts = (nonce: bigint) =>
    targets.map((target, i) =>
      send(
        target,
        nonce,
        MinerMethod.SubmitWindowedPoSt,
        submitWindowedPoStParams.encode({
          deadline: target.deadline,
          partitions: [{ index: 0n, skipped: BitField.EMPTY }],
          proofs: [{ postProof: BigInt(DEVNET_WINDOW_POST_PROOF), proofBytes: proofs[i]! }],
          chainCommitEpoch: target.challenge,
          chainCommitRand: ticketDraw(DomainSeparationTag.PoStChainCommit, target.challenge, new Uint8Array()),
        }),
      ),
    );

  // Optimistic: the partitions are active, the proofs are only recorded.
  const optimistic = await apply(genesisChain, epoch - 1n, []);
  // Recovering: each partition declared faulty, then recovering, so the actor verifies the proof.
  const locations = (target: Target) => [
    { deadline: target.deadline, partition: 0n, sectors: BitField.of(target.sectors) },
  ];
  const declared = await apply(
    genesisChain,
    1n,
    targets.flatMap((target) => [
      send(target, 0n, MinerMethod.DeclareFaults, declareFaultsParams.encode({ faults: locations(target) })),
      send(
        target,
        1n,
        MinerMethod.DeclareFaultsRecovered,
        declareFaultsRecoveredParams.encode({ recoveries: locations(target) }),
      ),
    ]),
  );
  const recovering = await apply(declared, epoch - 1n, []);

  const cases = [
    ['tipset with 10 SubmitWindowedPoSt (optimistic)', optimistic, posts(0n)],
    ['tipset with 10 SubmitWindowedPoSt (recoveries, verified on chain)', recovering, posts(2n)],
    ['empty tipset (baseline)', optimistic, []],
  ] as const;
  const gasUsed: Record<string, string> = {};
  for (const [caseName, parent, messages] of cases) {
    const once = await applyAt(genesis, parent.root, epoch, [block([], messages)], {
      parentEpoch: parent.epoch,
      randomness,
    });
    assertAgree(`${caseName} exit codes`, {
      applied: once.receipts.map((r) => r.exitCode.toString()),
      expected: messages.map(() => '0'),
    });
    gasUsed[caseName] = once.receipts.reduce((sum, r) => sum + r.gasUsed, 0n).toString();
    results.push(
      await measure(caseName, 'applyTipset', () =>
        applyAt(genesis, parent.root, epoch, [block([], messages)], { parentEpoch: parent.epoch, randomness }),
      ),
    );
  }
  return { tipsetEpoch: epoch.toString(), setupSeconds, gasUsed };
}

/** The raw commitment of sector `n` of a pre-sealed genesis miner. */
function sealedCommR(sectors: readonly { sectorNumber: bigint; commR: CID }[], n: bigint): Uint8Array {
  const sector = sectors.find((s) => s.sectorNumber === n);
  if (sector === undefined) throw new Error(`no pre-sealed sector ${n}`);
  return commRFromCid(sector.commR);
}

await ensureParameters({ porep: true });
const work = await mkdtemp(join(tmpdir(), 'ledger-bench-sectors-'));
let tipset: Record<string, unknown>;
try {
  tipset = await windowPostTipset(work);
  await windowPostPartition(work);
  await sealPhases(work);
} finally {
  await rm(work, { recursive: true, force: true });
}
report('sectors', results, ratios, { milliseconds, sealRepetitions: REPETITIONS, tipset });
