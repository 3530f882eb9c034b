/**
 * The partition's state invariants, checked against the sectors it holds (builtin-actors
 * `actors/miner/src/testing.rs` `PartitionStateSummary::check_partition_state_invariants`,
 * `check_expiration_queue`, `check_early_termination_queue`): the subsets nest as they must, every
 * power sum matches its sectors, the expiration queue holds each live sector once at its quantized
 * expiration (early only if faulty) with matching sums, and the early-termination queue only holds
 * terminated sectors. It reports every problem rather than stopping at the first, as the state
 * checker of builtin-actors does; tests and the deadline checks use it.
 */
import { BitField, type Blockstore } from '../../../ipld/index.js';
import { BitFieldQueue } from './bitfield-queue.js';
import { ExpirationQueue } from './expiration-queue.js';
import type { Partition } from './partition.js';
import { formatPower, type PowerPair, powerEquals, subPower, ZERO_POWER } from './power-pair.js';
import { NO_QUANTIZATION, type QuantSpec, quantizeUp } from './quantize.js';
import { powerForSectors } from './sectors.js';
import type { SectorOnChainInfo } from './state.js';

export interface PartitionStateSummary {
  readonly allSectors: BitField;
  readonly liveSectors: BitField;
  readonly faultySectors: BitField;
  readonly recoveringSectors: BitField;
  readonly unprovenSectors: BitField;
  readonly terminatedSectors: BitField;
  readonly livePower: PowerPair;
  readonly activePower: PowerPair;
  readonly faultyPower: PowerPair;
  readonly recoveringPower: PowerPair;
  readonly expirationEpochs: readonly bigint[];
  readonly earlyTerminationCount: bigint;
  readonly dailyFee: bigint;
  /** What is wrong; empty when every invariant holds. */
  readonly problems: readonly string[];
}

/** The infos of `numbers` found in `sectors`, and the numbers missing there. */
function selectFromMap(
  sectors: ReadonlyMap<bigint, SectorOnChainInfo>,
  numbers: BitField,
): { found: SectorOnChainInfo[]; missing: bigint[] } {
  const found: SectorOnChainInfo[] = [];
  const missing: bigint[] = [];
  for (const n of numbers.values()) {
    const sector = sectors.get(n);
    if (sector === undefined) missing.push(n);
    else found.push(sector);
  }
  return { found, missing };
}

const list = (bitField: BitField) => `[${[...bitField.values()].join(', ')}]`;

