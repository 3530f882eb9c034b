/**
 * Filecoin's HAMT (filecoin-project/go-hamt-ipld v3 / fvm_ipld_hamt in ref-fvm `ipld/hamt`):
 * sha256-hashed byte keys, buckets of 3, CHAMP-style canonical deletes, so a given set of entries
 * always has the same root CID whatever the order of the writes that produced it.
 *
 * Loaded nodes stay cached; writes mark their path dirty and `flush` encodes only dirty nodes.
 * Values are kept as DAG-CBOR bytes: decoded when read, encoded once when set.
 */
import { hash } from 'node:crypto';
import { decodeCbor } from '../types/cbor.js';
import { CID, cidOfCbor } from '../types/cid.js';
import { bytesEqual, compareBytes } from '../utils/bytes.js';
import { InvalidArgumentError } from '../utils/errors.js';
import { type Block, type Blockstore, getBlock } from './blockstore.js';
import { HamtMaxDepthError, MalformedNodeError } from './errors.js';
import {
  decodeHamtNode,
  emptyHamtNode,
  encodeHamtNode,
  type HamtBucket,
  type HamtFormat,
  HamtLink,
  type HamtNode,
  hasSlot,
  occupySlot,
  pointerIndex,
  type StoredEntry,
  vacateSlot,
} from './hamt-node.js';
import { checkEncodedValue, encodeValue } from './raw-cbor.js';

export type { HamtFormat } from './hamt-node.js';

export interface HamtOptions {
  /** Bits of the key hash consumed per level (1–8); Filecoin actor maps use 5. */
  bitWidth?: number;
  /** `v3` (default) or `legacy` (go-hamt-ipld v1/v2 keyed-union pointers: state trees v0/v1). */
  format?: HamtFormat;
}

export const DEFAULT_HAMT_BIT_WIDTH = 5;
const BUCKET_SIZE = 3;
const DIGEST_BITS = 256;

export class Hamt {
  readonly bitWidth: number;
  readonly format: HamtFormat;
  readonly #store: Blockstore;
  #root: HamtNode;
  #rootCid: CID | undefined;

  private constructor(store: Blockstore, options: HamtOptions, rootCid?: CID) {
    this.bitWidth = options.bitWidth ?? DEFAULT_HAMT_BIT_WIDTH;
    this.format = options.format ?? 'v3';
    if (!Number.isInteger(this.bitWidth) || this.bitWidth < 1 || this.bitWidth > 8) {
      throw new InvalidArgumentError(`HAMT bit width must be an integer from 1 to 8, got ${this.bitWidth}`);
    }
    this.#store = store;
    this.#root = emptyHamtNode(this.bitWidth);
    this.#rootCid = rootCid;
  }

  static create(store: Blockstore, options: HamtOptions = {}): Hamt {
    return new Hamt(store, options);
  }

  /** Opens the HAMT rooted at `root`; the options must match the ones it was written with. */
  static load(store: Blockstore, root: CID, options: HamtOptions = {}): Hamt {
    const hamt = new Hamt(store, options, root);
    hamt.#root = hamt.#loadNode(root);
    return hamt;
  }

  /** The value at `key`, decoded; undefined when absent. */
  get(key: Uint8Array): unknown {
    const bytes = this.getBytes(key);
    return bytes === undefined ? undefined : decodeCbor(bytes, 'HAMT value');
  }

  /** The value at `key` as its DAG-CBOR bytes, for callers that decode it into a type themselves. */
  getBytes(key: Uint8Array): Uint8Array | undefined {
    const digest = keyDigest(key);
    let node = this.#root;
    for (let depth = 0; ; depth++) {
      const slot = this.#slot(digest, depth);
      if (!hasSlot(node, slot)) return undefined;
      const pointer = node.pointers[pointerIndex(node, slot)]!;
      if (pointer instanceof HamtLink) {
        node = this.#child(pointer);
        continue;
      }
      for (let i = 0; i < pointer.length; i++) {
        const entry = pointer[i]!;
        if (bytesEqual(entry[0], key)) return entry[1];
      }
      return undefined;
    }
  }

  has(key: Uint8Array): boolean {
    return this.getBytes(key) !== undefined;
  }

  /** Sets `key` to a DAG-CBOR value. The key bytes are kept, not copied: do not mutate them. */
  set(key: Uint8Array, value: unknown): void {
    this.#set(this.#root, keyDigest(key), 0, [key, encodeValue(value, 'HAMT value')], true);
  }

  /** Sets `key` to a value given as one DAG-CBOR item's bytes (kept, not copied). */
  setBytes(key: Uint8Array, encodedValue: Uint8Array): void {
    checkEncodedValue(encodedValue);
    this.#set(this.#root, keyDigest(key), 0, [key, encodedValue], true);
  }

  /** Sets `key` only when absent; true when it was inserted. */
  setIfAbsent(key: Uint8Array, value: unknown): boolean {
    return this.#set(this.#root, keyDigest(key), 0, [key, encodeValue(value, 'HAMT value')], false);
  }

  /** Removes `key`; true when it was present. */
  delete(key: Uint8Array): boolean {
    return this.#delete(this.#root, keyDigest(key), 0, key);
  }

