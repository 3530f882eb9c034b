/**
 * Sector fixtures for the miner's state tests, as builtin-actors `actors/miner/tests/util.rs`
 * `test_sector` builds them: a number, an expiration, deal weights, a pledge and a daily fee, the
 * rest at their defaults (activation and power base at epoch 0).
 */
import { cidOfCbor } from '../../../src/types/cid.js';
import { encodeCbor } from '../../../src/types/index.js';
import type { SectorOnChainInfo } from '../../../src/vm/actors/miner/state.js';

export const SECTOR_SIZE_32GIB = 32n << 30n;

export function testSector(
  expiration: bigint,
  sectorNumber: bigint,
  dealWeight: bigint,
  verifiedDealWeight: bigint,
  pledge: bigint,
  dailyFee: bigint,
): SectorOnChainInfo {
  return {
    sectorNumber,
    sealProof: 0n,
    sealedCid: cidOfCbor(encodeCbor(`sealed ${sectorNumber}`)),
    deprecatedDealIds: [],
    activation: 0n,
    expiration,
    dealWeight,
    verifiedDealWeight,
    initialPledge: pledge,
    expectedDayReward: null,
    expectedStoragePledge: null,
    powerBaseEpoch: 0n,
    replacedDayReward: null,
    sectorKeyCid: null,
    flags: 0n,
    dailyFee,
  };
}

/** The six sectors builtin-actors' partition and expiration queue tests share. */
export function sixSectors(): SectorOnChainInfo[] {
  return [
    testSector(2n, 1n, 50n, 60n, 1000n, 3000n),
    testSector(3n, 2n, 51n, 61n, 1001n, 4000n),
    testSector(7n, 3n, 52n, 62n, 1002n, 5000n),
    testSector(8n, 4n, 53n, 63n, 1003n, 6000n),
    testSector(11n, 5n, 54n, 64n, 1004n, 7000n),
    testSector(13n, 6n, 55n, 65n, 1005n, 8000n),
  ];
}
