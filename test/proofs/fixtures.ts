import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PoStSector, presealSector } from '../../src/proofs/index.js';

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
