/**
 * Filecoin's AMT (filecoin-project/go-amt-ipld v3/v4, fvm_ipld_amt in ref-fvm `ipld/amt`): a sparse
 * array keyed by unsigned 64-bit index, 2^bitWidth slots per node. Height is always the minimum the
 * largest index needs: sets grow it by pushing the root down into slot 0, deletes shrink it while
 * the root only holds slot 0. Loaded nodes stay cached; `flush` encodes only dirty nodes. Values
 * are kept as DAG-CBOR bytes: decoded when read, encoded once when set.
 */
import { decodeCbor } from '../types/cbor.js';
import { CID, cidOfCbor } from '../types/cid.js';
import { bytesEqual } from '../utils/bytes.js';
import { InvalidArgumentError } from '../utils/errors.js';
import {
  type AmtInner,
  AmtLink,
  type AmtNode,
  type AmtVersion,
  decodeAmtNode,
  decodeAmtRoot,
  emptyAmtInner,
  emptyAmtLeaf,
  emptyAmtNode,
  encodeAmtNode,
  encodeAmtRoot,
  isEmptyAmtNode,
  LEGACY_AMT_BIT_WIDTH,
  MAX_AMT_BIT_WIDTH,
} from './amt-node.js';
import { type Block, type Blockstore, getBlock } from './blockstore.js';
import { AmtIndexOutOfRangeError } from './errors.js';
import { checkEncodedValue, encodeValue } from './raw-cbor.js';

export type { AmtVersion } from './amt-node.js';

export interface AmtOptions {
  /** `v3` (default) or `v0`, the legacy root without a bit width (TxMeta, receipts). */
  version?: AmtVersion;
  /** Bits of the index per level; 3 by default and always 3 for v0. */
  bitWidth?: number;
}

/** Indices are unsigned 64-bit integers; 2^64 − 1 is reserved so a count always fits. */
export type AmtIndex = number | bigint;
export const MAX_AMT_INDEX = 2n ** 64n - 2n;

/** Indices within 2^53 stay numbers (exact float math by powers of two); larger ones are bigints. */
type NormalIndex = number | bigint;

type SetOutcome = 'inserted' | 'replaced' | 'unchanged';

export class Amt {
  readonly version: AmtVersion;
  readonly bitWidth: number;
  readonly #store: Blockstore;
  #height = 0;
  #count = 0;
  #root: AmtNode;
  #rootCid: CID | undefined;
  #dirty: boolean;

  private constructor(store: Blockstore, { version, bitWidth }: Required<AmtOptions>) {
    this.#store = store;
    this.version = version;
    this.bitWidth = bitWidth;
    this.#root = emptyAmtLeaf(bitWidth);
    this.#dirty = true;
  }

  static create(store: Blockstore, options: AmtOptions = {}): Amt {
    return new Amt(store, amtParameters(options));
  }

  /** Opens the AMT rooted at `root`; a v3 root carries its own bit width. */
  static load(store: Blockstore, root: CID, options: Pick<AmtOptions, 'version'> = {}): Amt {
    const version = options.version ?? 'v3';
    const decoded = decodeAmtRoot(getBlock(store, root, `AMT ${version} root`), root, version);
    const amt = new Amt(store, { version, bitWidth: decoded.bitWidth });
    amt.#height = decoded.height;
    amt.#count = decoded.count;
    amt.#root = decoded.node;
    amt.#rootCid = root;
    amt.#dirty = false;
    return amt;
  }

  get height(): number {
    return this.#height;
  }

  /** Number of entries. */
  get count(): number {
    return this.#count;
  }

  /** The value at `index`, decoded; undefined when absent. */
  get(index: AmtIndex): unknown {
    const bytes = this.getBytes(index);
    return bytes === undefined ? undefined : decodeCbor(bytes, 'AMT value');
  }

