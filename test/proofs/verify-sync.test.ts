/**
 * The blocking seal verifications the VM's proof syscalls use, on a real committed-capacity sector
 * sealed here and its tampered variants (window PoSt's blocking form: window-post.test.ts).
 */
import {
  batchVerifySealsSync,
  ensureParameters,
  type SealVerifyInfo,
  unsealedCid,
  verifySealSync,
  zeroCommDCid,
} from '../../src/proofs/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { filled, flipByte, PARAMETERS_TIMEOUT_MS, sealCommittedCapacitySector } from './fixtures.js';

/** builtin-actors `actors/miner/src/commd.rs` ZERO_COMMD_HASH[0], the 2 KiB zero CommD. */
const ZERO_COMMD_2KIB = 'fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833';

describe('seal verification on the calling thread', () => {
  let info: SealVerifyInfo;

  beforeAll(async () => {
    await ensureParameters({ porep: true });
    info = await sealCommittedCapacitySector(1000n, 3n, { ticket: filled(7), seed: filled(8) });
  }, PARAMETERS_TIMEOUT_MS);

  it('a committed-capacity sector has the zero CommD, which zeroCommDCid gives without sealing', () => {
    expect(toHex(info.commD)).toBe(ZERO_COMMD_2KIB);
    expect(zeroCommDCid(5).toString()).toBe('baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy');
    expect(zeroCommDCid(5).equals(unsealedCid(info.commD))).toBe(true);
    // V1 and V1_1 of one size share it; 32 GiB's is another.
    expect(zeroCommDCid(0).equals(zeroCommDCid(5))).toBe(true);
    expect(zeroCommDCid(8).equals(zeroCommDCid(5))).toBe(false);
    expect(() => zeroCommDCid(42)).toThrow('unknown registered seal proof 42');
  });

  it('verifies the real proof and refuses a flipped byte', () => {
    expect(verifySealSync(info)).toBe(true);
    expect(verifySealSync({ ...info, proof: flipByte(info.proof, 17) })).toBe(false);
    expect(verifySealSync({ ...info, seed: filled(9) })).toBe(false);
  });

  it('batch: one answer per proof, in order, valid and invalid mixed', () => {
    const batch = [
      info,
      { ...info, proof: flipByte(info.proof, 100) },
      { ...info, ticket: filled(1) },
      info,
      { ...info, sectorNumber: 4n },
    ];
    expect(batchVerifySealsSync(batch)).toEqual([true, false, false, true, false]);
    expect(batchVerifySealsSync([])).toEqual([]);
  });

  it('names a malformed argument instead of answering', () => {
    expect(() => verifySealSync({ ...info, ticket: new Uint8Array(31) })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_PROOF_INPUT' }),
    );
    expect(() => batchVerifySealsSync([info, { ...info, seed: new Uint8Array(3) }])).toThrow(/seed/);
  });
});
