/**
 * Just enough canonical CBOR to read and write HAMT/AMT node envelopes while their values stay
 * encoded: a node is scanned without decoding its values, and written by splicing their bytes,
 * so loading a node creates no value objects and writing it re-encodes nothing that did not change
 * (as go-hamt-ipld keeps values as deferred raw CBOR). Values are decoded, strictly, only when read.
 */
import { CborDecodeError, encodeCbor } from '../types/cbor.js';
import { CID } from '../types/cid.js';
import { InvalidArgumentError } from '../utils/errors.js';

const MAJOR_UINT = 0;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;
const MAJOR_TAG = 6;
const MAJOR_SIMPLE = 7;
const CID_TAG = 42;
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads canonical DAG-CBOR items; `fail` builds the error thrown on malformed input. */
export class RawCborReader {
  #pos = 0;
  /** Major type of the head read last. */
  #major = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly fail: (reason: string) => Error,
  ) {}

  get atEnd(): boolean {
    return this.#pos === this.bytes.length;
  }

  /** True when the next item is a tag (in a node, a link). */
  nextIsTag(): boolean {
    if (this.atEnd) throw this.fail('unexpected end of block');
    return (this.bytes[this.#pos] as number) >>> 5 === MAJOR_TAG;
  }

  /** An unsigned integer node field (bit width, height, count), which must be below 2^53. */
  uint(): number {
    const value = this.#expect(MAJOR_UINT, 'an unsigned integer');
    if (value > Number.MAX_SAFE_INTEGER) throw this.fail('integer beyond 2^53 in a node field');
    return value;
  }

  arrayLength(): number {
    return this.#expect(MAJOR_ARRAY, 'an array');
  }

  mapLength(): number {
    return this.#expect(MAJOR_MAP, 'a map');
  }

  byteString(): Uint8Array {
    return this.#take(this.#expect(MAJOR_BYTES, 'a byte string'));
  }

  text(): string {
    const bytes = this.#take(this.#expect(MAJOR_TEXT, 'a text string'));
    try {
      return utf8Decoder.decode(bytes);
    } catch {
      throw this.fail('text string is not UTF-8');
    }
  }

  /**
   * A tag-42 link's binary CID (after its `0x00` prefix), checked for CID structure but not made
   * into a CID object: most links of a loaded node are never followed.
   */
  link(): Uint8Array {
    if (this.#expect(MAJOR_TAG, 'a link') !== CID_TAG) throw this.fail('a tag other than 42 (link)');
    const bytes = this.#take(this.#expect(MAJOR_BYTES, 'link bytes'));
    if (bytes[0] !== 0) throw this.fail('link bytes do not start with 0x00');
    const cid = bytes.subarray(1);
    // An explicit version 0 (`00 <codec> <multihash>`) is no CID's binary form: go-cid refuses it,
    // and multiformats would read it as another CID (the bare multihash) than the bytes say.
    if (cid[0] === 0) throw this.fail('invalid CID in link: an explicit version 0 prefix');
    let size: number;
    try {
      size = CID.inspectBytes(cid).size;
    } catch (error) {
      throw this.fail(`invalid CID in link: ${(error as Error).message}`);
    }
    if (size !== cid.length) throw this.fail('invalid CID in link: wrong length');
    return cid;
  }

  /**
   * The bytes of the next complete item (a value kept encoded). Its heads are checked here
   * (minimal, definite lengths; tag 42 only; no undefined or short floats); map key order and
   * UTF-8 are checked by the strict decoder when the value is read.
   */
  rawItem(): Uint8Array {
    const start = this.#pos;
    for (let pending = 1; pending > 0; pending--) {
      const argument = this.#head();
      const major = this.#major;
      if (major === MAJOR_BYTES || major === MAJOR_TEXT) this.#take(argument);
      else if (major === MAJOR_ARRAY) pending += argument;
      else if (major === MAJOR_MAP) pending += 2 * argument;
      else if (major === MAJOR_TAG) {
        if (argument !== CID_TAG) throw this.fail(`tag ${argument} is not allowed in DAG-CBOR`);
        pending++;
      }
    }
    return this.bytes.subarray(start, this.#pos);
  }

  #expect(major: number, what: string): number {
    const argument = this.#head();
    if (this.#major !== major) throw this.fail(`expected ${what}`);
    return argument;
  }

  #take(length: number): Uint8Array {
    if (length > this.bytes.length - this.#pos) throw this.fail('unexpected end of block');
    const out = this.bytes.subarray(this.#pos, this.#pos + length);
    this.#pos += length;
    return out;
  }

  /**
   * Reads the next head: sets `#major` and returns the argument (a length, a value, a tag). Rejects
   * non-minimal and indefinite forms. Beyond 2^53 the argument is approximate: exact enough for
   * the minimal-form check, any such length overruns the block, and uint() refuses it.
   */
  #head(): number {
    const bytes = this.bytes;
    let at = this.#pos;
    if (at >= bytes.length) throw this.fail('unexpected end of block');
    const initial = bytes[at++] as number;
    const major = initial >>> 5;
    const info = initial & 0x1f;
    this.#major = major;
    if (major === MAJOR_SIMPLE) {
      // DAG-CBOR allows false, true, null and 64-bit floats only.
      if (info === 27) at += 8;
      else if (info < 20 || info > 22)
        throw this.fail(`CBOR simple/float form 0x${initial.toString(16)} is not DAG-CBOR`);
      if (at > bytes.length) throw this.fail('unexpected end of block');
      this.#pos = at;
      return info;
    }
    let argument: number;
    let minimum: number;
    if (info < 24) {
      argument = info;
      minimum = 0;
    } else if (info === 24) {
      argument = bytes[at] as number;
      minimum = 24;
      at += 1;
    } else if (info === 25) {
      argument = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
      minimum = 0x100;
      at += 2;
    } else if (info === 26) {
      argument = readUint32(bytes, at);
      minimum = 0x10000;
      at += 4;
    } else if (info === 27) {
      argument = readUint32(bytes, at) * 2 ** 32 + readUint32(bytes, at + 4);
      minimum = 2 ** 32;
      at += 8;
    } else {
      throw this.fail('indefinite-length or reserved CBOR form');
    }
    if (at > bytes.length) throw this.fail('unexpected end of block');
    if (argument < minimum) throw this.fail('non-minimal CBOR integer or length');
    this.#pos = at;
    return argument;
  }
}

function readUint32(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at] as number) * 0x1000000 +
    (((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number))
  );
}

/**
 * Writes canonical DAG-CBOR into a shared scratch buffer and returns an exact-size copy. Not
 * re-entrant: each `finish` must come before the next encoding starts (encoding is synchronous).
 */
export class RawCborWriter {
  static #scratch = new Uint8Array(4096);
  #length = 0;

  uint(value: number): this {
    return this.#head(MAJOR_UINT, value);
  }

  array(length: number): this {
    return this.#head(MAJOR_ARRAY, length);
  }

  map(length: number): this {
    return this.#head(MAJOR_MAP, length);
  }

  byteString(bytes: Uint8Array): this {
    return this.#head(MAJOR_BYTES, bytes.length).raw(bytes);
  }

  /** Text made of ASCII characters (the legacy HAMT's "0"/"1" union keys). */
  asciiText(text: string): this {
    this.#head(MAJOR_TEXT, text.length);
    this.#reserve(text.length);
    for (let i = 0; i < text.length; i++) RawCborWriter.#scratch[this.#length++] = text.charCodeAt(i);
    return this;
  }

  /** A tag-42 link to the binary CID `bytes`. */
  link(bytes: Uint8Array): this {
    this.#head(MAJOR_TAG, CID_TAG).#head(MAJOR_BYTES, bytes.length + 1);
    this.#reserve(1);
    RawCborWriter.#scratch[this.#length++] = 0;
    return this.raw(bytes);
  }

  /** Bytes that already are one encoded item. */
  raw(bytes: Uint8Array): this {
    this.#reserve(bytes.length);
    RawCborWriter.#scratch.set(bytes, this.#length);
    this.#length += bytes.length;
    return this;
  }

  finish(): Uint8Array {
    return RawCborWriter.#scratch.slice(0, this.#length);
  }

  #head(major: number, argument: number): this {
    this.#reserve(9);
    const out = RawCborWriter.#scratch;
    const at = this.#length;
    const prefix = major << 5;
    if (argument < 24) {
      out[at] = prefix | argument;
      this.#length += 1;
    } else if (argument < 0x100) {
      out[at] = prefix | 24;
      out[at + 1] = argument;
      this.#length += 2;
    } else if (argument < 0x10000) {
      out[at] = prefix | 25;
      new DataView(out.buffer).setUint16(at + 1, argument);
      this.#length += 3;
    } else if (argument < 2 ** 32) {
      out[at] = prefix | 26;
      new DataView(out.buffer).setUint32(at + 1, argument);
      this.#length += 5;
    } else {
      out[at] = prefix | 27;
      const view = new DataView(out.buffer);
      view.setUint32(at + 1, Math.floor(argument / 2 ** 32));
      view.setUint32(at + 5, argument >>> 0);
      this.#length += 9;
    }
    return this;
  }

  #reserve(extra: number): void {
    const needed = this.#length + extra;
    if (needed <= RawCborWriter.#scratch.length) return;
    const grown = new Uint8Array(Math.max(needed, RawCborWriter.#scratch.length * 2));
    grown.set(RawCborWriter.#scratch.subarray(0, this.#length));
    RawCborWriter.#scratch = grown;
  }
}

/** Throws unless `bytes` are exactly one well-formed DAG-CBOR item. */
export function checkEncodedValue(bytes: Uint8Array): void {
  const reader = new RawCborReader(bytes, (reason) => new CborDecodeError(`invalid encoded value: ${reason}`));
  reader.rawItem();
  if (!reader.atEnd) throw new CborDecodeError('invalid encoded value: trailing bytes after one item');
}

/** A value's DAG-CBOR bytes; `what` (and the AMT index `at`) name it when it cannot be encoded. */
export function encodeValue(value: unknown, what: string, at?: number | bigint): Uint8Array {
  if (value === undefined) throw new InvalidArgumentError(`${where(what, at)}: undefined is not a DAG-CBOR value`);
  try {
    return encodeCbor(value);
  } catch (error) {
    throw new InvalidArgumentError(`${where(what, at)}: cannot encode as DAG-CBOR: ${(error as Error).message}`);
  }
}

function where(what: string, at: number | bigint | undefined): string {
  return at === undefined ? what : `${what} at index ${at}`;
}
