import {
  ensureParameters,
  generateWindowPost,
  type PoStRequest,
  verifyWindowPost,
  verifyWindowPostSync,
} from '../../src/proofs/index.js';
import { filled, flipByte, PARAMETERS_TIMEOUT_MS, type PresealedMiner, presealedMiner } from './fixtures.js';

describe('window PoSt over pre-sealed sectors', () => {
  let miner: PresealedMiner;
  let request: PoStRequest;
  let proof: Uint8Array;

  beforeAll(async () => {
    await ensureParameters();
    miner = await presealedMiner(1000n, 3);
    request = { minerId: miner.minerId, randomness: filled(9), sectors: miner.sectors };
    proof = await generateWindowPost(miner.dir, request);
  }, PARAMETERS_TIMEOUT_MS);

  afterAll(() => miner?.remove());

  it('verifies: one 192-byte proof per partition of two sectors', async () => {
    expect(proof).toHaveLength(2 * 192);
    expect(await verifyWindowPost(request, proof)).toBe(true);
  });

  it('fails with a flipped proof byte', async () => {
    for (const index of [0, 200, 383]) {
      expect(await verifyWindowPost(request, flipByte(proof, index))).toBe(false);
    }
  });

  it('fails with other randomness', async () => {
    expect(await verifyWindowPost({ ...request, randomness: flipByte(request.randomness, 5) }, proof)).toBe(false);
  });

  it("fails for another miner id with that miner's sectors", async () => {
    const other = await presealedMiner(1001n, 3);
    try {
      expect(await verifyWindowPost({ ...request, minerId: 1001n, sectors: other.sectors }, proof)).toBe(false);
    } finally {
      await other.remove();
    }
  });

  it('verifies on the calling thread too (the VM syscall), refusing a flipped byte', () => {
    expect(verifyWindowPostSync(request, proof)).toBe(true);
    expect(verifyWindowPostSync(request, flipByte(proof, 50))).toBe(false);
  });

  it('masks the randomness: the top two bits of its last byte do not count', () => {
    const topBitsSet = Uint8Array.from(request.randomness);
    topBitsSet[31] = (topBitsSet[31] as number) | 0xc0;
    expect(verifyWindowPostSync({ ...request, randomness: topBitsSet }, proof)).toBe(true);
  });

  it('fails for another sector set', async () => {
    expect(await verifyWindowPost({ ...request, sectors: miner.sectors.slice(0, 2) }, proof)).toBe(false);
    const rotated = miner.sectors.map((s, i) => ({ ...s, commR: miner.sectors[(i + 1) % 3]!.commR }));
    expect(await verifyWindowPost({ ...request, sectors: rotated }, proof)).toBe(false);
  });
});
