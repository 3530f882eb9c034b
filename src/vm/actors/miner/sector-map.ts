/**
 * Sectors grouped by where they live (builtin-actors `actors/miner/src/sector_map.rs`): declarations
 * of faults, recoveries, terminations and extensions name sectors per deadline and partition, and
 * the deadline and partition code walks them in ascending index order, as builtin-actors' BTreeMaps do.
 */
import { BitField } from '../../../ipld/index.js';
import type { MinerPolicy } from '../../../params/index.js';
import { illegalArgument } from './abort.js';
import { ADDRESSED_PARTITIONS_MAX, ADDRESSED_SECTORS_MAX } from './policy.js';

const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Partition index → sector numbers. */
export class PartitionSectorMap {
  readonly #byPartition = new Map<bigint, BitField>();

  /** Adds `sectorNumbers` to the partition's set. */
  add(partitionIndex: bigint, sectorNumbers: BitField): void {
    const old = this.#byPartition.get(partitionIndex);
    this.#byPartition.set(partitionIndex, old === undefined ? sectorNumbers : old.union(sectorNumbers));
  }

  addValues(partitionIndex: bigint, sectorNumbers: Iterable<bigint>): void {
    this.add(partitionIndex, BitField.of(sectorNumbers));
  }

  /** The partitions and the sectors in the map. */
  count(): { partitions: bigint; sectors: bigint } {
    let sectors = 0n;
    for (const set of this.#byPartition.values()) sectors += set.size;
    return { partitions: BigInt(this.#byPartition.size), sectors };
  }

  /** Partition indices, ascending. */
  partitions(): bigint[] {
    return [...this.#byPartition.keys()].sort(ascending);
  }

  /** `[partition index, sector numbers]`, by ascending partition index. */
  *entries(): Generator<[partitionIndex: bigint, sectorNumbers: BitField]> {
    for (const index of this.partitions()) yield [index, this.#byPartition.get(index)!];
  }

  get size(): number {
    return this.#byPartition.size;
  }

  isEmpty(): boolean {
    return this.#byPartition.size === 0;
  }
}

/** Deadline index → partition index → sector numbers. */
export class DeadlineSectorMap {
  readonly #byDeadline = new Map<bigint, PartitionSectorMap>();

  /**
   * The sectors of a message's fault, recovery or termination declarations, within the per-message
   * limits (AddressedPartitionsMax, AddressedSectorsMax); USR_ILLEGAL_ARGUMENT otherwise.
   */
  static ofDeclarations(
    policy: MinerPolicy,
    declarations: Iterable<{ readonly deadline: bigint; readonly partition: bigint; readonly sectors: BitField }>,
  ): DeadlineSectorMap {
    const map = new DeadlineSectorMap();
    for (const d of declarations) map.add(policy, d.deadline, d.partition, d.sectors);
    map.check(ADDRESSED_PARTITIONS_MAX, ADDRESSED_SECTORS_MAX);
    return map;
  }

  /** Adds sectors at a deadline and partition; USR_ILLEGAL_ARGUMENT for a deadline past the period's last. */
  add(policy: MinerPolicy, deadlineIndex: bigint, partitionIndex: bigint, sectorNumbers: BitField): void {
    if (deadlineIndex < 0n || deadlineIndex >= policy.wPoStPeriodDeadlines)
      illegalArgument(`invalid deadline ${deadlineIndex}`);
    let partitions = this.#byDeadline.get(deadlineIndex);
    if (partitions === undefined) {
      partitions = new PartitionSectorMap();
      this.#byDeadline.set(deadlineIndex, partitions);
    }
    partitions.add(partitionIndex, sectorNumbers);
  }

  addValues(policy: MinerPolicy, deadlineIndex: bigint, partitionIndex: bigint, sectorNumbers: Iterable<bigint>): void {
    this.add(policy, deadlineIndex, partitionIndex, BitField.of(sectorNumbers));
  }

  count(): { partitions: bigint; sectors: bigint } {
    let partitions = 0n;
    let sectors = 0n;
    for (const map of this.#byDeadline.values()) {
      const counted = map.count();
      partitions += counted.partitions;
      sectors += counted.sectors;
    }
    return { partitions, sectors };
  }

  /**
   * USR_ILLEGAL_ARGUMENT when the map addresses more partitions or sectors than one message may
   * (builtin-actors `check`, with AddressedPartitionsMax and AddressedSectorsMax).
   */
  check(maxPartitions: bigint, maxSectors: bigint): void {
    const { partitions, sectors } = this.count();
    if (partitions > maxPartitions) illegalArgument(`too many partitions ${partitions}, max ${maxPartitions}`);
    if (sectors > maxSectors) illegalArgument(`too many sectors ${sectors}, max ${maxSectors}`);
  }

  /** Deadline indices, ascending. */
  deadlines(): bigint[] {
    return [...this.#byDeadline.keys()].sort(ascending);
  }

  /** `[deadline index, its partitions]`, by ascending deadline index. */
  *entries(): Generator<[deadlineIndex: bigint, partitions: PartitionSectorMap]> {
    for (const index of this.deadlines()) yield [index, this.#byDeadline.get(index)!];
  }
}
