/**
 * The miner's sectors: an AMT (bit width 5) of SectorOnChainInfo by sector number
 * (builtin-actors `actors/miner/src/sectors.rs`). A sector that should be there and is not is
 * USR_NOT_FOUND; a store that cannot be read is USR_ILLEGAL_STATE, as builtin-actors maps them.
 */
import type { CID } from 'multiformats/cid';
import { Amt, type BitField, type Blockstore } from '../../../ipld/index.js';
import type { CborNode } from '../../../types/cbor-node.js';
import { illegalState, notFound, orIllegalState } from './abort.js';
import { qaPowerForWeight } from './policy.js';
import { addPower, type PowerPair, ZERO_POWER } from './power-pair.js';
import { SECTORS_AMT_BITWIDTH, type SectorOnChainInfo, sectorOnChainInfoStruct } from './state.js';

/** builtin-actors `MAX_SECTOR_NUMBER` (runtime/src/runtime/policy.rs): i64::MAX. */
export const MAX_SECTOR_NUMBER = (1n << 63n) - 1n;

export class Sectors {
  readonly #amt: Amt;

  private constructor(amt: Amt) {
    this.#amt = amt;
  }

  static load(store: Blockstore, root: CID): Sectors {
    return new Sectors(orIllegalState('failed to load sectors', () => Amt.load(store, root)));
  }

  /** The root of an empty sectors AMT. */
  static emptyRoot(store: Blockstore): CID {
    return Amt.create(store, { bitWidth: SECTORS_AMT_BITWIDTH }).flush();
  }

  get count(): number {
    return this.#amt.count;
  }

  get(sectorNumber: bigint): SectorOnChainInfo | undefined {
    const node = orIllegalState(`failed to get sector ${sectorNumber}`, () => this.#amt.get(sectorNumber));
    if (node === undefined) return undefined;
    return orIllegalState(`failed to decode sector ${sectorNumber}`, () =>
      sectorOnChainInfoStruct.fromCborNode(node as CborNode, `sector ${sectorNumber}`),
    );
  }

  mustGet(sectorNumber: bigint): SectorOnChainInfo {
    return this.get(sectorNumber) ?? notFound(`sector ${sectorNumber} not found`);
  }

  /** The infos of `sectorNumbers`, in ascending order; USR_NOT_FOUND naming the first one missing. */
  loadSectors(sectorNumbers: BitField): SectorOnChainInfo[] {
    const infos: SectorOnChainInfo[] = [];
    for (const sectorNumber of sectorNumbers.values()) {
      infos.push(this.get(sectorNumber) ?? notFound(`sector not found: ${sectorNumber}`));
    }
    return infos;
  }

  /** Writes `infos` by their sector numbers, replacing what was there. */
  store(infos: Iterable<SectorOnChainInfo>): void {
    for (const info of infos) {
      if (info.sectorNumber > MAX_SECTOR_NUMBER) illegalState(`sector number ${info.sectorNumber} out of range`);
      this.#amt.set(info.sectorNumber, sectorOnChainInfoStruct.toCborNode(info));
    }
  }

  deleteSectors(sectorNumbers: BitField): void {
    for (const sectorNumber of sectorNumbers.values()) {
      if (!this.#amt.delete(sectorNumber)) notFound(`sector not found: ${sectorNumber}`);
    }
  }

  /**
   * The infos of the sectors a window PoSt proves: a sector in `expectedFaults` is replaced by the
   * first one that is not (builtin-actors `load_for_proof`); none when every sector is faulty.
   */
  loadForProof(provenSectors: BitField, expectedFaults: BitField): SectorOnChainInfo[] {
    const standIn = provenSectors.subtract(expectedFaults).first();
    return standIn === undefined ? [] : this.loadWithFaultMax(provenSectors, expectedFaults, standIn);
  }

  /** The infos of `sectors`, with `faultStandIn`'s info in place of each one in `faults`. */
  loadWithFaultMax(sectors: BitField, faults: BitField, faultStandIn: bigint): SectorOnChainInfo[] {
    const standIn = this.mustGet(faultStandIn);
    return Array.from(sectors.values(), (n) => (faults.has(n) ? standIn : this.mustGet(n)));
  }

  flush(): CID {
    return this.#amt.flush();
  }
}

/** The infos among `sectors` whose numbers are in `field` (builtin-actors `select_sectors`). */
export function selectSectors(sectors: readonly SectorOnChainInfo[], field: BitField): SectorOnChainInfo[] {
  const found = new Set<bigint>();
  const selected = sectors.filter((sector) => {
    const wanted = field.has(sector.sectorNumber) && !found.has(sector.sectorNumber);
    if (wanted) found.add(sector.sectorNumber);
    return wanted;
  });
  const missing = field.size - BigInt(found.size);
  if (missing > 0n) illegalState(`failed to find ${missing} expected sectors`);
  return selected;
}

/** A sector's quality-adjusted power over its life from its power base epoch (builtin-actors `qa_power_for_sector`). */
export function qaPowerForSector(sectorSize: bigint, sector: SectorOnChainInfo): bigint {
  return qaPowerForWeight(sectorSize, sector.expiration - sector.powerBaseEpoch, sector.verifiedDealWeight);
}

/** builtin-actors `power_for_sector`: the sector size as raw power and its quality-adjusted power. */
export function powerForSector(sectorSize: bigint, sector: SectorOnChainInfo): PowerPair {
  return { raw: sectorSize, qa: qaPowerForSector(sectorSize, sector) };
}

/** builtin-actors `power_for_sectors`: the sum of `powerForSector`. */
export function powerForSectors(sectorSize: bigint, sectors: readonly SectorOnChainInfo[]): PowerPair {
  return sectors.reduce((sum, sector) => addPower(sum, powerForSector(sectorSize, sector)), ZERO_POWER);
}
