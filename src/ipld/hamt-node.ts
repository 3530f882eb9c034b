/**
 * HAMT nodes in Filecoin's layout (filecoin-project/go-hamt-ipld, ref-fvm `ipld/hamt`):
 * `[bitfield, pointers]`, where the bitfield is the minimal big-endian encoding of an integer with
 * bit i set iff slot i is occupied, and each pointer is a link to a child node or a bucket of
 * `[key, value]` pairs sorted by key. The v3 form writes pointers as a kinded union (CID | array);
 * the legacy form (go-hamt-ipld v1/v2, state trees v0/v1) as a keyed union (`{"0": CID}` |
 * `{"1": [...]}`). Values stay as their encoded DAG-CBOR bytes (see raw-cbor.ts).
 */
import type { CID } from '../types/cid.js';
import { MalformedNodeError } from './errors.js';
import { RawCborReader, RawCborWriter } from './raw-cbor.js';

export type HamtFormat = 'v3' | 'legacy';

/** A key and its value's DAG-CBOR bytes. */
export type StoredEntry = readonly [key: Uint8Array, encodedValue: Uint8Array];

/** 1..bucketSize entries sorted by key bytes. */
export type HamtBucket = StoredEntry[];

/** A child node: its binary CID once written, and the decoded node once loaded or created. */
export class HamtLink {
  constructor(
    public cidBytes: Uint8Array | undefined,
    public node: HamtNode | undefined,
  ) {}
}

export type HamtPointer = HamtLink | HamtBucket;

export interface HamtNode {
  /** Occupied slots, 32 per word, word 0 holding slots 0–31. */
  readonly bitmap: Uint32Array;
  /** One pointer per occupied slot, in slot order. */
  readonly pointers: HamtPointer[];
  /** Changed since it was loaded or last written. */
  dirty: boolean;
}

export function emptyHamtNode(bitWidth: number): HamtNode {
  return { bitmap: new Uint32Array(bitmapWords(bitWidth)), pointers: [], dirty: true };
}

function bitmapWords(bitWidth: number): number {
  return Math.max(1, (1 << bitWidth) >>> 5);
}

function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function hasSlot(node: HamtNode, slot: number): boolean {
  return ((node.bitmap[slot >>> 5] as number) & (1 << (slot & 31))) !== 0;
}

/** Index in `pointers` of a slot: the number of occupied slots below it. */
export function pointerIndex(node: HamtNode, slot: number): number {
  const word = slot >>> 5;
  let count = popcount32((node.bitmap[word] as number) & ((1 << (slot & 31)) - 1));
  for (let w = 0; w < word; w++) count += popcount32(node.bitmap[w] as number);
  return count;
}

export function occupySlot(node: HamtNode, slot: number, pointer: HamtPointer): void {
  node.pointers.splice(pointerIndex(node, slot), 0, pointer);
  node.bitmap[slot >>> 5] = (node.bitmap[slot >>> 5] as number) | (1 << (slot & 31));
}

export function vacateSlot(node: HamtNode, slot: number): void {
  node.pointers.splice(pointerIndex(node, slot), 1);
  node.bitmap[slot >>> 5] = (node.bitmap[slot >>> 5] as number) & ~(1 << (slot & 31));
}

function bitmapToBytes(bitmap: Uint32Array): Uint8Array {
  const bytes = new Uint8Array(bitmap.length * 4);
  const view = new DataView(bytes.buffer);
  for (let w = 0; w < bitmap.length; w++) view.setUint32((bitmap.length - 1 - w) * 4, bitmap[w] as number);
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

function bitmapFromBytes(bytes: Uint8Array, bitWidth: number, fail: (reason: string) => Error): Uint32Array {
  const bitmap = new Uint32Array(bitmapWords(bitWidth));
  const slots = 1 << bitWidth;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[bytes.length - 1 - i] as number;
    if (byte === 0) continue;
    // Bits at or above 2^bitWidth name slots that cannot exist at this width.
    if (i * 8 + (31 - Math.clz32(byte)) >= slots) throw fail(`bitfield has bits beyond ${slots} slots`);
    bitmap[i >>> 2] = (bitmap[i >>> 2] as number) | (byte << ((i & 3) * 8));
  }
  return bitmap;
}

export function encodeHamtNode(node: HamtNode, format: HamtFormat): Uint8Array {
  const writer = new RawCborWriter().array(2).byteString(bitmapToBytes(node.bitmap)).array(node.pointers.length);
  for (const pointer of node.pointers) {
    if (pointer instanceof HamtLink) {
      if (pointer.cidBytes === undefined) throw new Error('HAMT child must be written before its parent');
      if (format === 'legacy') writer.map(1).asciiText('0');
      writer.link(pointer.cidBytes);
      continue;
    }
    if (format === 'legacy') writer.map(1).asciiText('1');
    writer.array(pointer.length);
    for (const [key, encodedValue] of pointer) writer.array(2).byteString(key).raw(encodedValue);
  }
  return writer.finish();
}

export function decodeHamtNode(bytes: Uint8Array, cid: CID, format: HamtFormat, bitWidth: number): HamtNode {
  const fail = (reason: string) => new MalformedNodeError('HAMT node', cid, reason);
  const reader = new RawCborReader(bytes, fail);
  if (reader.arrayLength() !== 2) throw fail('expected [bitfield, pointers]');
  const node: HamtNode = { bitmap: bitmapFromBytes(reader.byteString(), bitWidth, fail), pointers: [], dirty: false };
  let occupied = 0;
  for (const word of node.bitmap) occupied += popcount32(word);
  const count = reader.arrayLength();
  if (occupied !== count) throw fail(`bitfield has ${occupied} slots set but there are ${count} pointers`);
  for (let i = 0; i < count; i++) node.pointers.push(readPointer(reader, format, fail));
  if (!reader.atEnd) throw fail('trailing bytes after the node');
  return node;
}

function readPointer(reader: RawCborReader, format: HamtFormat, fail: (reason: string) => Error): HamtPointer {
  if (format === 'legacy') {
    if (reader.mapLength() !== 1) throw fail('legacy pointer is not a one-entry map');
    const kind = reader.text();
    if (kind === '0') return new HamtLink(reader.link(), undefined);
    if (kind !== '1') throw fail(`legacy pointer key ${JSON.stringify(kind)} is neither "0" nor "1"`);
  } else if (reader.nextIsTag()) {
    return new HamtLink(reader.link(), undefined);
  }
  const length = reader.arrayLength();
  if (length === 0) throw fail('empty bucket');
  const bucket: HamtBucket = [];
  for (let i = 0; i < length; i++) {
    if (reader.arrayLength() !== 2) throw fail('bucket entry is not [key, value]');
    bucket.push([reader.byteString(), reader.rawItem()]);
  }
  return bucket;
}
