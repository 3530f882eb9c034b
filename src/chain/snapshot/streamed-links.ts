/**
 * Completeness of a snapshot's DAGs, learned while its blocks stream in, so that import need not
 * read every block back and walk every state tree afterwards (which cost more than the rest of
 * the import together).
 *
 * Each DAG-CBOR block that is not a block header has its links looked at as it arrives: a link to
 * a block seen recently is settled; a link to a block not seen yet waits, and is settled when that
 * block arrives (a Lotus-order snapshot lists a DAG depth-first, parents first, so most links wait
 * only for the rest of their read chunk, and few at any time). Links still open when a chunk ends
 * are looked up in the database once: there, or waiting for a block further on. When the file
 * ends with no link waiting, every DAG of the file below a block that is not a header is complete:
 * its root present means its whole tree is. Headers are left out on purpose: a minimal snapshot's
 * old headers name state roots the file does not hold, and the header chain is checked on its own.
 *
 * Whenever that argument does not hold, the proof is withheld and the import walks each DAG from
 * the database instead (`DagChecker`, exact): a link still waiting at the end (a missing block —
 * or a Lotus snapshot's receipts, of which Lotus writes only the AMT roots), a block that is not a
 * header linking to one (a walk below it would follow the header's links), a link that is not a
 * CID, too many links waiting (a file in another order: memory stays bounded), or a link to a block
 * the repo held before (a node's genesis) that the file does not hold itself: its links were never
 * streamed.
 */
import { byteKey, forEachLinkBytes } from '../../state/index.js';
import { DAG_CBOR_CODE } from '../../types/index.js';
import type { CarSection } from './car-reader.js';
import { LinkKind, linkKind } from './cid-bytes.js';
import { CidTable } from './cid-table.js';

/** A block header is a CBOR array of 16 fields (filecoin-project/lotus chain/types/blockheader.go). */
export const HEADER_CBOR_HEAD = 0x90;
/** Links waiting at once beyond which the stream gives up its proof (a few MiB of keys). */
const MAX_WAITING = 1 << 18;
/** The most blocks a repo may hold before the import for the stream's proof (a genesis has a few hundred). */
export const MAX_BLOCKS_BEFORE = 1 << 16;
/** Blocks seen recently, answered without a database lookup: two generations of this many (~12 MiB). */
const RECENT_GENERATION = 1 << 17;
/** What `CidTable` keeps for a block seen: whether it has a header's shape. */
const NOT_HEADER = 0;
const HEADER = 1;

/** Presence of a block, by CID bytes: its first byte, or undefined when it is not stored. */
export type FirstByteOf = (cid: Uint8Array) => number | undefined;

/** Whether a block of this codec, starting with this byte, has a block header's shape. */
export function isHeaderShaped(codec: number, firstByte: number | undefined): boolean {
  return codec === DAG_CBOR_CODE && firstByte === HEADER_CBOR_HEAD;
}

export class StreamedLinks {
  readonly #firstByte: FirstByteOf;
  /** Links of this chunk's non-header blocks to blocks not seen recently: key → link kind. */
  readonly #open = new Map<string, LinkKind>();
  /** Links of non-header blocks to blocks neither seen nor stored. */
  readonly #waiting = new Set<string>();
  /** Recently seen blocks (HEADER or NOT_HEADER); CIDs of other shapes in `#recentOthers`. */
  readonly #recent = new CidTable(RECENT_GENERATION);
  #recentOthers = new Map<string, number>();
  #doubt: string | undefined;
  /** Blocks the repo held before, not streamed (yet). */
  readonly #before: Set<string>;
  /** Those of them a streamed block links to. */
  readonly #linkedBefore = new Set<string>();
  /** The block whose links are being read. */
  #bytes: Uint8Array = new Uint8Array(0);
  readonly #visitLink = (start: number, end: number) => this.#link(start, end);

