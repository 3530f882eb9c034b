/**
 * The sealing pipeline's persistence: sector records in the node database and sector numbers that
 * are never handed out twice. The chain is the scripted test double; nothing here seals.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CID } from 'multiformats/cid';
import { LedgerDatabase, type SealingSectorRecord } from '../../../src/db/index.js';
import {
  packingSector,
  SealingPipeline,
  type SealingPipelineOptions,
  SectorState,
} from '../../../src/miner/sealing/index.js';
import { DEVNET_2K } from '../../../src/params/index.js';
import { MINER, ScriptedChain } from './scripted-chain.js';

let dir: string;
let chain: ScriptedChain;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-sealing-store-'));
  chain = new ScriptedChain();
});

afterEach(async () => {
  chain.close();
  await rm(dir, { recursive: true, force: true });
});

function record(miner: bigint, sectorNumber: bigint): SealingSectorRecord {
  return { ...packingSector(miner, sectorNumber, 5), updatedAt: 1_700_000_000_000 };
}

describe('SealingStore', () => {
  it('hands out each number once, from the floor up, per miner and across reopening', () => {
    const path = join(dir, 'node.db');
    let db = LedgerDatabase.open(path);
    const allocate = (miner: bigint, floor: bigint) =>
      db.sealing.allocate(miner, floor, (n) => record(miner, n)).sectorNumber;
    expect(allocate(1000n, 2n)).toBe(2n);
    expect(allocate(1000n, 0n)).toBe(3n);
    expect(allocate(1000n, 10n)).toBe(10n);
    expect(allocate(1001n, 0n)).toBe(0n);
    db.close();
    db = LedgerDatabase.open(path);
    expect(allocate(1000n, 0n)).toBe(11n);
    expect(db.sealing.list(1000n).map((r) => r.sectorNumber)).toEqual([2n, 3n, 10n, 11n]);
    db.close();
  });

  it('does not take the number when storing the sector fails', () => {
    const db = LedgerDatabase.open(join(dir, 'node.db'));
    db.sealing.allocate(1000n, 0n, (n) => record(1000n, n));
    expect(() =>
      db.sealing.allocate(1000n, 0n, () => {
        throw new Error('no record');
      }),
    ).toThrow('no record');
    expect(db.sealing.allocate(1000n, 0n, (n) => record(1000n, n)).sectorNumber).toBe(1n);
    db.close();
  });

  it('keeps every field of a sector across reopening', () => {
    const path = join(dir, 'node.db');
    let db = LedgerDatabase.open(path);
    const cid = CID.parse('bafy2bzacea3wsdh6y3a36tb3skempjoxqpuyompjbmfeyf34fi3uy6uue42v4');
    const full: SealingSectorRecord = {
      ...record(1000n, 2n),
      state: SectorState.CommitWait,
      ticketEpoch: -5n,
      ticket: new Uint8Array(32).fill(1),
      commR: new Uint8Array(32).fill(2),
      commD: new Uint8Array(32).fill(3),
      messageUuid: '4d3c2b1a-0000-4000-8000-000000000001',
      preCommitMessage: cid,
      preCommitEpoch: 2_000n,
      seedEpoch: 2_010n,
      seed: new Uint8Array(32).fill(4),
      proof: new Uint8Array(192).fill(5),
      commitMessage: cid,
      invalidProofs: 1,
      failure: 'the seed changed',
    };
    db.sealing.allocate(1000n, 2n, () => record(1000n, 2n));
    db.sealing.put(full);
    db.close();
    db = LedgerDatabase.open(path);
    const read = db.sealing.get(1000n, 2n)!;
    expect({
      ...read,
      preCommitMessage: read.preCommitMessage?.toString(),
      commitMessage: read.commitMessage?.toString(),
    }).toEqual({
      ...full,
      preCommitMessage: cid.toString(),
      commitMessage: cid.toString(),
    });
    expect(db.sealing.get(1000n, 3n)).toBeUndefined();
    db.close();
  });
});

describe('SealingPipeline sector numbers and records', () => {
  function openPipeline(db: LedgerDatabase, options: Partial<SealingPipelineOptions> = {}): Promise<SealingPipeline> {
    return SealingPipeline.open({
      store: db.sealing,
      chain,
      miner: MINER,
      sectorDirectory: join(dir, 'sectors'),
      params: DEVNET_2K,
      ...options,
    });
  }

  async function pledgeWithoutSealing(db: LedgerDatabase): Promise<bigint> {
    // Stopped as soon as the sector is stored: nothing seals.
    const pipeline = await openPipeline(db, { onTransition: () => void pipeline.stop() });
    const { sectorNumber } = await pipeline.pledgeSector();
    await pipeline.stop();
    return sectorNumber;
  }

  it('numbers new sectors above what the miner actor allocated, and never reuses one', async () => {
    const db = LedgerDatabase.open(join(dir, 'node.db'));
    expect(await pledgeWithoutSealing(db)).toBe(2n);
    chain.allocated.add(7n);
    expect(await pledgeWithoutSealing(db)).toBe(8n);
    chain.allocated.clear();
    expect(await pledgeWithoutSealing(db)).toBe(9n);
    db.close();
  });

  it('refuses a miner whose sector size the seal proof does not seal', async () => {
    const db = LedgerDatabase.open(join(dir, 'node.db'));
    await expect(openPipeline(db, { sealProof: 8 })).rejects.toMatchObject({
      code: 'ERR_SEALING_BAD_MINER',
      message: expect.stringContaining('2048-byte sectors'),
    });
    db.close();
  });

  it('gives up a sector whose record lacks what its state needs, saying what is missing', async () => {
    const db = LedgerDatabase.open(join(dir, 'node.db'));
    db.sealing.allocate(MINER.id(), 2n, (n) => ({ ...record(MINER.id(), n), state: SectorState.PreCommitting }));
    const pipeline = await openPipeline(db);
    pipeline.start();
    const sector = await pipeline.whenSettled(2n);
    await pipeline.stop();
    expect(sector).toMatchObject({
      state: SectorState.FailedUnrecoverable,
      failure: 'sector 2 is in state PreCommitting without its ticketEpoch',
    });
    expect(db.sealing.get(MINER.id(), 2n)?.state).toBe(SectorState.FailedUnrecoverable);
    db.close();
  });

  it('names the sector and the state when the database holds a state it does not know', async () => {
    const db = LedgerDatabase.open(join(dir, 'node.db'));
    db.sealing.allocate(MINER.id(), 2n, (n) => ({ ...record(MINER.id(), n), state: 'Sealing' }));
    const pipeline = await openPipeline(db);
    expect(() => pipeline.start()).toThrow("sector 2 has an unknown sealing state 'Sealing'");
    db.close();
  });
});
