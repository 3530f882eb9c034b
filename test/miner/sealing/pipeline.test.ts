/**
 * The sealing pipeline with real sealing (2 KiB, the native core) and a real database, against a
 * scripted chain — the one test double, standing in for the chain API only (`scripted-chain.ts`).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerDatabase } from '../../../src/db/index.js';
import { SealingPipeline, type SealingSector, SectorState } from '../../../src/miner/sealing/index.js';
import { DEVNET_2K } from '../../../src/params/index.js';
import { commDFromCid, ensureParameters, zeroCommDCid } from '../../../src/proofs/index.js';
import { preCommitSectorBatch2Params } from '../../../src/vm/actors/miner/params.js';
import { MinerMethod } from '../../../src/vm/methods.js';
import { PARAMETERS_TIMEOUT_MS } from '../../proofs/fixtures.js';
import { DEPOSIT, MINER, PLEDGE, ScriptedChain } from './scripted-chain.js';

const SEAL_TIMEOUT_MS = 15 * 60_000;

/** The states of a sector sealed without trouble, in order. */
const HAPPY_PATH = [
  SectorState.Packing,
  SectorState.PreCommit1,
  SectorState.PreCommitting,
  SectorState.PreCommitWait,
  SectorState.WaitSeed,
  SectorState.Committing,
  SectorState.SubmitCommit,
  SectorState.CommitWait,
  SectorState.FinalizeSector,
  SectorState.Proving,
];

let dir: string;
let db: LedgerDatabase;
let chain: ScriptedChain;

beforeAll(async () => {
  await ensureParameters({ porep: true });
}, PARAMETERS_TIMEOUT_MS);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-sealing-'));
  db = LedgerDatabase.open(join(dir, 'node.db'));
  chain = new ScriptedChain();
});

afterEach(async () => {
  chain.close();
  db.close();
  await rm(dir, { recursive: true, force: true });
});

function open(onTransition: (sector: SealingSector) => void): Promise<SealingPipeline> {
  return SealingPipeline.open({
    store: db.sealing,
    chain,
    miner: MINER,
    sectorDirectory: join(dir, 'sectors'),
    params: DEVNET_2K,
    messageConfidence: 1n,
    onTransition,
  });
}

it(
  'seals a sector from Packing to Proving, with a new pipeline on the same database after every persisted step',
  async () => {
    const seen: SealingSector[] = [];
    let sectorNumber: bigint | undefined;
    for (let restarts = 0; restarts < 20; restarts++) {
      let stepped!: (sector: SealingSector) => void;
      const next = new Promise<SealingSector>((resolve) => {
        stepped = resolve;
      });
      const pipeline = await open((sector) => {
        seen.push(sector);
        // Stop right after the write: the next pipeline must pick the sector up from the database alone.
        void pipeline.stop();
        stepped(sector);
      });
      if (sectorNumber === undefined) sectorNumber = (await pipeline.pledgeSector()).sectorNumber;
      else pipeline.start();
      const sector = await next;
      await pipeline.stop();
      if (sector.state === SectorState.Proving) break;
    }
    expect(seen.map((sector) => sector.state)).toEqual(HAPPY_PATH);
    // Above the two sectors the miner actor allocated at genesis.
    expect(sectorNumber).toBe(2n);

    const [preCommit, proveCommit] = chain.executed;
    expect(chain.executed).toHaveLength(2);
    expect(preCommit).toMatchObject({
      exitCode: 0n,
      message: { method: MinerMethod.PreCommitSectorBatch2, value: DEPOSIT },
    });
    expect(proveCommit).toMatchObject({
      exitCode: 0n,
      message: { method: MinerMethod.ProveCommitSectors3, value: PLEDGE - DEPOSIT },
    });
    // The chain verified the proof against its own randomness and the zero CommD.
    expect(chain.proven).toEqual(new Set([2n]));

    const proving = seen.at(-1)!;
    const [info] = preCommitSectorBatch2Params.decode(preCommit!.message.params).sectors;
    expect(info).toMatchObject({ sectorNumber: 2n, sealProof: 5n, unsealedCid: null, dealIds: [] });
    expect(info!.sealRandEpoch).toBe(proving.ticketEpoch);
    expect(proving.commD).toEqual(commDFromCid(zeroCommDCid(5)));
    expect(proving.proof).toHaveLength(192);
    expect(proving.preCommitEpoch).toBe(preCommit!.epoch);
    expect(proving.seedEpoch).toBe(preCommit!.epoch + DEVNET_2K.minerPolicy.preCommitChallengeDelay);
    expect(proving.commitMessage?.equals(proveCommit!.cid)).toBe(true);
    // Finalized: the replica stays for window PoSt, the unsealed copy is gone.
    expect(existsSync(join(dir, 'sectors', 'sealed', 's-t01000-2'))).toBe(true);
    expect(await readdir(join(dir, 'sectors', 'unsealed'))).toEqual([]);
  },
  SEAL_TIMEOUT_MS,
);

