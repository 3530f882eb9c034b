import { CID } from 'multiformats/cid';
import { commDFromCid, commRFromCid, ProofsError, sealedCid, unsealedCid } from '../../src/proofs/index.js';
import { filled } from './fixtures.js';

describe('commitment CIDs', () => {
  it('use the fil-commitment codecs and multihashes of ref-fvm commcid', () => {
    const commR = sealedCid(filled(1));
    const commD = unsealedCid(filled(2));
    expect(commR.code).toBe(0xf102);
    expect(commR.multihash.code).toBe(0xb401);
    expect(commD.code).toBe(0xf101);
    expect(commD.multihash.code).toBe(0x1012);
    // The familiar prefixes of Lotus's CommR and CommD strings.
    expect(commR.toString()).toMatch(/^bagboea4b5abc/);
    expect(commD.toString()).toMatch(/^baga6ea4seaq/);
  });

  it('round-trip and refuse the other kind', () => {
    const commR = filled(3);
    expect(commRFromCid(CID.parse(sealedCid(commR).toString()))).toEqual(commR);
    expect(commDFromCid(unsealedCid(commR))).toEqual(commR);
    expect(() => commDFromCid(sealedCid(commR))).toThrow(ProofsError);
    expect(() => sealedCid(filled(3, 31))).toThrow(/32 bytes/);
  });
});