  /** Entries with decoded values, in canonical order: slot order depth-first, key order in a bucket. */
  *entries(): Generator<[key: Uint8Array, value: unknown]> {
    for (const [key, encodedValue] of this.#entriesOf(this.#root)) yield [key, decodeCbor(encodedValue, 'HAMT value')];
  }

  /** Writes every dirty node (children first, in one `putMany`) and returns the root CID. */
  flush(): CID {
    if (!this.#root.dirty && this.#rootCid !== undefined) return this.#rootCid;
    const blocks: Block[] = [];
    this.#rootCid = this.#writeNode(this.#root, blocks);
    this.#store.putMany(blocks);
    return this.#rootCid;
  }

  #slot(digest: Uint8Array, depth: number): number {
    const width = this.bitWidth;
    const firstBit = depth * width;
    if (firstBit + width > DIGEST_BITS) throw new HamtMaxDepthError(width);
    // Bits are read most-significant first from byte 0; a slot spans at most two bytes.
    const byte = firstBit >>> 3;
    const window = ((digest[byte] as number) << 8) | (digest[byte + 1] ?? 0);
    return (window >>> (16 - (firstBit & 7) - width)) & ((1 << width) - 1);
  }

  #loadNode(cid: CID): HamtNode {
    return decodeHamtNode(getBlock(this.#store, cid, 'HAMT node'), cid, this.format, this.bitWidth);
  }

  #child(link: HamtLink): HamtNode {
    if (link.node === undefined) link.node = this.#loadNode(CID.decode(link.cidBytes!));
    return link.node;
  }

  /** Returns true when the node changed. */
  #set(node: HamtNode, digest: Uint8Array, depth: number, entry: StoredEntry, overwrite: boolean): boolean {
    const slot = this.#slot(digest, depth);
    if (!hasSlot(node, slot)) {
      occupySlot(node, slot, [entry]);
      node.dirty = true;
      return true;
    }
    const index = pointerIndex(node, slot);
    const pointer = node.pointers[index]!;
    if (pointer instanceof HamtLink) {
      const changed = this.#set(this.#child(pointer), digest, depth + 1, entry, overwrite);
      if (changed) node.dirty = true;
      return changed;
    }
    const [key, encodedValue] = entry;
    const existing = pointer.findIndex(([entryKey]) => bytesEqual(entryKey, key));
    if (existing >= 0) {
      if (!overwrite || bytesEqual(pointer[existing]![1], encodedValue)) return false;
      pointer[existing] = entry;
    } else if (pointer.length < BUCKET_SIZE) {
      insertSorted(pointer, entry);
    } else {
      // A full bucket becomes a child node holding its entries and the new one, one level down.
      const child = emptyHamtNode(this.bitWidth);
      for (const moved of [...pointer, entry]) this.#set(child, keyDigest(moved[0]), depth + 1, moved, true);
      node.pointers[index] = new HamtLink(undefined, child);
    }
    node.dirty = true;
    return true;
  }

  /** Returns true when the key was found (and removed). */
  #delete(node: HamtNode, digest: Uint8Array, depth: number, key: Uint8Array): boolean {
    const slot = this.#slot(digest, depth);
    if (!hasSlot(node, slot)) return false;
    const index = pointerIndex(node, slot);
    const pointer = node.pointers[index]!;
    if (pointer instanceof HamtLink) {
      const child = this.#child(pointer);
      if (!this.#delete(child, digest, depth + 1, key)) return false;
      const collapsed = this.#collapse(child, pointer);
      if (collapsed !== undefined) node.pointers[index] = collapsed;
      node.dirty = true;
      return true;
    }
    const existing = pointer.findIndex(([entryKey]) => bytesEqual(entryKey, key));
    if (existing < 0) return false;
    if (pointer.length === 1) vacateSlot(node, slot);
    else pointer.splice(existing, 1);
    node.dirty = true;
    return true;
  }

  /**
   * The canonical form after a delete below: a child with no links and at most a bucket's worth
   * of entries is replaced by one sorted bucket (so the tree matches a fresh insert of the same keys).
   */
  #collapse(child: HamtNode, link: HamtLink): HamtBucket | undefined {
    const pointers = child.pointers;
    if (pointers.length === 0) {
      const cid = link.cidBytes && CID.decode(link.cidBytes);
      throw new MalformedNodeError('HAMT node', cid, 'a child was left empty: the HAMT was not canonical');
    }
    if (pointers.length > BUCKET_SIZE) return undefined;
    const merged: StoredEntry[] = [];
    for (const pointer of pointers) {
      if (pointer instanceof HamtLink) return undefined;
      merged.push(...pointer);
      if (merged.length > BUCKET_SIZE) return undefined;
    }
    return merged.sort((a, b) => compareBytes(a[0], b[0]));
  }

  *#entriesOf(node: HamtNode): Generator<StoredEntry> {
    for (const pointer of node.pointers) {
      if (pointer instanceof HamtLink) yield* this.#entriesOf(this.#child(pointer));
      else yield* pointer;
    }
  }

  #writeNode(node: HamtNode, blocks: Block[]): CID {
    for (const pointer of node.pointers) {
      if (pointer instanceof HamtLink && pointer.node?.dirty)
        pointer.cidBytes = this.#writeNode(pointer.node, blocks).bytes;
    }
    const bytes = encodeHamtNode(node, this.format);
    const cid = cidOfCbor(bytes);
    blocks.push({ cid, bytes });
    node.dirty = false;
    return cid;
  }
}

function keyDigest(key: Uint8Array): Uint8Array {
  return hash('sha256', key, 'buffer');
}

function insertSorted(bucket: HamtBucket, entry: StoredEntry): void {
  let at = 0;
  while (at < bucket.length && compareBytes(bucket[at]![0], entry[0]) < 0) at++;
  bucket.splice(at, 0, entry);
}
