/**
 * State queries about a miner's proving (filecoin-project/lotus `node/impl/full/state.go`,
 * `chain/actors/builtin/miner/v18.go`, `miner.go` AllPartSectors): its deadlines and their
 * partitions, the sector sets of those partitions (faulty, recovering, live, active), and where and
 * when a sector expires. Partition sets are Lotus JSON bitfields (RLE+ run lengths).
 */
import { BitField, bitFieldKind } from '../../ipld/index.js';
import type { StateTree } from '../../state/index.js';
import { type Address, bigIntSchema, type JsonInteger, toJsonInteger } from '../../types/index.js';
import {
  disputableProofCount,
  minerAllPartitions,
  minerAllSectors,
  minerDeadlines,
  minerPartitions,
  minerSectorExpiration,
  minerSectorLocation,
  type Partition,
} from '../../vm/index.js';
import type { JsonSchema } from '../method.js';
import { uint64Param } from '../params.js';
import { jsonResult } from '../results.js';
import {
  bitFieldResult,
  declareMinerMethod,
  declareMinerMethodWith,
  failCall,
  nullable,
  sectorListResult,
  sectorNumberParam,
} from './state-miner-common.js';

const countSchema = { type: 'integer', minimum: 0 } as const;
const bitFieldSchema = bitFieldKind.schema;

/** A JSON object of the named properties, all of one schema. */
function objectSchema(title: string, names: readonly string[], schema: JsonSchema): JsonSchema {
  return { title, type: 'object', properties: Object.fromEntries(names.map((name) => [name, schema])) };
}

/** The union of one set of every partition of the miner (Lotus `miner.AllPartSectors`). */
function unionOfPartitions(tree: StateTree, miner: Address, set: (partition: Partition) => BitField): BitField {
  return BitField.unionAll(minerAllPartitions(tree, miner).map(set));
}

export interface DeadlineJson {
  PostSubmissions: JsonInteger[];
  DisputableProofCount: number;
  DailyFee: string;
}

export const stateMinerDeadlines = declareMinerMethod({
  name: 'StateMinerDeadlines',
  description:
    "Returns the miner's deadlines in index order: the partitions proven in the current window, how many proofs of the previous window may be disputed, and the deadline's daily fee.",
  result: jsonResult<DeadlineJson[]>('deadlines', 'Lotus api.Deadline for each deadline', {
    type: 'array',
    items: {
      title: 'Deadline',
      type: 'object',
      properties: { PostSubmissions: bitFieldSchema, DisputableProofCount: countSchema, DailyFee: bigIntSchema },
    },
  }),
  read: ({ tree, miner }) =>
    minerDeadlines(tree, miner).map((deadline) => ({
      PostSubmissions: bitFieldKind.toJson(deadline.partitionsPoSted),
      DisputableProofCount: disputableProofCount(tree, deadline),
      DailyFee: deadline.dailyFee.toString(),
    })),
});

export interface PartitionJson {
  AllSectors: JsonInteger[];
  FaultySectors: JsonInteger[];
  RecoveringSectors: JsonInteger[];
  LiveSectors: JsonInteger[];
  ActiveSectors: JsonInteger[];
}

function partitionJson(partition: Partition): PartitionJson {
  return {
    AllSectors: bitFieldKind.toJson(partition.sectors),
    FaultySectors: bitFieldKind.toJson(partition.faults),
    RecoveringSectors: bitFieldKind.toJson(partition.recoveries),
    LiveSectors: bitFieldKind.toJson(partition.liveSectors()),
    ActiveSectors: bitFieldKind.toJson(partition.activeSectors()),
  };
}

const partitionSchema = objectSchema(
  'Partition',
  ['AllSectors', 'FaultySectors', 'RecoveringSectors', 'LiveSectors', 'ActiveSectors'],
  bitFieldSchema,
);

export const stateMinerPartitions = declareMinerMethodWith(uint64Param('deadline', 'the deadline index'), {
  name: 'StateMinerPartitions',
  description:
    "Returns the partitions of one of the miner's deadlines in order, each with its sector sets; null for a deadline without partitions.",
  result: jsonResult<PartitionJson[] | null>(
    'partitions',
    'Lotus api.Partition for each partition, or null',
    nullable({ type: 'array', items: partitionSchema }),
  ),
  read: ({ tree, miner }, index, chain) => {
    // go-state-types `Deadlines.LoadDeadline`, as Lotus wraps it.
    if (index >= chain.params.minerPolicy.wPoStPeriodDeadlines) {
      failCall(`failed to load the deadline: invalid deadline ${index}`);
    }
    const partitions = minerPartitions(tree, miner, index);
    // Lotus appends to a nil slice: no partitions is null.
    return partitions.length === 0 ? null : partitions.map(partitionJson);
  },
});

