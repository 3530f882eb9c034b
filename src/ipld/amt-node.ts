/**
 * AMT blocks (filecoin-project/go-amt-ipld, ref-fvm `ipld/amt`). Node = `[bmap, links, values]`,
 * bmap = max(1, 2^bitWidth / 8) bytes with slot i at `bmap[i/8] >> (i%8) & 1` (LSB-first, unlike
 * the HAMT bitfield). Leaves (height 0) fill `values`, inner nodes fill `links`. Root: v3
 * `[bitWidth, height, count, node]`, legacy v0 (TxMeta message arrays, receipts)
 * `[height, count, node]` with bit width 3. Values stay as their encoded DAG-CBOR bytes (see
 * raw-cbor.ts).
 */
import type { CID } from '../types/cid.js';
import { MalformedNodeError } from './errors.js';
import { RawCborReader, RawCborWriter } from './raw-cbor.js';

export type AmtVersion = 'v3' | 'v0';

export const LEGACY_AMT_BIT_WIDTH = 3;
export const MAX_AMT_BIT_WIDTH = 16;
/** ref-fvm refuses roots taller than this. */
const MAX_HEIGHT = 64;

/** A child node: its binary CID once written, and the decoded node once loaded or created. */
export class AmtLink {
  constructor(
    public cidBytes: Uint8Array | undefined,
    public node: AmtNode | undefined,
  ) {}
}

/** A height-0 node: each slot holds a value's DAG-CBOR bytes, or `undefined` when empty. */
export interface AmtLeaf {
  readonly kind: 'leaf';
  readonly values: (Uint8Array | undefined)[];
  /** Changed since it was loaded or last written. */
  dirty: boolean;
}

/** A node above height 0, linking to nodes one level down. */
export interface AmtInner {
  readonly kind: 'inner';
  readonly links: (AmtLink | undefined)[];
  dirty: boolean;
}

export type AmtNode = AmtLeaf | AmtInner;

export interface AmtRoot {
  bitWidth: number;
  height: number;
  count: number;
  node: AmtNode;
}

export function emptyAmtLeaf(bitWidth: number): AmtLeaf {
  return { kind: 'leaf', values: new Array<Uint8Array | undefined>(1 << bitWidth).fill(undefined), dirty: true };
}

export function emptyAmtInner(bitWidth: number): AmtInner {
  return { kind: 'inner', links: new Array<AmtLink | undefined>(1 << bitWidth).fill(undefined), dirty: true };
}

export function emptyAmtNode(bitWidth: number, height: number): AmtNode {
  return height === 0 ? emptyAmtLeaf(bitWidth) : emptyAmtInner(bitWidth);
}

export function isEmptyAmtNode(node: AmtNode): boolean {
  const slots: readonly unknown[] = node.kind === 'leaf' ? node.values : node.links;
  return slots.every((slot) => slot === undefined);
}

const bmapLength = (bitWidth: number) => (bitWidth <= 3 ? 1 : 1 << (bitWidth - 3));

/** Appends the node; every child link must already have a CID. */
function writeNode(writer: RawCborWriter, node: AmtNode, bitWidth: number): void {
  const bmap = new Uint8Array(bmapLength(bitWidth));
  const slots: readonly unknown[] = node.kind === 'leaf' ? node.values : node.links;
  let present = 0;
  for (let i = 0; i < slots.length; i++) {
    if (slots[i] === undefined) continue;
    bmap[i >>> 3] = (bmap[i >>> 3] as number) | (1 << (i & 7));
    present++;
  }
  writer.array(3).byteString(bmap);
  if (node.kind === 'leaf') {
    writer.array(0).array(present);
    for (const value of node.values) if (value !== undefined) writer.raw(value);
    return;
  }
  writer.array(present);
  for (const link of node.links) {
    if (link === undefined) continue;
    if (link.cidBytes === undefined) throw new Error('AMT child must be written before its parent');
    writer.link(link.cidBytes);
  }
  writer.array(0);
}