  /**
   * `firstByte` looks a block up in the store the blocks are written to; `before` lists the CIDs
   * of the blocks it held before the import (undefined: more than `MAX_BLOCKS_BEFORE`).
   */
  constructor(firstByte: FirstByteOf, before: readonly Uint8Array[] | undefined) {
    this.#firstByte = firstByte;
    this.#before = new Set(before?.map(byteKey));
    if (before === undefined) this.#doubt = `the repo held more than ${MAX_BLOCKS_BEFORE} blocks before the import`;
  }

  /** Takes the next block of the file, before it is stored. */
  add(section: CarSection): void {
    if (this.#doubt !== undefined) return;
    const cid = section.cidBytes;
    const header = isHeaderShaped(section.codec, section.bytes[0]);
    if (this.#before.size > 0) {
      const key = byteKey(cid);
      this.#before.delete(key);
      this.#linkedBefore.delete(key);
    }
    if ((this.#open.size > 0 || this.#waiting.size > 0) && this.#arrived(byteKey(cid)) && header) {
      this.#doubt = 'a block that is not a header links to a header';
      return;
    }
    this.#remember(cid, 0, cid.length, header ? HEADER : NOT_HEADER);
    if (section.codec !== DAG_CBOR_CODE || header) return;
    this.#bytes = section.bytes;
    try {
      forEachLinkBytes(section.bytes, this.#visitLink);
    } catch {
      this.#doubt = 'a block’s CBOR could not be read for its links';
    }
  }

  /** After a read chunk is stored: settles its open links in the database. */
  endBatch(): void {
    for (const [key, kind] of this.#open) {
      if (this.#doubt !== undefined) break;
      const cid = Buffer.from(key, 'latin1');
      const first = this.#firstByte(cid);
      if (first === undefined) {
        this.#waiting.add(key);
        continue;
      }
      const header = kind === LinkKind.DagCbor && first === HEADER_CBOR_HEAD;
      if (this.#before.has(key)) this.#linkedBefore.add(key);
      this.#remember(cid, 0, cid.length, header ? HEADER : NOT_HEADER);
      if (header) this.#doubt = 'a block that is not a header links to a header';
    }
    this.#open.clear();
    if (this.#waiting.size > MAX_WAITING) this.#doubt = 'too many links name blocks further on in the file';
    if (this.#recentOthers.size > RECENT_GENERATION) this.#recentOthers = new Map();
  }

  /** Undefined when the stream proved completeness (see above), else why it did not. */
  get doubt(): string | undefined {
    if (this.#doubt !== undefined) return this.#doubt;
    if (this.#waiting.size > 0) {
      return `${this.#waiting.size} links of state, message or receipt blocks name blocks the file does not hold`;
    }
    if (this.#linkedBefore.size > 0) {
      return `${this.#linkedBefore.size} links name blocks the repo held before the import and the file does not hold`;
    }
    return undefined;
  }

  /** A block arrived: true when a link was waiting for it. */
  #arrived(key: string): boolean {
    return this.#open.delete(key) || this.#waiting.delete(key);
  }

  #remember(bytes: Uint8Array, start: number, end: number, value: number): void {
    if (CidTable.fits(end - start)) this.#recent.set(bytes, start, value);
    else this.#recentOthers.set(byteKey(bytes.subarray(start, end)), value);
  }

  #recalled(bytes: Uint8Array, start: number, end: number): number {
    if (CidTable.fits(end - start)) return this.#recent.get(bytes, start);
    return this.#recentOthers.get(byteKey(bytes.subarray(start, end))) ?? -1;
  }

  #link(start: number, end: number): void {
    if (this.#doubt !== undefined) return;
    const bytes = this.#bytes;
    const kind = linkKind(bytes, start, end);
    if (kind === LinkKind.Skipped) return;
    if (kind === LinkKind.Invalid) {
      this.#doubt = 'a link is not a CID';
      return;
    }
    const seen = this.#recalled(bytes, start, end);
    if (seen === HEADER) this.#doubt = 'a block that is not a header links to a header';
    if (seen !== -1) return;
    const key = byteKey(bytes.subarray(start, end));
    if (!this.#waiting.has(key)) this.#open.set(key, kind);
  }
}
