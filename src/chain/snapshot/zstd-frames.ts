/**
 * A guard in front of the zstd decompressor: it follows the frame and block structure of the
 * compressed stream (RFC 8878 §3.1) and refuses a frame whose window — what a decoder allocates
 * before it has decoded a byte — is larger than zstd's own default decompression limit. Without
 * it a 12-byte file declaring a 1.9 GB single-segment frame made fzstd allocate 1.9 GB.
 */
import { SnapshotError, SnapshotErrorCode } from './errors.js';

/** facebook/zstd lib/zstd.h `ZSTD_WINDOWLOG_LIMIT_DEFAULT` (27): larger windows need `zstd --long`/`--memory`. */
export const MAX_ZSTD_WINDOW_BYTES = 2 ** 27;

const FRAME_MAGIC = 0xfd2fb528;
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F, a 4-byte size, then that many bytes. */
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const BLOCK_HEADER_BYTES = 3;
const RESERVED_BLOCK_TYPE = 3;
const RLE_BLOCK_TYPE = 1;

type Expecting = 'frame' | 'block';

export class ZstdFrameGuard {
  readonly #path: string;
  /** Header bytes seen but not yet complete (at most a frame header: 18 bytes). */
  #header: number[] = [];
  #expecting: Expecting = 'frame';
  /** Payload bytes still to pass before the next header. */
  #skip = 0;
  /** The frame has a content checksum: 4 bytes after its last block. */
  #checksum = false;
  /** Compressed bytes checked so far, for error messages. */
  #offset = 0;

  constructor(path: string) {
    this.#path = path;
  }

  /** Walks `chunk`; throws SnapshotError (ERR_SNAPSHOT_CORRUPT) for a frame it refuses. */
  check(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#skip > 0) {
        const step = Math.min(this.#skip, chunk.length - at);
        this.#skip -= step;
        this.#offset += step;
        at += step;
        continue;
      }
      this.#header.push(chunk[at]!);
      this.#offset++;
      at++;
      if (this.#expecting === 'frame') this.#readFrameHeader();
      else this.#readBlockHeader();
    }
  }

  #fail(reason: string): never {
    throw new SnapshotError(
      SnapshotErrorCode.Corrupt,
      `snapshot ${this.#path} is not usable zstd data: ${reason} (compressed byte ${this.#offset})`,
    );
  }

  #readFrameHeader(): void {
    const h = this.#header;
    if (h.length < 4) return;
    const magic = (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (h.length < 8) return;
      this.#skip = (h[4]! | (h[5]! << 8) | (h[6]! << 16) | (h[7]! << 24)) >>> 0;
      this.#header = [];
      return;
    }
    if (magic !== FRAME_MAGIC) this.#fail(`unknown frame magic 0x${magic.toString(16)}`);
    if (h.length < 5) return;
    const descriptor = h[4]!;
    const contentSizeFlag = descriptor >> 6;
    const singleSegment = (descriptor >> 5) & 1;
    const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]!;
    const contentSizeBytes = contentSizeFlag === 0 ? singleSegment : 1 << contentSizeFlag;
    const headerBytes = 5 + (singleSegment === 1 ? 0 : 1) + dictionaryBytes + contentSizeBytes;
    if (h.length < headerBytes) return;
    let window: number;
    if (singleSegment === 1) {
      // The window is the whole content: its declared size.
      let size = 0;
      for (let i = contentSizeBytes - 1; i >= 0; i--) size = size * 256 + h[headerBytes - contentSizeBytes + i]!;
      window = contentSizeFlag === 1 ? size + 256 : size;
    } else {
      const exponent = h[5]! >> 3;
      const base = 2 ** (10 + exponent);
      window = base + (base / 8) * (h[5]! & 7);
    }
    if (window > MAX_ZSTD_WINDOW_BYTES) {
      this.#fail(
        `a frame declares a ${window}-byte window, over the ${MAX_ZSTD_WINDOW_BYTES}-byte limit ` +
          '(compress without --long, or decompress the file first)',
      );
    }
    this.#checksum = ((descriptor >> 2) & 1) === 1;
    this.#header = [];
    this.#expecting = 'block';
  }

  #readBlockHeader(): void {
    const h = this.#header;
    if (h.length < BLOCK_HEADER_BYTES) return;
    const value = h[0]! | (h[1]! << 8) | (h[2]! << 16);
    const last = (value & 1) === 1;
    const type = (value >> 1) & 3;
    if (type === RESERVED_BLOCK_TYPE) this.#fail('a block of the reserved type');
    this.#skip = type === RLE_BLOCK_TYPE ? 1 : value >> 3;
    this.#header = [];
    if (last) {
      this.#skip += this.#checksum ? 4 : 0;
      this.#expecting = 'frame';
    }
  }
}