export function encodeAmtNode(node: AmtNode, bitWidth: number): Uint8Array {
  const writer = new RawCborWriter();
  writeNode(writer, node, bitWidth);
  return writer.finish();
}

export function encodeAmtRoot(root: AmtRoot, version: AmtVersion): Uint8Array {
  const writer = new RawCborWriter();
  if (version === 'v3') writer.array(4).uint(root.bitWidth);
  else writer.array(3);
  writer.uint(root.height).uint(root.count);
  writeNode(writer, root.node, root.bitWidth);
  return writer.finish();
}

export function decodeAmtNode(bytes: Uint8Array, cid: CID, bitWidth: number, height: number): AmtNode {
  const fail = (reason: string) => new MalformedNodeError('AMT node', cid, reason);
  const reader = new RawCborReader(bytes, fail);
  const node = readNode(reader, bitWidth, height, fail);
  if (!reader.atEnd) throw fail('trailing bytes after the node');
  return node;
}

export function decodeAmtRoot(bytes: Uint8Array, cid: CID, version: AmtVersion): AmtRoot {
  const fail = (reason: string) => new MalformedNodeError(`AMT ${version} root`, cid, reason);
  const reader = new RawCborReader(bytes, fail);
  const fields = reader.arrayLength();
  if (fields !== (version === 'v3' ? 4 : 3)) {
    throw fail(`expected ${version === 'v3' ? '[bitWidth, height, count, node]' : '[height, count, node]'}`);
  }
  const bitWidth = version === 'v3' ? reader.uint() : LEGACY_AMT_BIT_WIDTH;
  if (bitWidth < 1 || bitWidth > MAX_AMT_BIT_WIDTH)
    throw fail(`bit width ${bitWidth} is not from 1 to ${MAX_AMT_BIT_WIDTH}`);
  const height = reader.uint();
  if (height > MAX_HEIGHT) throw fail(`height ${height} is above ${MAX_HEIGHT}`);
  const count = reader.uint();
  const node = readNode(reader, bitWidth, height, fail);
  if (!reader.atEnd) throw fail('trailing bytes after the root');
  return { bitWidth, height, count, node };
}

function readNode(reader: RawCborReader, bitWidth: number, height: number, fail: (reason: string) => Error): AmtNode {
  if (reader.arrayLength() !== 3) throw fail('expected [bmap, links, values]');
  const bmap = reader.byteString();
  if (bmap.length !== bmapLength(bitWidth)) throw fail(`bmap is not a ${bmapLength(bitWidth)}-byte string`);
  const linkCount = reader.arrayLength();
  if (height === 0 && linkCount > 0) throw fail('a leaf (height 0) has links');
  const node = emptyAmtNode(bitWidth, height);
  const width = 1 << bitWidth;
  // Entries fill the set bits in slot order; bits beyond 2^bitWidth are ignored, as the
  // reference implementations do, so the counts must then match exactly.
  let slot = 0;
  const nextSlot = () => {
    while (slot < width && (((bmap[slot >>> 3] as number) >>> (slot & 7)) & 1) === 0) slot++;
    if (slot === width) throw fail('bmap has fewer bits set than entries');
    return slot++;
  };
  if (node.kind === 'inner') {
    for (let i = 0; i < linkCount; i++) node.links[nextSlot()] = new AmtLink(reader.link(), undefined);
    if (reader.arrayLength() !== 0) throw fail(`an inner node (height ${height}) has values`);
  } else {
    const valueCount = reader.arrayLength();
    for (let i = 0; i < valueCount; i++) node.values[nextSlot()] = reader.rawItem();
  }
  while (slot < width && (((bmap[slot >>> 3] as number) >>> (slot & 7)) & 1) === 0) slot++;
  if (slot < width) throw fail('bmap has more bits set than entries');
  node.dirty = false;
  return node;
}
