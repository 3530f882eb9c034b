/**
 * Filecoin's KAMT (filecoin-project/ref-fvm `ipld/kamt`): a HAMT whose keys are used as their own
 * hash (no hashing, so neighbouring keys share a path) and whose links may carry an *extension*, a
 * run of key bits skipped in one hop, so that long common prefixes (Solidity's contiguous storage
 * slots) do not build a tower of one-child nodes. The EVM actor keeps contract storage in one
 * (builtin-actors `actors/evm/src/interpreter/system.rs`, `bit_width 5, min_data_depth 0,
 * max_array_width 1`).
 *
 * Node layout (byte-exact with ref-fvm): `[bitfield, [pointer…]]`, the bitfield the minimal
 * big-endian bytes of a 256-bit set of occupied slots; a pointer is `{"v": [[key, value]…]}` (a
 * bucket sorted by key) or `{"l": [cid, extension bit length, extension path bytes]}`. The shape
 * is canonical: deletes undo the splits inserts made, so a set of entries has one root CID.
 *
 * Entries are held as their encoded CBOR key and value; the 32-byte hashed key (the key itself
 * here) routes them.
 */
import { CID, cidOfCbor } from '../types/cid.js';
import { bytesEqual, compareBytes } from '../utils/bytes.js';
import { InvalidArgumentError } from '../utils/errors.js';
import { type Block, type Blockstore, getBlock } from './blockstore.js';
import { MalformedNodeError } from './errors.js';
import { checkEncodedValue, RawCborReader, RawCborWriter } from './raw-cbor.js';

/** ref-fvm `fvm_ipld_kamt::Config`. */
export interface KamtConfig {
  /** Key bits consumed per level (1–8). */
  readonly bitWidth: number;
  /** Levels above this hold only links (the root is depth 0). */
  readonly minDataDepth: number;
  /** Entries per bucket before it splits into a child node. */
  readonly maxArrayWidth: number;
}

/** How keys are written in buckets and turned into the fixed-length bit string that routes them. */
export interface KamtKeyCodec {
  /** The key's routing bits (ref-fvm `AsHashedKey`); `KAMT_KEY_BYTES` long. */
  hashedKey(encodedKey: Uint8Array): Uint8Array;
}

/** ref-fvm's default `N`: hashed keys of 32 bytes. */
export const KAMT_KEY_BYTES = 32;
const KEY_BITS = KAMT_KEY_BYTES * 8;
const DAG_CBOR = 0x71;

/** A bucket entry: routing key, then the key and value as encoded CBOR items. */
interface Entry {
  readonly hashed: Uint8Array;
  readonly key: Uint8Array;
  value: Uint8Array;
}

/** A run of key bits skipped by a link (ref-fvm `ext.rs`): `length` bits, MSB first, in `path`. */
interface Extension {
  readonly length: number;
  readonly path: Uint8Array;
}

const NO_EXTENSION: Extension = { length: 0, path: new Uint8Array(0) };

/** A child node: its CID once written, the node once loaded or created. Dirty when `cid` is unset. */
interface Link {
  cid: CID | undefined;
  node: KamtNode | undefined;
  ext: Extension;
}

type Pointer = { values: Entry[] } | { link: Link };

interface KamtNode {
  /** Occupied slots, eight 32-bit words, word 0 holding slots 0–31. */
  readonly bitfield: Uint32Array;
  readonly pointers: Pointer[];
}

/** Reads key bits MSB first (ref-fvm `hash_bits.rs`); the last read may return fewer bits. */
class HashBits {
  constructor(
    readonly bytes: Uint8Array,
    readonly length: number,
    public consumed = 0,
  ) {}

  next(count: number): number {
    if (this.consumed >= this.length) throw new InvalidArgumentError('KAMT: key bits exhausted (maximum depth)');
    const take = Math.min(count, this.length - this.consumed);
    let out = 0;
    for (let i = 0; i < take; i++) {
      const bit = this.consumed + i;
      out = (out << 1) | (((this.bytes[bit >>> 3] as number) >>> (7 - (bit & 7))) & 1);
    }
    this.consumed += take;
    return out;
  }
}