export const stateMinerFaults = declareMinerMethod({
  name: 'StateMinerFaults',
  description: "Returns the miner's faulty sectors, over all its partitions, as a bitfield.",
  result: bitFieldResult('the faulty sector numbers (RLE+ runs)'),
  read: ({ tree, miner }) => unionOfPartitions(tree, miner, (partition) => partition.faults),
});

export const stateMinerRecoveries = declareMinerMethod({
  name: 'StateMinerRecoveries',
  description:
    "Returns the miner's recovering sectors (faults declared recovered, not yet proven), over all its partitions, as a bitfield.",
  result: bitFieldResult('the recovering sector numbers (RLE+ runs)'),
  read: ({ tree, miner }) => unionOfPartitions(tree, miner, (partition) => partition.recoveries),
});

export const stateMinerActiveSectors = declareMinerMethod({
  name: 'StateMinerActiveSectors',
  description: "Returns the on-chain info of the miner's active sectors: live, not faulty and proven at least once.",
  result: sectorListResult('the active sectors in number order'),
  read: ({ tree, miner }) =>
    minerAllSectors(
      tree,
      miner,
      unionOfPartitions(tree, miner, (partition) => partition.activeSectors()),
    ),
});

export interface MinerSectorsJson {
  Live: JsonInteger;
  Active: JsonInteger;
  Faulty: JsonInteger;
}

export const stateMinerSectorCount = declareMinerMethod({
  name: 'StateMinerSectorCount',
  description:
    "Counts the miner's sectors over its partitions: live (not terminated), active (live, proven, not faulty) and faulty.",
  result: jsonResult<MinerSectorsJson>(
    'sectorCount',
    'Lotus api.MinerSectors',
    objectSchema('MinerSectors', ['Live', 'Active', 'Faulty'], countSchema),
  ),
  read: ({ tree, miner }) => {
    const counts = { live: 0n, active: 0n, faulty: 0n };
    for (const partition of minerAllPartitions(tree, miner)) {
      counts.live += partition.liveSectors().size;
      counts.active += partition.activeSectors().size;
      counts.faulty += partition.faults.size;
    }
    return {
      Live: toJsonInteger(counts.live),
      Active: toJsonInteger(counts.active),
      Faulty: toJsonInteger(counts.faulty),
    };
  },
});

export const stateSectorPartition = declareMinerMethodWith(sectorNumberParam, {
  name: 'StateSectorPartition',
  description: 'Returns the deadline and partition holding a sector, terminated or not; an error when none does.',
  result: jsonResult<{ Deadline: JsonInteger; Partition: JsonInteger }>(
    'location',
    'Lotus SectorLocation',
    objectSchema('SectorLocation', ['Deadline', 'Partition'], countSchema),
  ),
  read: ({ tree, miner }, sectorNumber) => {
    const location = minerSectorLocation(tree, miner, sectorNumber);
    return { Deadline: toJsonInteger(location.deadline), Partition: toJsonInteger(location.partition) };
  },
});

export const stateSectorExpiration = declareMinerMethodWith(sectorNumberParam, {
  name: 'StateSectorExpiration',
  description:
    'Returns when a live sector leaves its partition: OnTime, the end of the deadline at or after its expiration, and Early, when a continued fault terminates it (0 when it is not faulty). An error for a terminated or unknown sector.',
  result: jsonResult<{ OnTime: JsonInteger; Early: JsonInteger }>(
    'expiration',
    'Lotus SectorExpiration',
    objectSchema('SectorExpiration', ['OnTime', 'Early'], { type: 'integer' }),
  ),
  read: ({ tree, miner }, sectorNumber, chain) => {
    const expiration =
      minerSectorExpiration(tree, miner, sectorNumber, chain.params.minerPolicy) ??
      failCall(`failed to find sector ${sectorNumber}`);
    return { OnTime: toJsonInteger(expiration.onTime), Early: toJsonInteger(expiration.early) };
  },
});

export const stateMinerProvingMethods = [
  stateMinerDeadlines,
  stateMinerPartitions,
  stateMinerFaults,
  stateMinerRecoveries,
  stateMinerActiveSectors,
  stateMinerSectorCount,
  stateSectorPartition,
  stateSectorExpiration,
];
