/**
 * Real storage proofs (2 KiB sectors, devnet parameters), timed: Groth16 parameter generation per
 * circuit, pre-seal per sector, winning PoSt generation and verification, window PoSt
 * verification, seal (C1+C2) and seal verification. The N-API overhead is measured by verifying
 * the same winning PoSt from a Rust benchmark (crates/ledger-proofs/benches/verify_winning_post.rs)
 * and from JS in the same run.
 *
 *   npm run bench:proofs                  # PoSt circuits' setup is timed in a fresh directory
 *   npm run bench:proofs -- --porep-setup # also time the PoRep setup (tens of minutes on 2 cores)
 *
 * Parameters for the proofs themselves come from the shared cache (generated there if missing).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  type Circuit,
  challengedSectors,
  commitSector,
  DEVNET_WINNING_POST_PROOF,
  ensureParameters,
  generateWindowPost,
  generateWinningPost,
  POST_CIRCUITS,
  type PoStRequest,
  type PoStSector,
  parameterStatus,
  precommitSector,
  presealSector,
  verifySeal,
  verifyWindowPost,
  verifyWinningPost,
} from '../src/proofs/index.js';
import { toHex } from '../src/utils/bytes.js';
import { assertAgree, cargoBench, type Measurement, measure, opsOf, report } from './harness.js';

const results: Measurement[] = [];
/** One-shot steps, in seconds (also in `results` as ops/s). */
const seconds: Record<string, number> = {};

function recordOnce(caseName: string, elapsedSeconds: number): void {
  seconds[caseName] = elapsedSeconds;
  results.push({ case: caseName, impl: 'native', opsPerSec: 1 / elapsedSeconds });
  console.error(`  ${caseName}: ${elapsedSeconds.toFixed(2)} s`);
}

async function timeOnce<T>(caseName: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const value = await fn();
  recordOnce(caseName, (performance.now() - started) / 1000);
  return value;
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

/** Setup of each circuit in a fresh directory; the files must equal the shared cache's (the seed fixes them). */
async function parameterGeneration(circuits: readonly Circuit[]): Promise<void> {
  const shared = await ensureParameters({ porep: circuits.includes('porep') });
  const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-params-'));
  try {
    const fresh = await ensureParameters({ dir, porep: circuits.includes('porep') });
    for (const status of fresh) {
      recordOnce(`parameter generation ${status.circuit}`, status.seconds);
      const twin = shared.find((s) => s.circuit === status.circuit)!;
      assertAgree(`${status.circuit} parameters`, {
        fresh: await sha256File(status.paramsPath),
        shared: await sha256File(twin.paramsPath),
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function presealed(dir: string, minerId: bigint, count: number): Promise<PoStSector[]> {
  const sectors: PoStSector[] = [];
  const started = performance.now();
  for (let sectorNumber = 0n; sectorNumber < BigInt(count); sectorNumber++) {
    const { commR } = await presealSector({ dir, minerId, sectorNumber });
    sectors.push({ sectorNumber, commR });
  }
  recordOnce('pre-seal per sector (PC1+PC2+finalize)', (performance.now() - started) / 1000 / count);
  return sectors;
}

/** Times the same verification from Rust, in a process of its own. */
function rustVerification(request: PoStRequest, proof: Uint8Array, dir: string): Promise<number> {
  const inputsPath = join(dir, 'winning-post.json');
  const inputs = {
    postProof: DEVNET_WINNING_POST_PROOF,
    minerId: request.minerId.toString(),
    randomness: toHex(request.randomness),
    sectors: request.sectors.map((s) => ({ sectorNumber: s.sectorNumber.toString(), commR: toHex(s.commR) })),
    proof: toHex(proof),
  };
  return writeFile(inputsPath, JSON.stringify(inputs)).then(() => {
    const { opsPerSec } = cargoBench<{ opsPerSec: number }>('verify_winning_post', [inputsPath, '3']);
    console.error(`  winning PoSt verify [rust]: ${opsPerSec.toFixed(1)} ops/s`);
    return opsPerSec;
  });
}

const porepSetup = process.argv.includes('--porep-setup');
await parameterGeneration(porepSetup ? [...POST_CIRCUITS, 'porep'] : POST_CIRCUITS);
await ensureParameters({ porep: true });
if (!parameterStatus({ porep: true }).every((s) => s.state === 'complete')) throw new Error('parameters incomplete');

const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-proofs-'));
let eventLoop: { maxDelayMs: number };
try {
  const minerId = 1000n;
  const provingSet = await presealed(dir, minerId, 4);
  const randomness = new Uint8Array(32).fill(7);
  const winning: PoStRequest = {
    minerId,
    randomness,
    sectors: await challengedSectors({ minerId, randomness, provingSet }),
  };

  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const winningProof = await timeOnce('winning PoSt generate (cold: loads parameters)', () =>
    generateWinningPost(dir, winning),
  );
  histogram.disable();
  eventLoop = { maxDelayMs: histogram.max / 1e6 };
  results.push(
    await measure('winning PoSt generate', 'native', () => generateWinningPost(dir, winning), {
      iterations: 5,
      time: 0,
      warmup: false,
    }),
  );

  const rustOps = await rustVerification(winning, winningProof, dir);
  assertAgree('winning PoSt verify', { js: await verifyWinningPost(winning, winningProof), rust: true });
  results.push(
    await measure('winning PoSt verify', 'js (napi async)', () => verifyWinningPost(winning, winningProof), {
      time: 3000,
    }),
  );
  results.push({ case: 'winning PoSt verify', impl: 'rust', opsPerSec: rustOps });

  const window: PoStRequest = { minerId, randomness, sectors: provingSet };
  const windowProof = await timeOnce('window PoSt generate (4 sectors, 2 partitions)', () =>
    generateWindowPost(dir, window),
  );
  assertAgree('window PoSt verify', { native: await verifyWindowPost(window, windowProof), expected: true });
  results.push(await measure('window PoSt verify', 'native', () => verifyWindowPost(window, windowProof)));

  const sector = { dir, minerId, sectorNumber: 100n };
  const ticket = new Uint8Array(32).fill(3);
  const seed = new Uint8Array(32).fill(4);
  const commitments = await precommitSector(sector, { ticket, piece: new Uint8Array(2032).fill(9) });
  const sealProof = await timeOnce('seal commit C1+C2', () => commitSector(sector, { ...commitments, ticket, seed }));
  const seal = { minerId, sectorNumber: 100n, ticket, seed, proof: sealProof, ...commitments };
  assertAgree('seal verify', { native: await verifySeal(seal), expected: true });
  results.push(await measure('seal verify', 'native', () => verifySeal(seal)));
} finally {
  await rm(dir, { recursive: true, force: true });
}

const jsOverRust =
  opsOf(results, 'winning PoSt verify', 'rust') / opsOf(results, 'winning PoSt verify', 'js (napi async)');
report(
  'proofs',
  results,
  // Time ratio: how much longer the JS call takes than the same verification in Rust (target ≤ 1.05).
  { 'winning PoSt verify time js/rust (N-API overhead)': jsOverRust },
  {
    seconds,
    eventLoopDuringWinningPostGenerate: eventLoop,
    porepSetupMeasured: porepSetup,
  },
);
