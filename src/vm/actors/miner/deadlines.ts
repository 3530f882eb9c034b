/**
 * The miner's deadlines (builtin-actors `actors/miner/src/deadline_state.rs` `Deadlines`,
 * `deadlines.rs` `find_sector`): one block listing the CIDs of the period's 48 Deadline blocks. A new
 * miner's entries all point at the same empty Deadline; each update writes that deadline anew.
 */
import type { CID } from 'multiformats/cid';
import { type Blockstore, getBlock, putCbor } from '../../../ipld/index.js';
import type { MinerPolicy } from '../../../params/index.js';
import { decodeChainCbor } from '../../../types/cbor-node.js';
import { declareStruct, kinds } from '../../../types/index.js';
import { illegalArgument, illegalState, orIllegalState } from './abort.js';
import { Deadline, deadlineStruct } from './deadline.js';

/** builtin-actors `Deadlines` (go-state-types `builtin/v18/miner` `Deadlines`): `[due [CID × 48]]`. */
export const deadlinesStruct = declareStruct('Deadlines', [
  { key: 'due', json: 'Due', kind: kinds.array(kinds.cid), description: 'Deadline CIDs by index' },
]);

export class Deadlines {
  readonly #due: CID[];

  private constructor(due: readonly CID[]) {
    this.#due = [...due];
  }

  /** Deadlines all pointing at `emptyDeadline` (builtin-actors `Deadlines::new`). */
  static create(policy: MinerPolicy, emptyDeadline: CID): Deadlines {
    return new Deadlines(Array.from({ length: Number(policy.wPoStPeriodDeadlines) }, () => emptyDeadline));
  }

  /** Writes one empty Deadline and the Deadlines block pointing at it; returns the latter's CID. */
  static emptyRoot(store: Blockstore, policy: MinerPolicy): CID {
    const emptyDeadline = putCbor(store, deadlineStruct.toCborNode(Deadline.create(store)));
    return Deadlines.create(policy, emptyDeadline).flush(store);
  }

  static load(store: Blockstore, root: CID): Deadlines {
    const { due } = orIllegalState('failed to load deadlines', () =>
      deadlinesStruct.fromCborNode(decodeChainCbor(getBlock(store, root, 'deadlines'), 'Deadlines')),
    );
    return new Deadlines(due);
  }

  /** How many deadlines there are (the period's). */
  get count(): bigint {
    return BigInt(this.#due.length);
  }

  /** The CIDs of the deadlines, by index. */
  get due(): readonly CID[] {
    return this.#due;
  }

  /**
   * Deadline `index`: USR_ILLEGAL_ARGUMENT past the last or when its block is missing (as
   * builtin-actors `load_deadline`), USR_ILLEGAL_STATE when the block does not decode.
   */
  loadDeadline(store: Blockstore, index: bigint): Deadline {
    const cid = index >= 0n && index < this.count ? this.#due[Number(index)] : undefined;
    if (cid === undefined) return illegalArgument(`invalid deadline index ${index} of ${this.count}`);
    const bytes = store.get(cid) ?? illegalArgument(`no deadline ${index}`);
    return orIllegalState(`failed to load deadline ${index}`, () =>
      Deadline.fromState(deadlineStruct.fromCborNode(decodeChainCbor(bytes, 'Deadline'))),
    );
  }

  /** The deadlines in index order. */
  *entries(store: Blockstore): Generator<[index: bigint, deadline: Deadline]> {
    for (let index = 0n; index < this.count; index++) yield [index, this.loadDeadline(store, index)];
  }

  /** Checks `deadline` (builtin-actors `validate_state`) and stores it as deadline `index`. */
  updateDeadline(store: Blockstore, index: bigint, deadline: Deadline): void {
    if (index < 0n || index >= this.count) illegalState(`invalid deadline ${index}`);
    deadline.validateState();
    this.#due[Number(index)] = putCbor(store, deadlineStruct.toCborNode(deadline));
  }

  /** The deadline and partition holding `sectorNumber`; USR_ILLEGAL_STATE when no partition has it. */
  findSector(store: Blockstore, sectorNumber: bigint): { deadline: bigint; partition: bigint } {
    for (const [deadlineIndex, deadline] of this.entries(store)) {
      for (const [partitionIndex, partition] of deadline.forEachPartition(store)) {
        if (partition.sectors.has(sectorNumber)) return { deadline: deadlineIndex, partition: partitionIndex };
      }
    }
    return illegalState(`sector ${sectorNumber} not due at any deadline`);
  }

  /** Writes the Deadlines block; returns its CID. */
  flush(store: Blockstore): CID {
    return putCbor(store, deadlinesStruct.toCborNode({ due: this.#due }));
  }
}