  /** The value at `index` as its DAG-CBOR bytes, for callers that decode it into a type themselves. */
  getBytes(index: AmtIndex): Uint8Array | undefined {
    const i = normalizeIndex(index);
    if (!this.#fits(i, this.#height)) return undefined;
    let node = this.#root;
    for (let height = this.#height; node.kind === 'inner'; height--) {
      const link = node.links[this.#digit(i, height)];
      if (link === undefined) return undefined;
      node = this.#child(link, height - 1);
    }
    return node.values[this.#digit(i, 0)];
  }

  has(index: AmtIndex): boolean {
    return this.getBytes(index) !== undefined;
  }

  /** Sets a DAG-CBOR value at `index` (0 to 2^64 − 2). */
  set(index: AmtIndex, value: unknown): void {
    this.#setEncoded(normalizeIndex(index), encodeValue(value, 'AMT value', index));
  }

  /** Sets a value given as one DAG-CBOR item's bytes (kept, not copied). */
  setBytes(index: AmtIndex, encodedValue: Uint8Array): void {
    const i = normalizeIndex(index);
    checkEncodedValue(encodedValue);
    this.#setEncoded(i, encodedValue);
  }

  #setEncoded(i: NormalIndex, encodedValue: Uint8Array): void {
    while (!this.#fits(i, this.#height)) {
      // The old root becomes slot 0 of a taller root; an empty root just gains height.
      const taller = emptyAmtInner(this.bitWidth);
      if (!isEmptyAmtNode(this.#root)) {
        this.#root.dirty = true;
        taller.links[0] = new AmtLink(undefined, this.#root);
      }
      this.#root = taller;
      this.#height++;
      this.#dirty = true;
    }
    const outcome = this.#set(this.#root, this.#height, i, encodedValue);
    if (outcome === 'unchanged') return;
    if (outcome === 'inserted') this.#count++;
    this.#dirty = true;
  }

  /** Removes the value at `index`; true when there was one. */
  delete(index: AmtIndex): boolean {
    const i = normalizeIndex(index);
    if (!this.#fits(i, this.#height) || !this.#delete(this.#root, this.#height, i)) return false;
    this.#count--;
    this.#dirty = true;
    if (isEmptyAmtNode(this.#root)) {
      this.#root = emptyAmtLeaf(this.bitWidth);
      this.#height = 0;
      return true;
    }
    while (this.#root.kind === 'inner' && this.#onlyFirstSlot(this.#root.links)) {
      this.#root = this.#child(this.#root.links[0]!, this.#height - 1);
      this.#height--;
    }
    return true;
  }

  /** Entries with decoded values, in index order. */
  *entries(): Generator<[index: bigint, value: unknown]> {
    for (const [index, bytes] of this.#entriesOf(this.#root, this.#height, 0n)) {
      yield [index, decodeCbor(bytes, 'AMT value')];
    }
  }

  /** Decoded values in index order (for dense arrays such as message lists and receipts). */
  *values(): Generator<unknown> {
    for (const bytes of this.#valuesOf(this.#root, this.#height)) yield decodeCbor(bytes, 'AMT value');
  }

  /** Writes every dirty node and the root (in one `putMany`) and returns the root CID. */
  flush(): CID {
    if (!this.#dirty && this.#rootCid !== undefined) return this.#rootCid;
    const blocks: Block[] = [];
    this.#writeChildren(this.#root, this.#height, blocks);
    const bytes = encodeAmtRoot(
      { bitWidth: this.bitWidth, height: this.#height, count: this.#count, node: this.#root },
      this.version,
    );
    const cid = cidOfCbor(bytes);
    blocks.push({ cid, bytes });
    this.#store.putMany(blocks);
    this.#root.dirty = false;
    this.#rootCid = cid;
    this.#dirty = false;
    return cid;
  }

  /** True when `i` < 2^(bitWidth·(height+1)), the capacity of a tree of that height. */
  #fits(i: NormalIndex, height: number): boolean {
    const bits = this.bitWidth * (height + 1);
    return typeof i === 'number' ? i < 2 ** bits : i >> BigInt(bits) === 0n;
  }

  /** The slot of `i` in a node at `height`. */
  #digit(i: NormalIndex, height: number): number {
    const shift = this.bitWidth * height;
    const mask = (1 << this.bitWidth) - 1;
    if (typeof i === 'number') return Math.floor(i / 2 ** shift) & mask;
    return Number((i >> BigInt(shift)) & BigInt(mask));
  }

  #child(link: AmtLink, height: number): AmtNode {
    if (link.node === undefined) {
      const cid = CID.decode(link.cidBytes!);
      link.node = decodeAmtNode(getBlock(this.#store, cid, 'AMT node'), cid, this.bitWidth, height);
    }
    return link.node;
  }

  #onlyFirstSlot(links: readonly (AmtLink | undefined)[]): boolean {
    if (links[0] === undefined) return false;
    for (let slot = 1; slot < links.length; slot++) if (links[slot] !== undefined) return false;
    return true;
  }

  #set(node: AmtNode, height: number, i: NormalIndex, encodedValue: Uint8Array): SetOutcome {
    const slot = this.#digit(i, height);
    if (node.kind === 'leaf') {
      const old = node.values[slot];
      if (old !== undefined && bytesEqual(old, encodedValue)) return 'unchanged';
      node.values[slot] = encodedValue;
      node.dirty = true;
      return old === undefined ? 'inserted' : 'replaced';
    }
    let link = node.links[slot];
    if (link === undefined) {
      link = new AmtLink(undefined, emptyAmtNode(this.bitWidth, height - 1));
      node.links[slot] = link;
    }
    const outcome = this.#set(this.#child(link, height - 1), height - 1, i, encodedValue);
    if (outcome !== 'unchanged') node.dirty = true;
    return outcome;
  }

  #delete(node: AmtNode, height: number, i: NormalIndex): boolean {
    const slot = this.#digit(i, height);
    if (node.kind === 'leaf') {
      if (node.values[slot] === undefined) return false;
      node.values[slot] = undefined;
      node.dirty = true;
      return true;
    }
    const link = node.links[slot];
    if (link === undefined) return false;
    const child = this.#child(link, height - 1);
    if (!this.#delete(child, height - 1, i)) return false;
    if (isEmptyAmtNode(child)) node.links[slot] = undefined;
    node.dirty = true;
    return true;
  }

  *#entriesOf(node: AmtNode, height: number, offset: bigint): Generator<[bigint, Uint8Array]> {
    if (node.kind === 'leaf') {
      for (let slot = 0; slot < node.values.length; slot++) {
        const value = node.values[slot];
        if (value !== undefined) yield [offset + BigInt(slot), value];
      }
      return;
    }
    const span = 1n << BigInt(this.bitWidth * height);
    for (let slot = 0; slot < node.links.length; slot++) {
      const link = node.links[slot];
      if (link !== undefined) {
        yield* this.#entriesOf(this.#child(link, height - 1), height - 1, offset + BigInt(slot) * span);
      }
    }
  }

  *#valuesOf(node: AmtNode, height: number): Generator<Uint8Array> {
    if (node.kind === 'leaf') {
      for (const value of node.values) if (value !== undefined) yield value;
      return;
    }
    for (const link of node.links)
      if (link !== undefined) yield* this.#valuesOf(this.#child(link, height - 1), height - 1);
  }

  #writeChildren(node: AmtNode, height: number, blocks: Block[]): void {
    if (node.kind === 'leaf') return;
    for (const link of node.links) {
      if (link?.node?.dirty) {
        this.#writeChildren(link.node, height - 1, blocks);
        const bytes = encodeAmtNode(link.node, this.bitWidth);
        const cid = cidOfCbor(bytes);
        link.cidBytes = cid.bytes;
        blocks.push({ cid, bytes });
        link.node.dirty = false;
      }
    }
  }
}

/**
 * Writes a dense array as an AMT (indices 0…n−1) bottom-up, without the per-index tree walks of
 * `set`, and returns its root CID: how TxMeta message arrays and receipt arrays are built.
 */
export function buildAmt(store: Blockstore, values: readonly unknown[], options: AmtOptions = {}): CID {
  const { version, bitWidth } = amtParameters(options);
  const width = 1 << bitWidth;
  const blocks: Block[] = [];
  let level: AmtNode[] = [];
  for (let start = 0; start === 0 || start < values.length; start += width) {
    const leaf = emptyAmtLeaf(bitWidth);
    for (let slot = 0; slot < width && start + slot < values.length; slot++) {
      leaf.values[slot] = encodeValue(values[start + slot], 'AMT value', start + slot);
    }
    level.push(leaf);
  }
  let height = 0;
  for (; level.length > 1; height++) {
    const parents: AmtInner[] = [];
    for (let start = 0; start < level.length; start += width) {
      const parent = emptyAmtInner(bitWidth);
      for (let slot = 0; slot < width && start + slot < level.length; slot++) {
        const bytes = encodeAmtNode(level[start + slot]!, bitWidth);
        const cid = cidOfCbor(bytes);
        blocks.push({ cid, bytes });
        parent.links[slot] = new AmtLink(cid.bytes, undefined);
      }
      parents.push(parent);
    }
    level = parents;
  }
  const bytes = encodeAmtRoot({ bitWidth, height, count: values.length, node: level[0]! }, version);
  const cid = cidOfCbor(bytes);
  blocks.push({ cid, bytes });
  store.putMany(blocks);
  return cid;
}

function amtParameters(options: AmtOptions): Required<AmtOptions> {
  const version = options.version ?? 'v3';
  const bitWidth = options.bitWidth ?? LEGACY_AMT_BIT_WIDTH;
  if (!Number.isInteger(bitWidth) || bitWidth < 1 || bitWidth > MAX_AMT_BIT_WIDTH) {
    throw new InvalidArgumentError(`AMT bit width must be an integer from 1 to ${MAX_AMT_BIT_WIDTH}, got ${bitWidth}`);
  }
  if (version === 'v0' && bitWidth !== LEGACY_AMT_BIT_WIDTH) {
    throw new InvalidArgumentError(`a v0 AMT always has bit width ${LEGACY_AMT_BIT_WIDTH}, got ${bitWidth}`);
  }
  return { version, bitWidth };
}

function normalizeIndex(index: AmtIndex): NormalIndex {
  if (typeof index === 'number') {
    if (Number.isSafeInteger(index) && index >= 0) return index;
    throw new AmtIndexOutOfRangeError(index);
  }
  if (index < 0n || index > MAX_AMT_INDEX) throw new AmtIndexOutOfRangeError(index);
  return index <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(index) : index;
}
