/**
 * builtin-actors `runtime/src/util/multimap.rs` `Multimap`: a HAMT whose values link to AMTs, so one
 * key holds a list that only grows at its end (the power actor's cron queue, epoch → events). Both
 * bit widths are the caller's: a HAMT root does not record its own.
 */
import { Amt, type Blockstore, Hamt } from '../../ipld/index.js';
import type { CborNode } from '../../types/cbor-node.js';
import type { CID } from '../../types/index.js';

export class Multimap {
  readonly #store: Blockstore;
  readonly #outer: Hamt;
  readonly #innerBitWidth: number;

  private constructor(store: Blockstore, outer: Hamt, innerBitWidth: number) {
    this.#store = store;
    this.#outer = outer;
    this.#innerBitWidth = innerBitWidth;
  }

  static create(store: Blockstore, outerBitWidth: number, innerBitWidth: number): Multimap {
    return new Multimap(store, Hamt.create(store, { bitWidth: outerBitWidth }), innerBitWidth);
  }

  static load(store: Blockstore, root: CID, outerBitWidth: number, innerBitWidth: number): Multimap {
    return new Multimap(store, Hamt.load(store, root, { bitWidth: outerBitWidth }), innerBitWidth);
  }

  /** Appends `value` (a CBOR tree) to the list at `key`, creating the list if needed. */
  add(key: Uint8Array, value: CborNode): void {
    const list = this.#list(key) ?? Amt.create(this.#store, { bitWidth: this.#innerBitWidth });
    list.set(list.count, value);
    this.#outer.set(key, list.flush());
  }

  /** The list at `key` in index order; empty when the key is absent. */
  values(key: Uint8Array): CborNode[] {
    const list = this.#list(key);
    if (list === undefined) return [];
    return Array.from(list.entries(), ([, value]) => value as CborNode);
  }

  /** Drops the whole list at `key`; a key that is not there is an error, as in builtin-actors. */
  removeAll(key: Uint8Array): void {
    if (!this.#outer.delete(key)) throw new RangeError('failed to delete from multimap: no such key');
  }

  flush(): CID {
    return this.#outer.flush();
  }

  #list(key: Uint8Array): Amt | undefined {
    const root = this.#outer.get(key) as CID | undefined;
    return root === undefined ? undefined : Amt.load(this.#store, root);
  }
}
