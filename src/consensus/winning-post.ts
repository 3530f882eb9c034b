/**
 * The sectors a winning PoSt proves (Lotus `GetSectorsForWinningPoSt`, filecoin-project/lotus
 * `chain/stmgr`): the miner's active sectors in the lookback state, ordered by number, from which
 * the proofs library draws the challenged ones with the block's winning PoSt randomness. Prover and
 * verifier call the same function, so they agree on the sectors.
 */
import { challengedSectors, commRFromCid, type PoStSector, type RegisteredPoStProof } from '../proofs/index.js';
import type { StateTree } from '../state/index.js';
import type { Address } from '../types/index.js';
import { minerInfo, minerSectors, type SectorOnChainInfo } from '../vm/index.js';

/** Window PoSt V1_1 types 10–14 map onto winning types 0–4 by sector size. */
const POST_TYPES_PER_GENERATION = 5;

export interface WinningPoStChallenge {
  readonly proofType: RegisteredPoStProof;
  readonly minerId: bigint;
  /** The challenged sectors with their on-chain records, in challenge order. */
  readonly sectors: readonly SectorOnChainInfo[];
  readonly postSectors: readonly PoStSector[];
}

export async function winningPoStChallenge(
  lookback: StateTree,
  miner: Address,
  randomness: Uint8Array,
): Promise<WinningPoStChallenge> {
  const proofType = (Number(minerInfo(lookback, miner).windowPoStProofType) %
    POST_TYPES_PER_GENERATION) as RegisteredPoStProof;
  const minerId = lookback.lookupId(miner) ?? miner.id();
  const active = minerSectors(lookback, miner);
  if (active.length === 0) return { proofType, minerId, sectors: [], postSectors: [] };
  const provingSet = active.map((sector) => ({
    sectorNumber: sector.sectorNumber,
    commR: commRFromCid(sector.sealedCid),
  }));
  const chosen = await challengedSectors({ minerId, randomness, provingSet, postProof: proofType });
  const byNumber = new Map(active.map((sector) => [sector.sectorNumber, sector]));
  return {
    proofType,
    minerId,
    sectors: chosen.map((s) => byNumber.get(s.sectorNumber) as SectorOnChainInfo),
    postSectors: chosen,
  };
}