export function checkPartitionStateInvariants(
  partition: Partition,
  store: Blockstore,
  quant: QuantSpec,
  sectorSize: bigint,
  sectors: ReadonlyMap<bigint, SectorOnChainInfo>,
): PartitionStateSummary {
  const problems: string[] = [];
  const require = (condition: boolean, message: string) => {
    if (!condition) problems.push(message);
  };
  const live = partition.liveSectors();
  const active = partition.activeSectors();
  require(live.containsAll(active), 'live does not contain active');
  require(live.containsAll(partition.faults), 'live does not contain faults');
  require(live.containsAll(partition.unproven), 'live does not contain unproven');
  require(!active.containsAny(partition.faults), 'active includes faults');
  require(!active.containsAny(partition.unproven), 'active includes unproven');
  require(partition.faults.containsAll(partition.recoveries), 'faults do not contain recoveries');
  require(!live.containsAny(partition.terminated), 'live includes terminations');
  require(!partition.faults.containsAny(partition.unproven), 'unproven includes faults');
  require(partition.sectors.containsAll(partition.terminated), 'sectors do not contain terminations');

  /** The power of `numbers`, checked against the partition's sum `recorded`. */
  const checkPower = (name: string, numbers: BitField, recorded: PowerPair): PowerPair => {
    const { found, missing } = selectFromMap(sectors, numbers);
    if (missing.length > 0) {
      problems.push(`${name} sectors missing from all sectors: ${missing.join(', ')}`);
      return ZERO_POWER;
    }
    const power = powerForSectors(sectorSize, found);
    require(powerEquals(recorded, power), `${name} power was ${formatPower(recorded)}, expected ${formatPower(power)}`);
    return power;
  };
  const livePower = checkPower('live', live, partition.livePower);
  const unprovenPower = checkPower('unproven', partition.unproven, partition.unprovenPower);
  const faultyPower = checkPower('faulty', partition.faults, partition.faultyPower);
  checkPower('recovering', partition.recoveries, partition.recoveringPower);
  const activePower = subPower(subPower(livePower, faultyPower), unprovenPower);
  require(powerEquals(
    partition.activePower(),
    activePower,
  ), `active power was ${formatPower(partition.activePower())}, expected ${formatPower(activePower)}`);
  const liveSectors = new Map(selectFromMap(sectors, live).found.map((sector) => [sector.sectorNumber, sector]));
  const dailyFee = [...liveSectors.values()].reduce((sum, sector) => sum + sector.dailyFee, 0n);

  const expirationEpochs: bigint[] = [];
  const seen = new Set<bigint>();
  const queued: BitField[] = [];
  let feeDeductions = 0n;
  for (const [epoch, set] of ExpirationQueue.load(store, partition.expirationsEpochs, quant).entries()) {
    const at = (message: string) => `expiration epoch ${epoch}: ${message}`;
    require(quantizeUp(quant, epoch) === epoch, at(`key is not quantized, expected ${quantizeUp(quant, epoch)}`));
    expirationEpochs.push(epoch);
    let onTimePledge = 0n;
    let fee = 0n;
    for (const n of set.onTimeSectors.values()) {
      require(!seen.has(n), at(`sector ${n} in expiration queue twice`));
      seen.add(n);
      const sector = liveSectors.get(n);
      if (sector === undefined) {
        problems.push(at(`on time expiration sector ${n} isn't live`));
        continue;
      }
      const target = quantizeUp(quant, sector.expiration);
      require(epoch === target, at(`invalid expiration ${epoch} for sector ${n}, expected ${target}`));
      onTimePledge += sector.initialPledge;
      fee += sector.dailyFee;
    }
    for (const n of set.earlySectors.values()) {
      require(!seen.has(n), at(`sector ${n} in expiration queue twice`));
      seen.add(n);
      require(partition.faults.has(n), at(`sector ${n} expiring early but not faulty`));
      const sector = liveSectors.get(n);
      if (sector === undefined) {
        problems.push(at(`early expiration sector ${n} isn't live`));
        continue;
      }
      const target = quantizeUp(quant, sector.expiration);
      require(epoch < target, at(`invalid early expiration ${epoch} for sector ${n}, expected < ${target}`));
      fee += sector.dailyFee;
    }
    const all = set.onTimeSectors.union(set.earlySectors);
    const activeInSet = selectFromMap(liveSectors, all.subtract(partition.faults));
    const faultyInSet = selectFromMap(liveSectors, all.intersect(partition.faults));
    require(activeInSet.missing.length === 0, at(`active sectors missing from live: ${activeInSet.missing}`));
    require(faultyInSet.missing.length === 0, at(`faulty sectors missing from live: ${faultyInSet.missing}`));
    const activeSum = powerForSectors(sectorSize, activeInSet.found);
    const faultySum = powerForSectors(sectorSize, faultyInSet.found);
    require(powerEquals(set.activePower, activeSum), at(
      `active power ${formatPower(set.activePower)} != ${formatPower(activeSum)}`,
    ));
    require(powerEquals(set.faultyPower, faultySum), at(
      `faulty power ${formatPower(set.faultyPower)} != ${formatPower(faultySum)}`,
    ));
    require(set.onTimePledge === onTimePledge, at(`on time pledge ${set.onTimePledge} != ${onTimePledge}`));
    require(set.feeDeduction === fee, at(`fee deduction ${set.feeDeduction} != ${fee}`));
    queued.push(all);
    feeDeductions += set.feeDeduction;
  }
  const queuedSectors = BitField.unionAll(queued);
  require(live.equals(queuedSectors), `live ${list(live)} does not equal all expirations ${list(queuedSectors)}`);
  require(feeDeductions === dailyFee, `total fee deductions ${feeDeductions} do not equal daily fee ${dailyFee}`);

  const terminatedSeen = new Set<bigint>();
  for (const [epoch, numbers] of BitFieldQueue.load(store, partition.earlyTerminated, NO_QUANTIZATION).entries()) {
    for (const n of numbers.values()) {
      require(!terminatedSeen.has(n), `early termination epoch ${epoch}: sector ${n} in early termination queue twice`);
      terminatedSeen.add(n);
    }
  }
  require(partition.terminated.containsAll(
    BitField.of(terminatedSeen),
  ), 'terminated sectors missing early termination entry');

  return {
    allSectors: partition.sectors,
    liveSectors: live,
    faultySectors: partition.faults,
    recoveringSectors: partition.recoveries,
    unprovenSectors: partition.unproven,
    terminatedSectors: partition.terminated,
    livePower,
    activePower,
    faultyPower: partition.faultyPower,
    recoveringPower: partition.recoveringPower,
    expirationEpochs,
    earlyTerminationCount: BigInt(terminatedSeen.size),
    dailyFee,
    problems,
  };
}
