import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  challengedSectors,
  ensureParameters,
  generateWinningPost,
  type PoStRequest,
  ProofsError,
  preloadWinningPostKey,
  verifyWinningPost,
  winningPostSectorChallenge,
} from '../../src/proofs/index.js';
import { filled, flipByte, PARAMETERS_TIMEOUT_MS, type PresealedMiner, presealedMiner } from './fixtures.js';

describe('winning PoSt over pre-sealed sectors', () => {
  let miner: PresealedMiner;
  let request: PoStRequest;
  let proof: Uint8Array;
  let maxEventLoopDelayMs: number;

  beforeAll(async () => {
    await ensureParameters();
    miner = await presealedMiner(1000n, 3);
    const randomness = filled(7);
    const sectors = await challengedSectors({ minerId: miner.minerId, randomness, provingSet: miner.sectors });
    request = { minerId: miner.minerId, randomness, sectors };

    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    proof = await generateWinningPost(miner.dir, request);
    histogram.disable();
    maxEventLoopDelayMs = histogram.max / 1e6;
  }, PARAMETERS_TIMEOUT_MS);

  afterAll(() => miner?.remove());

  it('challenges one sector of the proving set', async () => {
    const indices = await winningPostSectorChallenge({ minerId: 1000n, randomness: filled(7), sectorCount: 3n });
    expect(indices).toHaveLength(1);
    expect(indices[0]).toBeLessThan(3n);
    expect(request.sectors).toEqual([miner.sectors[Number(indices[0])]]);
  });

  it('verifies', async () => {
    expect(proof).toHaveLength(192);
    expect(await verifyWinningPost(request, proof)).toBe(true);
  });

  it('keeps the event loop responsive while the proof is generated', () => {
    expect(maxEventLoopDelayMs).toBeLessThan(50);
  });

  it('fails with a flipped proof byte', async () => {
    for (const index of [0, 95, 191]) {
      expect(await verifyWinningPost(request, flipByte(proof, index))).toBe(false);
    }
  });

  it('fails with other randomness', async () => {
    expect(await verifyWinningPost({ ...request, randomness: flipByte(request.randomness, 0) }, proof)).toBe(false);
  });

  it('still verifies when only the two masked bits of the randomness differ, as on chain', async () => {
    const randomness = Uint8Array.from(request.randomness);
    randomness[31] = (randomness[31] as number) ^ 0xc0;
    expect(await verifyWinningPost({ ...request, randomness }, proof)).toBe(true);
  });

  it("fails for another miner id with that miner's sectors", async () => {
    // The prover id reaches the proof through CommR (the replica id binds a sector to its miner) and
    // the sector challenge, not the leaf challenges: the same CommRs under another id still verify,
    // as in Filecoin, where verifiers read CommR from the claimed miner's state.
    const other = await presealedMiner(1001n, 3);
    try {
      const challenged = request.sectors[0]!;
      const theirs = other.sectors.filter((s) => s.sectorNumber === challenged.sectorNumber);
      expect(await verifyWinningPost({ ...request, minerId: 1001n, sectors: theirs }, proof)).toBe(false);
      expect(await verifyWinningPost({ ...request, minerId: 1001n }, proof)).toBe(true);
    } finally {
      await other.remove();
    }
  });

  it('fails for another sector set', async () => {
    const challenged = request.sectors[0]!;
    const other = miner.sectors.find((s) => s.sectorNumber !== challenged.sectorNumber)!;
    expect(await verifyWinningPost({ ...request, sectors: [other] }, proof)).toBe(false);
    const renumbered = { ...challenged, sectorNumber: challenged.sectorNumber + 10n };
    expect(await verifyWinningPost({ ...request, sectors: [renumbered] }, proof)).toBe(false);
  });

  it('preloads the winning PoSt proving key (a window PoSt type is refused); proofs after it verify', async () => {
    await preloadWinningPostKey();
    await expect(preloadWinningPostKey(10)).rejects.toMatchObject({ code: 'ERR_INVALID_PROOF_INPUT' });
    const again = await generateWinningPost(miner.dir, request);
    expect(await verifyWinningPost(request, again)).toBe(true);
  });
  it('refuses malformed requests with ERR_INVALID_PROOF_INPUT', async () => {
    const refusals = [
      generateWinningPost(miner.dir, { ...request, sectors: miner.sectors }),
      generateWinningPost(miner.dir, { ...request, sectors: [{ ...request.sectors[0]!, sectorNumber: 99n }] }),
      verifyWinningPost({ ...request, randomness: filled(1, 31) }, proof),
      verifyWinningPost({ ...request, postProof: 10 }, proof),
      verifyWinningPost({ ...request, sectors: [{ sectorNumber: 0n, commR: filled(0xff) }] }, proof),
      verifyWinningPost({ ...request, minerId: -1n }, proof),
      winningPostSectorChallenge({ minerId: 1000n, randomness: filled(7), sectorCount: 0n }),
    ];
    for (const refusal of refusals) {
      await expect(refusal).rejects.toThrow(ProofsError);
      await expect(refusal).rejects.toMatchObject({ code: 'ERR_INVALID_PROOF_INPUT' });
    }
  });
});
