/**
 * The sealing phases called one by one (AddPiece, PC1, PC2, C1, C2), as `npm run bench:sectors`
 * times them: the same commitments as the combined pre-commit, and a seal proof that verifies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addPiece,
  commitPhase1,
  commitPhase2,
  ensureParameters,
  precommitPhase1,
  precommitPhase2,
  precommitSector,
  verifySeal,
} from '../../src/proofs/index.js';
import { filled, PARAMETERS_TIMEOUT_MS, PROOF_TIMEOUT_MS } from './fixtures.js';

describe('sealing phase by phase', () => {
  let dir: string;
  const ticket = filled(3);
  const seed = filled(4);
  const piece = Uint8Array.from({ length: 2032 }, (_, i) => (i * 7) & 0xff);

  beforeAll(async () => {
    await ensureParameters({ porep: true });
    dir = await mkdtemp(join(tmpdir(), 'ledger-seal-phases-'));
  }, PARAMETERS_TIMEOUT_MS);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it(
    'gives the combined pre-commit its commitments, and a seal proof that verifies',
    async () => {
      const sector = { dir: join(dir, 'phases'), minerId: 1000n, sectorNumber: 3n };
      const commP = await addPiece(sector, piece);
      const phase1 = await precommitPhase1(sector, { ticket, commP });
      const commitments = await precommitPhase2(sector, phase1);
      const combined = await precommitSector({ ...sector, dir: join(dir, 'combined') }, { ticket, piece });
      expect(commitments).toEqual(combined);
      // One full piece: its CommP is the sector's CommD.
      expect(Buffer.from(commP)).toEqual(Buffer.from(commitments.commD));

      const c1 = await commitPhase1(sector, { ...commitments, ticket, seed });
      const proof = await commitPhase2(sector, c1);
      expect(proof).toHaveLength(192);
      expect(await verifySeal({ minerId: 1000n, sectorNumber: 3n, ticket, seed, proof, ...commitments })).toBe(true);
    },
    PROOF_TIMEOUT_MS,
  );

  it('refuses a piece of the wrong size, naming it', async () => {
    await expect(addPiece({ dir, minerId: 1000n, sectorNumber: 4n }, new Uint8Array(2048))).rejects.toMatchObject({
      code: 'ERR_INVALID_PROOF_INPUT',
      message: expect.stringContaining('piece'),
    });
  });

  it('refuses a handle that is not the previous phase output', async () => {
    const sector = { dir: join(dir, 'phases'), minerId: 1000n, sectorNumber: 3n };
    const c1 = await commitPhase1(sector, {
      ...(await precommitSector(sector, { ticket, piece })),
      ticket,
      seed,
    });
    await expect(precommitPhase2(sector, c1 as never)).rejects.toMatchObject({
      code: 'ERR_INVALID_PROOF_INPUT',
      message: expect.stringContaining('SealPreCommitPhase1Output'),
    });
  });
});
