import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  commitSector,
  ensureParameters,
  finalizeSector,
  precommitSector,
  type SealVerifyInfo,
  verifySeal,
} from '../../src/proofs/index.js';
import { filled, flipByte, PARAMETERS_TIMEOUT_MS, PROOF_TIMEOUT_MS } from './fixtures.js';

describe('sealing a sector (PC1, PC2, C1, C2)', () => {
  let dir: string;
  let info: SealVerifyInfo;

  beforeAll(async () => {
    await ensureParameters({ porep: true });
    dir = await mkdtemp(join(tmpdir(), 'ledger-seal-'));
  }, PARAMETERS_TIMEOUT_MS);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it(
    'produces a seal proof that verifies',
    async () => {
      const sector = { dir, minerId: 1000n, sectorNumber: 7n };
      const ticket = filled(3);
      const seed = filled(4);
      const piece = Uint8Array.from({ length: 2032 }, (_, i) => (i * 31) & 0xff);
      const commitments = await precommitSector(sector, { ticket, piece });
      const proof = await commitSector(sector, { ...commitments, ticket, seed });
      await finalizeSector(sector);
      expect(proof).toHaveLength(192);
      expect(await readdir(join(dir, 'unsealed'))).toEqual([]);

      info = { minerId: 1000n, sectorNumber: 7n, ticket, seed, proof, ...commitments };
      expect(await verifySeal(info)).toBe(true);
    },
    PROOF_TIMEOUT_MS,
  );

  it('rejects a tampered proof and other public inputs', async () => {
    expect(await verifySeal({ ...info, proof: flipByte(info.proof, 100) })).toBe(false);
    expect(await verifySeal({ ...info, proof: info.proof.subarray(0, 191) })).toBe(false);
    expect(await verifySeal({ ...info, seed: filled(5) })).toBe(false);
    expect(await verifySeal({ ...info, sectorNumber: 8n })).toBe(false);
    expect(await verifySeal({ ...info, minerId: 1001n })).toBe(false);
    expect(await verifySeal({ ...info, commD: info.commR })).toBe(false);
  });

  it('refuses a piece of the wrong size', async () => {
    await expect(
      precommitSector({ dir, minerId: 1000n, sectorNumber: 8n }, { ticket: filled(3), piece: new Uint8Array(2048) }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_PROOF_INPUT' });
  });
});
