/**
 * A contract's storage slots: a KAMT from U256 to U256 with the EVM actor's parameters
 * (builtin-actors `actors/evm/src/interpreter/system.rs`, `KAMT_CONFIG` and `StateHashAlgorithm`:
 * the key routes by its own 32 big-endian bytes). Writing zero deletes the slot.
 */
import type { CID } from 'multiformats/cid';
import { type Blockstore, Kamt, type KamtConfig, type KamtKeyCodec } from '../../../ipld/index.js';
import { RawCborReader } from '../../../ipld/raw-cbor.js';
import { InvalidArgumentError } from '../../../utils/errors.js';
import { decodeU256, encodeU256, u256FromBytes, u256ToBytes32 } from './u256.js';

export const EVM_KAMT_CONFIG: KamtConfig = { bitWidth: 5, minDataDepth: 0, maxArrayWidth: 1 };

/** A U256 key's routing bits: its 32 big-endian bytes. */
export const u256KeyCodec: KamtKeyCodec = {
  hashedKey(encodedKey) {
    const reader = new RawCborReader(encodedKey, (reason) => new InvalidArgumentError(`KAMT U256 key: ${reason}`));
    return u256ToBytes32(u256FromBytes(reader.byteString()));
  },
};

export class EvmStorage {
  readonly #kamt: Kamt;

  private constructor(kamt: Kamt) {
    this.#kamt = kamt;
  }

  static create(store: Blockstore): EvmStorage {
    return new EvmStorage(Kamt.create(store, EVM_KAMT_CONFIG, u256KeyCodec));
  }

  static load(store: Blockstore, root: CID): EvmStorage {
    return new EvmStorage(Kamt.load(store, root, EVM_KAMT_CONFIG, u256KeyCodec));
  }

  get isEmpty(): boolean {
    return this.#kamt.isEmpty;
  }

  get(key: bigint): bigint {
    const value = this.#kamt.get(encodeU256(key));
    return value === undefined ? 0n : decodeU256(value, 'storage value');
  }

  /** Sets a slot (zero deletes it); true when the storage changed. */
  set(key: bigint, value: bigint): boolean {
    if (value === 0n) return this.#kamt.delete(encodeU256(key));
    return this.#kamt.set(encodeU256(key), encodeU256(value));
  }

  *entries(): Generator<[key: bigint, value: bigint]> {
    for (const [key, value] of this.#kamt.entries()) yield [decodeU256(key), decodeU256(value)];
  }

  flush(): CID {
    return this.#kamt.flush();
  }
}