/** ref-fvm `ExtensionBuilder`: packs chunks of bits MSB first. */
class ExtensionBuilder {
  #written = 0;
  #out = 0;
  readonly #path: number[] = [];

  add(bits: number, value: number): void {
    const used = this.#written % 8;
    if (used + bits > 8) {
      const carry = used + bits - 8;
      this.#path.push((this.#out + (value >>> carry)) & 0xff);
      this.#out = ((value & ((1 << carry) - 1)) << (8 - carry)) & 0xff;
    } else {
      this.#out = (this.#out + (value << (8 - used - bits))) & 0xff;
    }
    this.#written += bits;
    if (this.#written % 8 === 0) {
      this.#path.push(this.#out);
      this.#out = 0;
    }
  }

  build(): Extension {
    if (this.#written % 8 !== 0) this.#path.push(this.#out);
    return { length: this.#written, path: Uint8Array.from(this.#path) };
  }
}

function extensionBits(ext: Extension): HashBits {
  return new HashBits(ext.path, ext.length);
}

/** Takes `length` bits from `bits` as an extension, in chunks of at most 8 (ref-fvm `from_bits`). */
function extensionFromBits(bits: HashBits, length: number): Extension {
  const builder = new ExtensionBuilder();
  for (let left = length; left > 0; ) {
    const take = Math.min(left, 8);
    builder.add(take, bits.next(take));
    left -= take;
  }
  return builder.build();
}

/** ref-fvm `Extension::unsplit`: `head ‖ slot ‖ tail`, re-chunked by the bit width. */
function joinExtensions(parts: readonly Extension[], bitWidth: number): Extension {
  const builder = new ExtensionBuilder();
  for (const part of parts) {
    const bits = extensionBits(part);
    for (let left = part.length; left > 0; ) {
      const take = Math.min(bitWidth, left);
      builder.add(take, bits.next(take));
      left -= take;
    }
  }
  return builder.build();
}

/** How many bits of `ext` the key matches, whole levels only; on a mismatch the key is rewound to it. */
function longestMatch(ext: Extension, key: HashBits, bitWidth: number): number {
  const path = extensionBits(ext);
  let matched = 0;
  while (matched < ext.length) {
    const before = key.consumed;
    if (key.next(bitWidth) !== path.next(bitWidth)) {
      key.consumed = before;
      break;
    }
    matched += bitWidth;
  }
  return matched;
}

/** The levels the new key shares with every key of a full bucket (ref-fvm `longest_common_prefix`). */
function longestCommonPrefix(key: HashBits, bitWidth: number, hashes: readonly Uint8Array[]): Extension {
  const others = hashes.map((hash) => new HashBits(hash, KEY_BITS, key.consumed));
  const builder = new ExtensionBuilder();
  while (key.consumed < key.length) {
    const before = key.consumed;
    const slot = key.next(bitWidth);
    if (others.some((other) => other.next(bitWidth) !== slot)) {
      key.consumed = before;
      break;
    }
    builder.add(bitWidth, slot);
  }
  return builder.build();
}

function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function emptyNode(): KamtNode {
  return { bitfield: new Uint32Array(8), pointers: [] };
}

function testBit(node: KamtNode, slot: number): boolean {
  return ((node.bitfield[slot >>> 5] as number) & (1 << (slot & 31))) !== 0;
}

function indexForSlot(node: KamtNode, slot: number): number {
  const word = slot >>> 5;
  let count = popcount32((node.bitfield[word] as number) & ((1 << (slot & 31)) - 1));
  for (let w = 0; w < word; w++) count += popcount32(node.bitfield[w] as number);
  return count;
}

function insertPointer(node: KamtNode, slot: number, pointer: Pointer): void {
  node.pointers.splice(indexForSlot(node, slot), 0, pointer);
  node.bitfield[slot >>> 5] = (node.bitfield[slot >>> 5] as number) | (1 << (slot & 31));
}

function removePointer(node: KamtNode, slot: number): void {
  node.pointers.splice(indexForSlot(node, slot), 1);
  node.bitfield[slot >>> 5] = (node.bitfield[slot >>> 5] as number) & ~(1 << (slot & 31));
}

function lastSlot(node: KamtNode): number {
  for (let w = 7; w >= 0; w--) {
    const word = node.bitfield[w] as number;
    if (word !== 0) return w * 32 + 31 - Math.clz32(word);
  }
  throw new InvalidArgumentError('KAMT: node has no pointers');
}

function countSlots(bitfield: Uint32Array): number {
  let count = 0;
  for (const word of bitfield) count += popcount32(word);
  return count;
}

function bitfieldToBytes(bitfield: Uint32Array): Uint8Array {
  const bytes = new Uint8Array(32);
  const view = new DataView(bytes.buffer);
  for (let w = 0; w < 8; w++) view.setUint32((7 - w) * 4, bitfield[w] as number);
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

function bitfieldFromBytes(bytes: Uint8Array, fail: (reason: string) => Error): Uint32Array {
  if (bytes.length > 32) throw fail(`bitfield of ${bytes.length} bytes exceeds 32`);
  const bitfield = new Uint32Array(8);
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[bytes.length - 1 - i] as number;
    bitfield[i >>> 2] = (bitfield[i >>> 2] as number) | (byte << ((i & 3) * 8));
  }
  return bitfield;
}

function insertSorted(entries: Entry[], entry: Entry): void {
  let at = 0;
  while (at < entries.length && compareBytes(entries[at]!.hashed, entry.hashed) <= 0) at++;
  entries.splice(at, 0, entry);
}

export class Kamt {
  readonly config: KamtConfig;
  readonly #store: Blockstore;
  readonly #keys: KamtKeyCodec;
  #root: KamtNode;
  #rootCid: CID | undefined;

  private constructor(store: Blockstore, config: KamtConfig, keys: KamtKeyCodec, root: KamtNode, rootCid?: CID) {
    const { bitWidth, minDataDepth, maxArrayWidth } = config;
    if (!Number.isInteger(bitWidth) || bitWidth < 1 || bitWidth > 8) {
      throw new InvalidArgumentError(`KAMT bit width must be an integer from 1 to 8, got ${bitWidth}`);
    }
    if (!Number.isInteger(minDataDepth) || minDataDepth < 0) {
      throw new InvalidArgumentError(`KAMT min data depth must be a non-negative integer, got ${minDataDepth}`);
    }
    if (!Number.isInteger(maxArrayWidth) || maxArrayWidth < 1) {
      throw new InvalidArgumentError(`KAMT max array width must be a positive integer, got ${maxArrayWidth}`);
    }
    this.config = config;
    this.#store = store;
    this.#keys = keys;
    this.#root = root;
    this.#rootCid = rootCid;
  }

  static create(store: Blockstore, config: KamtConfig, keys: KamtKeyCodec): Kamt {
    return new Kamt(store, config, keys, emptyNode());
  }

  /** Opens the KAMT rooted at `root`; the config must be the one it was written with. */
  static load(store: Blockstore, root: CID, config: KamtConfig, keys: KamtKeyCodec): Kamt {
    const kamt = new Kamt(store, config, keys, emptyNode(), root);
    kamt.#root = kamt.#loadNode(root, 0);
    return kamt;
  }

  get isEmpty(): boolean {
    return this.#root.pointers.length === 0;
  }

  /** The value (one encoded CBOR item) stored under `key` (one encoded CBOR item), if any. */
  get(key: Uint8Array): Uint8Array | undefined {
    const bits = new HashBits(this.#hashed(key), KEY_BITS);
    let node = this.#root;
    for (let depth = 0; ; depth++) {
      const slot = bits.next(this.config.bitWidth);
      if (!testBit(node, slot)) return undefined;
      const pointer = node.pointers[indexForSlot(node, slot)]!;
      if ('values' in pointer) return pointer.values.find((entry) => bytesEqual(entry.key, key))?.value;
      const { ext } = pointer.link;
      if (ext.length > 0 && longestMatch(ext, bits, this.config.bitWidth) !== ext.length) return undefined;
      node = this.#child(pointer.link, depth + 1);
    }
  }

  /** Sets `key` to `value` (both encoded CBOR items, kept, not copied); true when something changed. */
  set(key: Uint8Array, value: Uint8Array): boolean {
    checkEncodedValue(key);
    checkEncodedValue(value);
    const hashed = this.#hashed(key);
    const changed = this.#modify(this.#root, new HashBits(hashed, KEY_BITS), 0, { hashed, key, value });
    if (changed) this.#rootCid = undefined;
    return changed;
  }

  /** Removes `key`; true when it was present. */
  delete(key: Uint8Array): boolean {
    const deleted = this.#remove(this.#root, new HashBits(this.#hashed(key), KEY_BITS), 0, key);
    if (deleted) this.#rootCid = undefined;
    return deleted;
  }

  /** Entries as encoded key and value, depth first in slot order. */
  *entries(): Generator<[key: Uint8Array, value: Uint8Array]> {
    yield* this.#entriesOf(this.#root, 0);
  }

  /** Writes every changed node (children first, in one `putMany`) and returns the root CID. */
  flush(): CID {
    if (this.#rootCid !== undefined) return this.#rootCid;
    const blocks: Block[] = [];
    this.#rootCid = this.#writeNode(this.#root, blocks);
    this.#store.putMany(blocks);
    return this.#rootCid;
  }

  #hashed(key: Uint8Array): Uint8Array {
    const hashed = this.#keys.hashedKey(key);
    if (hashed.length !== KAMT_KEY_BYTES) {
      throw new InvalidArgumentError(`KAMT: a hashed key must be ${KAMT_KEY_BYTES} bytes, got ${hashed.length}`);
    }
    return hashed;
  }

  #child(link: Link, depth: number): KamtNode {
    if (link.node === undefined) link.node = this.#loadNode(link.cid!, depth);
    return link.node;
  }

  /** ref-fvm `Node::modify_value`: returns whether the tree changed. */
  #modify(node: KamtNode, bits: HashBits, depth: number, entry: Entry): boolean {
    const { bitWidth, minDataDepth, maxArrayWidth } = this.config;
    const slot = bits.next(bitWidth);
    if (!testBit(node, slot)) {
      if (minDataDepth <= depth) {
        insertPointer(node, slot, { values: [entry] });
      } else {
        const sub = emptyNode();
        this.#modify(sub, bits, depth + 1, entry);
        insertPointer(node, slot, { link: { cid: undefined, node: sub, ext: NO_EXTENSION } });
      }
      return true;
    }
    const index = indexForSlot(node, slot);
    const pointer = node.pointers[index]!;
    if ('link' in pointer) {
      const link = pointer.link;
      const matched = link.ext.length === 0 ? 0 : longestMatch(link.ext, bits, bitWidth);
      if (matched === link.ext.length) {
        const child = this.#child(link, depth + 1);
        const changed = this.#modify(child, bits, depth + 1 + matched / bitWidth, entry);
        if (changed) link.cid = undefined;
        return changed;
      }
      node.pointers[index] = { link: this.#splitExtension(link, matched, bits, entry) };
      return true;
    }
    const values = pointer.values;
    const existing = values.findIndex((candidate) => bytesEqual(candidate.key, entry.key));
    if (existing >= 0) {
      const changed = !bytesEqual(values[existing]!.value, entry.value);
      values[existing]!.value = entry.value;
      return changed;
    }
    if (values.length < maxArrayWidth) {
      insertSorted(values, entry);
      return true;
    }
    // A full bucket becomes a child holding its entries and the new one, below the levels they all share.
    const ext = longestCommonPrefix(
      bits,
      bitWidth,
      values.map((moved) => moved.hashed),
    );
    const childDepth = depth + 1 + ext.length / bitWidth;
    const consumed = bits.consumed;
    const sub = emptyNode();
    this.#modify(sub, bits, childDepth, entry);
    for (const moved of values) this.#modify(sub, new HashBits(moved.hashed, KEY_BITS, consumed), childDepth, moved);
    node.pointers[index] = { link: { cid: undefined, node: sub, ext } };
    return true;
  }

  /**
   * ref-fvm `split_extension`: the key left the link's extension after `matched` bits; a new node
   * there holds the old link (with the rest of the extension) and the new entry.
   */
  #splitExtension(link: Link, matched: number, bits: HashBits, entry: Entry): Link {
    const { bitWidth } = this.config;
    const path = extensionBits(link.ext);
    const head = extensionFromBits(path, matched);
    const slotExt = extensionFromBits(path, bitWidth);
    const tail = extensionFromBits(path, link.ext.length - head.length - slotExt.length);
    const midway = emptyNode();
    insertPointer(midway, extensionBits(slotExt).next(bitWidth), { link: { ...link, ext: tail } });
    insertPointer(midway, bits.next(bitWidth), { values: [entry] });
    return { cid: undefined, node: midway, ext: head };
  }

  /** ref-fvm `Node::rm_value`: returns whether the key was found (and removed). */
  #remove(node: KamtNode, bits: HashBits, depth: number, key: Uint8Array): boolean {
    const { bitWidth } = this.config;
    const slot = bits.next(bitWidth);
    if (!testBit(node, slot)) return false;
    const index = indexForSlot(node, slot);
    const pointer = node.pointers[index]!;
    if ('values' in pointer) {
      const at = pointer.values.findIndex((entry) => bytesEqual(entry.key, key));
      if (at < 0) return false;
      if (pointer.values.length === 1) removePointer(node, slot);
      else pointer.values.splice(at, 1);
      return true;
    }
    const link = pointer.link;
    const matched = link.ext.length === 0 ? 0 : longestMatch(link.ext, bits, bitWidth);
    if (matched !== link.ext.length) return false;
    const child = this.#child(link, depth + 1);
    if (!this.#remove(child, bits, depth + 1 + matched / bitWidth, key)) return false;
    link.cid = undefined;
    const cleaned = this.#clean(link, depth);
    if (cleaned === null) removePointer(node, slot);
    else node.pointers[index] = cleaned;
    return true;
  }

  /**
   * ref-fvm `Pointer::clean` after a delete below `link`: a child left with one bucket moves it up,
   * a child left with one link is bypassed (the extensions joined around its slot), and children
   * whose buckets fit one bucket collapse into it. Null: remove the (empty, link-only) child.
   */
  #clean(link: Link, depth: number): Pointer | null {
    const { bitWidth, minDataDepth, maxArrayWidth } = this.config;
    const child = link.node!;
    const count = child.pointers.length;
    if (count === 0) {
      if (depth < minDataDepth) return null;
      throw new MalformedNodeError('KAMT node', link.cid, 'a child was left empty: the KAMT was not canonical');
    }
    if (depth < minDataDepth) return { link };
    if (count === 1) {
      const only = child.pointers[0]!;
      if ('values' in only) return { values: only.values };
      const slotExt = new ExtensionBuilder();
      slotExt.add(bitWidth, lastSlot(child));
      const ext = joinExtensions([link.ext, slotExt.build(), only.link.ext], bitWidth);
      return { link: { ...only.link, ext } };
    }
    if (count > maxArrayWidth) return { link };
    const merged: Entry[] = [];
    for (const pointer of child.pointers) {
      if (!('values' in pointer)) return { link };
      merged.push(...pointer.values);
    }
    if (merged.length > maxArrayWidth) return { link };
    return { values: merged.sort((a, b) => compareBytes(a.hashed, b.hashed)) };
  }

