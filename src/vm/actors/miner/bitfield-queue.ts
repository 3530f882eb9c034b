/**
 * A queue of bitfields by quantized epoch (builtin-actors `actors/miner/src/bitfield_queue.rs`): an
 * AMT from epoch to the set of values (sector numbers, partition indices) due then. The miner keeps
 * its pre-commit clean-ups in one and each deadline its partitions' expiration epochs in another.
 */
import type { CID } from 'multiformats/cid';
import { Amt, BitField, type Blockstore, bitFieldKind } from '../../../ipld/index.js';
import type { CborNode } from '../../../types/index.js';
import { orIllegalState } from './abort.js';
import { type QuantSpec, quantizeUp } from './quantize.js';

export class BitFieldQueue {
  readonly #amt: Amt;
  readonly #quant: QuantSpec;

  private constructor(amt: Amt, quant: QuantSpec) {
    this.#amt = amt;
    this.#quant = quant;
  }

  static load(store: Blockstore, root: CID, quant: QuantSpec): BitFieldQueue {
    return new BitFieldQueue(
      orIllegalState('failed to load bitfield queue', () => Amt.load(store, root)),
      quant,
    );
  }

  /** The root of an empty queue of this bit width. */
  static emptyRoot(store: Blockstore, bitWidth: number): CID {
    return Amt.create(store, { bitWidth }).flush();
  }

  #get(epoch: bigint): BitField {
    const node = this.#amt.get(epoch);
    return node === undefined ? BitField.EMPTY : bitFieldKind.fromCbor(node as CborNode, `queue epoch ${epoch}`);
  }

  /** Adds `values` at `rawEpoch` rounded up to the queue's quantization. */
  addToQueue(rawEpoch: bigint, values: BitField): void {
    if (values.isEmpty()) return;
    const epoch = quantizeUp(this.#quant, rawEpoch);
    this.#amt.set(epoch, bitFieldKind.toCbor(this.#get(epoch).union(values), 'queue'));
  }

  addToQueueValues(rawEpoch: bigint, values: Iterable<bigint>): void {
    this.addToQueue(rawEpoch, BitField.of(values));
  }

  /** Adds each value at its epoch, one AMT write per distinct quantized epoch. */
  addManyToQueueValues(entries: Iterable<readonly [rawEpoch: bigint, value: bigint]>): void {
    const byEpoch = new Map<bigint, bigint[]>();
    for (const [rawEpoch, value] of entries) {
      const epoch = quantizeUp(this.#quant, rawEpoch);
      const values = byEpoch.get(epoch);
      if (values === undefined) byEpoch.set(epoch, [value]);
      else values.push(value);
    }
    for (const epoch of [...byEpoch.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      this.addToQueueValues(epoch, byEpoch.get(epoch) ?? []);
    }
  }

  /** Removes `toCut` from every entry and closes the gaps it leaves (BitField `cut`); empty entries go. */
  cut(toCut: BitField): void {
    for (const [epoch, node] of [...this.#amt.entries()]) {
      const cut = bitFieldKind.fromCbor(node as CborNode, `queue epoch ${epoch}`).cut(toCut);
      if (cut.isEmpty()) this.#amt.delete(epoch);
      else this.#amt.set(epoch, bitFieldKind.toCbor(cut, 'queue'));
    }
  }

  /** Removes the entries at or before `until`; returns their union and whether any were removed. */
  popUntil(until: bigint): { popped: BitField; modified: boolean } {
    const keys: bigint[] = [];
    const sets: BitField[] = [];
    for (const [epoch, node] of this.#amt.entries()) {
      if (epoch > until) break;
      keys.push(epoch);
      sets.push(bitFieldKind.fromCbor(node as CborNode, `queue epoch ${epoch}`));
    }
    for (const key of keys) this.#amt.delete(key);
    return { popped: BitField.unionAll(sets), modified: keys.length > 0 };
  }

  /** Entries in epoch order. */
  *entries(): Generator<[epoch: bigint, values: BitField]> {
    for (const [epoch, node] of this.#amt.entries()) {
      yield [epoch, bitFieldKind.fromCbor(node as CborNode, `queue epoch ${epoch}`)];
    }
  }

  flush(): CID {
    return this.#amt.flush();
  }
}
