/**
 * The sealing process (src/proofs/seal-process.ts): a sector's pre-commit run there gives the
 * commitments the in-process call gives, at the lowest CPU priority; the native core's errors come
 * back with their codes; a process that dies fails its job with a message saying so, and the next
 * job starts a new one. (C2 in the process, and the process dying with its parent, are in
 * test/miner/sealing/crash-resume.test.ts.)
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProofsError, precommitSector, SealProcess, type SectorRef } from '../../src/proofs/index.js';

/** A 2 KiB sector's unpadded size. */
const PIECE = new Uint8Array(2032).fill(7);
const TICKET = new Uint8Array(32).fill(3);

let dir: string;
let sealer: SealProcess;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ledger-seal-process-'));
  sealer = new SealProcess();
});

afterEach(async () => {
  sealer.close();
  await rm(dir, { recursive: true, force: true });
});

const sector = (where: string, sectorNumber: bigint): SectorRef => ({
  dir: join(dir, where),
  minerId: 1000n,
  sectorNumber,
});

test('a pre-commit in the sealing process matches the one in this process, at nice 19', async () => {
  const inProcess = await precommitSector(sector('here', 1n), { ticket: TICKET, piece: PIECE });
  const there = await sealer.precommitSector(sector('there', 1n), { ticket: TICKET, piece: PIECE });
  expect(there).toEqual(inProcess);
  // Every thread: on Linux each has its own priority (the ones proving are started from the pool's).
  const threads = readdirSync(`/proc/${sealer.pid}/task`).map(Number);
  expect(new Set(threads.map((tid) => getPriority(tid)))).toEqual(new Set([19]));
  // The process stays for the next job.
  const pid = sealer.pid;
  await sealer.precommitSector(sector('there', 2n), { ticket: TICKET, piece: PIECE });
  expect(sealer.pid).toBe(pid);
}, 120_000);

test('a native error comes back with its code, and the process keeps serving', async () => {
  const bad = sealer.precommitSector(sector('bad', 1n), { ticket: TICKET, piece: PIECE.subarray(1) });
  await expect(bad).rejects.toThrow(ProofsError);
  await expect(bad).rejects.toMatchObject({ code: 'ERR_INVALID_PROOF_INPUT' });
  await expect(sealer.precommitSector(sector('good', 1n), { ticket: TICKET, piece: PIECE })).resolves.toHaveProperty(
    'commR',
  );
}, 120_000);

test('a job whose process dies fails with a message saying so; the next job gets a new process', async () => {
  const job = sealer.precommitSector(sector('killed', 1n), { ticket: TICKET, piece: PIECE });
  while (sealer.pid === undefined) await new Promise((r) => setTimeout(r, 5));
  const first = sealer.pid;
  process.kill(first, 'SIGKILL');
  await expect(job).rejects.toThrow('precommit of sector 1: the sealing process exited (SIGKILL)');
  await expect(sealer.precommitSector(sector('after', 1n), { ticket: TICKET, piece: PIECE })).resolves.toHaveProperty(
    'commD',
  );
  expect(sealer.pid).not.toBe(first);
}, 120_000);

test('a closed sealer refuses new work', async () => {
  sealer.close();
  await expect(sealer.precommitSector(sector('closed', 1n), { ticket: TICKET, piece: PIECE })).rejects.toThrow(
    'precommit of sector 1: the sealer is closed',
  );
});
