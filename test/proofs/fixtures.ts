import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitSector, type PoStSector, precommitSector, presealSector } from '../../src/proofs/index.js';

/** Generating parameters on a cold cache takes minutes (PoRep: tens of minutes on 2 cores). */
export const PARAMETERS_TIMEOUT_MS = 60 * 60_000;
export const PROOF_TIMEOUT_MS = 5 * 60_000;

export interface PresealedMiner {
  minerId: bigint;
  dir: string;
  sectors: PoStSector[];
  remove(): Promise<void>;
}

/** A miner's pre-sealed 2 KiB sectors (numbers 0…count-1) in a temporary directory. */
export async function presealedMiner(minerId: bigint, count: number): Promise<PresealedMiner> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-proofs-'));
  const sectors: PoStSector[] = [];
  for (let sectorNumber = 0n; sectorNumber < BigInt(count); sectorNumber++) {
    const { commR } = await presealSector({ dir, minerId, sectorNumber });
    sectors.push({ sectorNumber, commR });
  }
  return { minerId, dir, sectors, remove: () => rm(dir, { recursive: true, force: true }) };
}

export function flipByte(bytes: Uint8Array, index: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[index] = (copy[index] as number) ^ 0x01;
  return copy;
}

export function filled(byte: number, length = 32): Uint8Array {
  return new Uint8Array(length).fill(byte);
}

export interface SealedSector {
  minerId: bigint;
  sectorNumber: bigint;
  ticket: Uint8Array;
  seed: Uint8Array;
  commR: Uint8Array;
  commD: Uint8Array;
  proof: Uint8Array;
}

/**
 * Seals a committed-capacity 2 KiB sector (a piece of zeros, as Lotus pledges) for real: PC1, PC2,
 * C1, C2 in a temporary directory, which is removed afterwards. Needs the PoRep parameters.
 */
export async function sealCommittedCapacitySector(
  minerId: bigint,
  sectorNumber: bigint,
  randomness: { ticket: Uint8Array; seed: Uint8Array },
): Promise<SealedSector> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-cc-sector-'));
  try {
    const sector = { dir, minerId, sectorNumber };
    const commitments = await precommitSector(sector, { ticket: randomness.ticket, piece: new Uint8Array(2032) });
    const proof = await commitSector(sector, { ...commitments, ...randomness });
    return { minerId, sectorNumber, ...randomness, ...commitments, proof };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
