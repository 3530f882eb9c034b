/**
 * Which sectors the miner can prove from its storage: the sealed replica and the cache directory
 * of each, in lotus-seed's layout that the native prover reads (`<dir>/sealed/s-t0<miner>-<n>`,
 * `<dir>/cache/s-t0<miner>-<n>/`; Lotus `storage/paths`). Lotus's `CheckProvable` also reads a
 * few challenged nodes; a missing, unreadable or truncated replica is what this catches.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BitField } from '../../ipld/index.js';

/** The sealed replica and cache directory of a sector. */
export function sectorFiles(dir: string, minerId: bigint, sectorNumber: bigint): { sealed: string; cache: string } {
  const name = `s-t0${minerId}-${sectorNumber}`;
  return { sealed: join(dir, 'sealed', name), cache: join(dir, 'cache', name) };
}

async function provable(dir: string, minerId: bigint, sectorNumber: bigint, sectorSize: bigint): Promise<boolean> {
  const files = sectorFiles(dir, minerId, sectorNumber);
  try {
    await access(files.sealed, constants.R_OK);
    await access(files.cache, constants.R_OK | constants.X_OK);
    const [sealed, cache] = await Promise.all([stat(files.sealed), stat(files.cache)]);
    return sealed.isFile() && BigInt(sealed.size) === sectorSize && cache.isDirectory();
  } catch {
    return false;
  }
}

/** The sectors of `sectors` whose replica and cache are readable under `dir`. */
export async function readableSectors(
  dir: string,
  minerId: bigint,
  sectorSize: bigint,
  sectors: BitField,
): Promise<BitField> {
  const numbers = [...sectors.values()];
  const checks = await Promise.all(numbers.map((n) => provable(dir, minerId, n, sectorSize)));
  return BitField.of(numbers.filter((_, i) => checks[i]));
}
