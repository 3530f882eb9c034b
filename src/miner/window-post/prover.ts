/**
 * Proving one message's partitions: the challenge randomness (beacon, WindowedPoStChallengeSeed at
 * the deadline's challenge, entropy CBOR of the miner's ID address: builtin-actors
 * `actors/miner/src/lib.rs` `verify_windowed_post`), the native window PoSt over the partitions'
 * sectors off the main thread (`src/proofs/post.ts`, which masks `rand[31] &= 0x3f`), and a local
 * verification before anything is sent.
 */
import { DomainSeparationTag } from '../../crypto/index.js';
import {
  commRFromCid,
  generateWindowPost,
  type PoStSector,
  type RegisteredPoStProof,
  verifyWindowPost,
} from '../../proofs/index.js';
import { Address, encodeCbor } from '../../types/index.js';
import type { DeadlineInfo } from '../../vm/actors/miner/deadline-info.js';
import type { WindowPostChainApi } from './chain-api.js';
import type { PartitionProof } from './plan.js';

/** The challenge randomness of a miner's deadline. */
export function challengeRandomness(
  api: Pick<WindowPostChainApi, 'stateGetRandomnessFromBeacon'>,
  minerId: bigint,
  deadline: DeadlineInfo,
): Promise<Uint8Array> {
  return api.stateGetRandomnessFromBeacon(
    DomainSeparationTag.WindowedPoStChallengeSeed,
    deadline.challenge,
    encodeCbor(Address.newId(minerId).bytes),
  );
}

/**
 * The distinct sectors of a message's partitions, by number: stand-ins repeat a sector, and the
 * verifier keys its replicas by sector number (ref-fvm `verify_post`), so each is proven once.
 */
export function provenSectors(batch: readonly PartitionProof[]): PoStSector[] {
  const sectors = new Map<bigint, PoStSector>();
  for (const info of batch.flatMap((partition) => partition.sectors)) {
    sectors.set(info.sectorNumber, { sectorNumber: info.sectorNumber, commR: commRFromCid(info.sealedCid) });
  }
  return [...sectors.values()].sort((a, b) => (a.sectorNumber < b.sectorNumber ? -1 : 1));
}

/** A window PoSt of one message's partitions, verified locally; an error if it does not verify. */
export async function proveBatch(input: {
  sectorDirectory: string;
  minerId: bigint;
  postProof: RegisteredPoStProof;
  randomness: Uint8Array;
  batch: readonly PartitionProof[];
}): Promise<Uint8Array> {
  const request = {
    minerId: input.minerId,
    randomness: input.randomness,
    sectors: provenSectors(input.batch),
    postProof: input.postProof,
  };
  const proof = await generateWindowPost(input.sectorDirectory, request);
  if (!(await verifyWindowPost(request, proof))) {
    throw new Error(
      `the window PoSt of partitions ${input.batch.map((p) => p.index).join(', ')} does not verify locally`,
    );
  }
  return proof;
}