it(
  'seals again after the ticket expires, and computes the proof again when a reorg changes the seed',
  async () => {
    const seen: SectorState[] = [];
    let expired = false;
    let reorged = false;
    const pipeline = await open((sector) => {
      seen.push(sector.state);
      if (sector.state === SectorState.PreCommitting && !expired) {
        expired = true;
        chain.skip(4000n);
      }
      if (sector.state === SectorState.SubmitCommit && !reorged) {
        reorged = true;
        chain.reorgBeacon();
      }
    });
    const { sectorNumber } = await pipeline.pledgeSector();
    const sector = await pipeline.whenSettled(sectorNumber);
    await pipeline.stop();

    // Packing … PreCommitting, back to PreCommit1 through SealPreCommit1Failed, on to SubmitCommit,
    // back to WaitSeed, and on to Proving.
    expect(seen).toEqual([
      ...HAPPY_PATH.slice(0, 3),
      SectorState.SealPreCommit1Failed,
      ...HAPPY_PATH.slice(1, 7),
      ...HAPPY_PATH.slice(4),
    ]);
    expect(sector.state).toBe(SectorState.Proving);
    expect(sector.failure).toMatch(/^the seed changed \(a reorg\)/);
    // Only the second pre-commit (with a fresh ticket) and the prove-commit on the new seed were sent.
    expect(chain.executed.map((m) => m.exitCode)).toEqual([0n, 0n]);
    expect(chain.proven).toEqual(new Set([sectorNumber]));
  },
  SEAL_TIMEOUT_MS,
);

it(
  'stops at PreCommitFailed with the exit code when the chain refuses the pre-commit',
  async () => {
    chain.preCommitExitCode = 16n;
    const pipeline = await open(() => {});
    const { sectorNumber } = await pipeline.pledgeSector();
    const sector = await pipeline.whenSettled(sectorNumber);
    await pipeline.stop();
    expect(sector.state).toBe(SectorState.PreCommitFailed);
    expect(sector.failure).toMatch(/^PreCommitSectorBatch2 \S+ failed on chain: exit code 16$/);
    expect(chain.executed).toHaveLength(1);
  },
  SEAL_TIMEOUT_MS,
);

it(
  'retries a step whose chain calls fail after 1, 2, then 4 heads, showing the error as the LastErr meanwhile',
  async () => {
    chain.failing.set('stateMinerPreCommitDepositForPower', 3);
    const heights: bigint[] = [];
    const deposit = chain.stateMinerPreCommitDepositForPower.bind(chain);
    chain.stateMinerPreCommitDepositForPower = (...args) => {
      heights.push(chain.height);
      return deposit(...args);
    };
    let failed: SealingSector | undefined;
    let reachedWait!: () => void;
    const waiting = new Promise<void>((resolve) => {
      reachedWait = resolve;
    });
    const pipeline = await open((sector) => {
      if (sector.state === SectorState.PreCommitWait) reachedWait();
    });
    const { sectorNumber } = await pipeline.pledgeSector();
    while (failed === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const record = pipeline.sector(sectorNumber);
      if (record?.failure != null) failed = record;
    }
    await waiting;
    await pipeline.stop();
    expect(failed).toMatchObject({
      state: SectorState.PreCommitting,
      failure: 'PreCommitting: stateMinerPreCommitDepositForPower: the node is not synced',
    });
    expect(heights.slice(1).map((h, i) => h - (heights[i] as bigint))).toEqual([1n, 2n, 4n]);
    // Then the pre-commit went out, once.
    expect(chain.calls.filter((method) => method === 'mpoolPushMessage')).toHaveLength(1);
  },
  SEAL_TIMEOUT_MS,
);