  *#entriesOf(node: KamtNode, depth: number): Generator<[Uint8Array, Uint8Array]> {
    for (const pointer of node.pointers) {
      if ('values' in pointer) {
        for (const entry of pointer.values) yield [entry.key, entry.value];
      } else {
        yield* this.#entriesOf(this.#child(pointer.link, depth + 1), depth + 1);
      }
    }
  }

  #writeNode(node: KamtNode, blocks: Block[]): CID {
    // Children first: a writer is finished before the next one starts.
    for (const pointer of node.pointers) {
      if ('link' in pointer && pointer.link.cid === undefined) {
        pointer.link.cid = this.#writeNode(pointer.link.node!, blocks);
      }
    }
    const writer = new RawCborWriter().array(2).byteString(bitfieldToBytes(node.bitfield)).array(node.pointers.length);
    for (const pointer of node.pointers) {
      if ('values' in pointer) {
        writer.map(1).asciiText('v').array(pointer.values.length);
        for (const entry of pointer.values) writer.array(2).raw(entry.key).raw(entry.value);
        continue;
      }
      const link = pointer.link;
      writer.map(1).asciiText('l').array(3).link(link.cid!.bytes).uint(link.ext.length).byteString(link.ext.path);
    }
    const bytes = writer.finish();
    const cid = cidOfCbor(bytes);
    blocks.push({ cid, bytes });
    return cid;
  }

  /** ref-fvm `Node::load`, with its checks: a node that breaks them is refused, not repaired. */
  #loadNode(cid: CID, depth: number): KamtNode {
    const { bitWidth, minDataDepth, maxArrayWidth } = this.config;
    const fail = (reason: string) => new MalformedNodeError('KAMT node', cid, reason);
    const reader = new RawCborReader(getBlock(this.#store, cid, 'KAMT node'), fail);
    if (reader.arrayLength() !== 2) throw fail('expected [bitfield, pointers]');
    const node: KamtNode = { bitfield: bitfieldFromBytes(reader.byteString(), fail), pointers: [] };
    const count = reader.arrayLength();
    if (count > 1 << bitWidth) throw fail(`${count} pointers exceed the ${1 << bitWidth} the bit width allows`);
    if (countSlots(node.bitfield) !== count) throw fail(`bitfield does not match the ${count} pointers`);
    if (count === 0 && depth !== 0) throw fail('a non-root node has no pointers');
    for (let i = 0; i < count; i++) {
      if (reader.mapLength() !== 1) throw fail('pointer is not a one-entry map');
      const kind = reader.text();
      if (kind === 'v') {
        if (depth < minDataDepth) throw fail(`values above the minimum data depth ${minDataDepth}`);
        const length = reader.arrayLength();
        if (length === 0 || length > maxArrayWidth) throw fail(`bucket of ${length} entries`);
        const values: Entry[] = [];
        for (let j = 0; j < length; j++) {
          if (reader.arrayLength() !== 2) throw fail('bucket entry is not [key, value]');
          const key = reader.rawItem();
          const entry = { hashed: this.#hashed(key), key, value: reader.rawItem() };
          if (values.length > 0 && compareBytes(values.at(-1)!.hashed, entry.hashed) >= 0) {
            throw fail('duplicate or unsorted keys in bucket');
          }
          values.push(entry);
        }
        node.pointers.push({ values });
      } else if (kind === 'l') {
        if (reader.arrayLength() !== 3) throw fail('link is not [cid, length, path]');
        const child = CID.decode(reader.link());
        if (child.code !== DAG_CBOR) throw fail(`child ${child} is not DAG-CBOR`);
        const length = reader.uint();
        const path = reader.byteString();
        if (length % bitWidth !== 0) throw fail(`extension length ${length} is not a multiple of ${bitWidth}`);
        if (KEY_BITS - (depth + 1) * bitWidth <= length) throw fail(`extension of ${length} bits is too long`);
        node.pointers.push({ link: { cid: child, node: undefined, ext: { length, path } } });
      } else {
        throw fail(`pointer kind ${JSON.stringify(kind)} is neither "v" nor "l"`);
      }
    }
    if (!reader.atEnd) throw fail('trailing bytes after the node');
    return node;
  }
}
