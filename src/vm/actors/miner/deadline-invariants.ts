/**
 * A deadline's state invariants, checked against the sectors it holds (builtin-actors
 * `actors/miner/src/testing.rs` `check_deadline_state_invariants`): every partition's own invariants
 * (partition-invariants.ts), partitions numbered without gaps and sharing no sector, the memoized
 * counts and power sums equal to their partitions', snapshots free of recoveries and unproven
 * sectors, proofs only of partitions in the snapshot, every partition queued at each epoch it has
 * expirations, the early terminations marking exactly the partitions that have some, and the daily
 * fee equal to its live sectors'. Every problem is reported, as builtin-actors' checker does.
 */
import { Amt, BitField, type Blockstore } from '../../../ipld/index.js';
import type { CborNode } from '../../../types/cbor-node.js';
import { BitFieldQueue } from './bitfield-queue.js';
import { type Deadline, windowedPoStStruct } from './deadline.js';
import { Partition } from './partition.js';
import { checkPartitionStateInvariants, type PartitionStateSummary } from './partition-invariants.js';
import { addPower, formatPower, isZeroPower, type PowerPair, powerEquals, ZERO_POWER } from './power-pair.js';
import type { QuantSpec } from './quantize.js';
import type { SectorOnChainInfo } from './state.js';

/** The partitions' summaries merged (builtin-actors `DeadlineStateSummary`). */
export type DeadlineStateSummary = Omit<
  PartitionStateSummary,
  'recoveringPower' | 'expirationEpochs' | 'earlyTerminationCount'
>;

function partitionsOf(store: Blockstore, root: Deadline['partitions']): [bigint, Partition][] {
  return [...Amt.load(store, root).entries()].map(([index, node]) => [index, Partition.fromCborNode(node as CborNode)]);
}

export function checkDeadlineStateInvariants(
  deadline: Deadline,
  store: Blockstore,
  quant: QuantSpec,
  sectorSize: bigint,
  sectors: ReadonlyMap<bigint, SectorOnChainInfo>,
): DeadlineStateSummary {
  const problems: string[] = [];
  const require = (condition: boolean, message: string) => {
    if (!condition) problems.push(message);
  };

  let allSectors = BitField.EMPTY;
  const live: BitField[] = [];
  const faulty: BitField[] = [];
  const recovering: BitField[] = [];
  const unproven: BitField[] = [];
  const terminated: BitField[] = [];
  let livePower: PowerPair = ZERO_POWER;
  let activePower: PowerPair = ZERO_POWER;
  let faultyPower: PowerPair = ZERO_POWER;
  let dailyFee = 0n;
  let partitionCount = 0n;
  const partitionsByExpiration = new Map<bigint, bigint[]>();
  const withEarlyTerminations: bigint[] = [];
  for (const [index, partition] of partitionsOf(store, deadline.partitions)) {
    require(index === partitionCount, `non-sequential partitions, expected index ${partitionCount}, found ${index}`);
    partitionCount++;
    const summary = checkPartitionStateInvariants(partition, store, quant, sectorSize, sectors);
    problems.push(...summary.problems.map((problem) => `partition ${index}: ${problem}`));
    require(!allSectors.containsAny(summary.allSectors), `duplicate sector in partition ${index}`);
    for (const epoch of summary.expirationEpochs) {
      partitionsByExpiration.set(epoch, [...(partitionsByExpiration.get(epoch) ?? []), index]);
    }
    if (summary.earlyTerminationCount > 0n) withEarlyTerminations.push(index);
    allSectors = allSectors.union(summary.allSectors);
    live.push(summary.liveSectors);
    faulty.push(summary.faultySectors);
    recovering.push(summary.recoveringSectors);
    unproven.push(summary.unprovenSectors);
    terminated.push(summary.terminatedSectors);
    livePower = addPower(livePower, summary.livePower);
    activePower = addPower(activePower, summary.activePower);
    faultyPower = addPower(faultyPower, summary.faultyPower);
    dailyFee += summary.dailyFee;
  }

  const lastProven = deadline.partitionsPoSted.last();
  if (lastProven !== undefined) {
    require(partitionCount > lastProven, `expected at least ${lastProven + 1n} partitions, found ${partitionCount}`);
    require(deadline.liveSectors > 0n, 'expected at least one live sector when partitions have been proven');
  }

  // The snapshot is taken after recoveries and unproven sectors were dealt with.
  const snapshot = new Map(partitionsOf(store, deadline.partitionsSnapshot));
  for (const [index, partition] of snapshot) {
    require(isZeroPower(partition.recoveringPower), `partition snapshot ${index}: has recovering power`);
    require(partition.recoveries.isEmpty(), `partition snapshot ${index}: has pending recoveries`);
    require(isZeroPower(partition.unprovenPower), `partition snapshot ${index}: has unproven power`);
    require(partition.unproven.isEmpty(), `partition snapshot ${index}: has unproven sectors`);
  }
  for (const [, node] of Amt.load(store, deadline.optimisticPoStSubmissionsSnapshot).entries()) {
    for (const index of windowedPoStStruct.fromCborNode(node as CborNode).partitions.values()) {
      require(snapshot.has(index), `failed to find partition ${index} for recorded proof in the snapshot`);
    }
  }

  const liveSectors = BitField.unionAll(live);
  require(deadline.liveSectors ===
    liveSectors.size, `deadline live sectors ${deadline.liveSectors} != partitions count ${liveSectors.size}`);
  require(deadline.totalSectors ===
    allSectors.size, `deadline total sectors ${deadline.totalSectors} != partitions count ${allSectors.size}`);
  require(powerEquals(
    deadline.faultyPower,
    faultyPower,
  ), `deadline faulty power ${formatPower(deadline.faultyPower)} != partitions total ${formatPower(faultyPower)}`);
  require(powerEquals(
    deadline.livePower,
    livePower,
  ), `deadline live power ${formatPower(deadline.livePower)} != partitions total ${formatPower(livePower)}`);

  // The queue may name more partitions than have expirations: entries are never removed early.
  const queue = new Map(BitFieldQueue.load(store, deadline.expirationsEpochs, quant).entries());
  for (const [epoch, indices] of partitionsByExpiration) {
    const queued = queue.get(epoch);
    if (queued === undefined) {
      problems.push(`expected to find partition expiration entry at epoch ${epoch}`);
      continue;
    }
    for (const index of indices) {
      require(queued.has(
        index,
      ), `expected partition ${index} to be present in deadline expiration queue at epoch ${epoch}`);
    }
  }
  require(deadline.earlyTerminations.equals(
    BitField.of(withEarlyTerminations),
  ), "deadline early terminations doesn't match expected partitions");
  let liveFee = 0n;
  for (const n of liveSectors.values()) liveFee += sectors.get(n)?.dailyFee ?? 0n;
  require(deadline.dailyFee ===
    liveFee, `deadline daily fee ${deadline.dailyFee} != sum of live sectors daily fees ${liveFee}`);

  return {
    allSectors,
    liveSectors,
    faultySectors: BitField.unionAll(faulty),
    recoveringSectors: BitField.unionAll(recovering),
    unprovenSectors: BitField.unionAll(unproven),
    terminatedSectors: BitField.unionAll(terminated),
    livePower,
    activePower,
    faultyPower,
    dailyFee,
    problems,
  };
}
