/**
 * A CAR v1 reader for big imports (https://ipld.io/specs/transport/car/carv1/). @ipld/car's
 * streaming reader awaits several promises per block; this one parses whole read chunks
 * synchronously and hands out blocks in batches, checking every block's bytes against its CID. A
 * stream that ends inside a section is reported as truncated. Sections keep their CID as bytes
 * (what the blocks table keys on); the CID object is built only when asked for.
 */
import { CID } from 'multiformats/cid';
import { digestProblem } from '../../ipld/index.js';
import { decodeCbor } from '../../types/index.js';
import { cidText, EncodedBlock, readCid } from './cid-bytes.js';
import { SnapshotError, SnapshotErrorCode } from './errors.js';

/**
 * go-car's limits (ipld/go-car v2/internal/carv1/car.go, DefaultMaxAllowedHeaderSize and
 * DefaultMaxAllowedSectionSize): a length beyond them is refused before anything is buffered for it.
 */
export const MAX_CAR_HEADER_BYTES = 32 << 20;
export const MAX_CAR_SECTION_BYTES = 8 << 20;
/** go-varint's limit: 9 bytes hold 63 bits. */
const MAX_VARINT_BYTES = 9;

/**
 * Reads an unsigned varint at `at` with go-varint's rules (at most 9 bytes, minimal); undefined
 * when `bytes` ends first. Throws `CarSectionError` (at `fileOffset + at`, `bytes` starting at
 * `fileOffset` in the file) for an over-long or padded varint.
 */
function readVarint(bytes: Uint8Array, at: number, fileOffset: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length; i++) {
    if (i - at >= MAX_VARINT_BYTES) {
      throw new CarSectionError(
        fileOffset + at,
        `the length varint is over-long (more than ${MAX_VARINT_BYTES} bytes)`,
      );
    }
    const byte = bytes[i]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      if (byte === 0 && i > at)
        throw new CarSectionError(fileOffset + at, 'the length varint is not minimally encoded');
      return { value, next: i + 1 };
    }
    scale *= 0x80;
  }
  return undefined;
}

/** One verified block of the file (views into the read chunk, no copy), and its codec. */
export class CarSection extends EncodedBlock {
  readonly codec: number;

  constructor(cidBytes: Uint8Array, bytes: Uint8Array, codec: number) {
    super(cidBytes, bytes);
    this.codec = codec;
  }
}

export interface CarSections {
  readonly roots: readonly CID[];
  /** Blocks in file order, verified, in batches of whatever each read chunk held. */
  readonly batches: AsyncIterable<CarSection[]>;
}

/** What is wrong with the bytes, and where; the importer adds the file and the blocks read so far. */
export class CarSectionError extends SnapshotError {
  readonly offset: number;

  constructor(offset: number, reason: string, cause?: unknown) {
    super(SnapshotErrorCode.Corrupt, `at byte ${offset}: ${reason}`, cause === undefined ? undefined : { cause });
    this.offset = offset;
  }
}

function corrupt(_path: string, offset: number, reason: string, cause?: unknown): CarSectionError {
  return new CarSectionError(offset, reason, cause);
}

function parseHeader(bytes: Uint8Array, path: string): readonly CID[] {
  let header: unknown;
  try {
    header = decodeCbor(bytes, 'CAR header');
  } catch (error) {
    throw corrupt(path, 0, `the CAR header is not DAG-CBOR (${(error as Error).message})`, error);
  }
  const { version, roots } = (header ?? {}) as { version?: unknown; roots?: unknown };
  if (version === 2) throw corrupt(path, 0, 'CARv2 files are not supported: unwrap it to CAR v1 first');
  if (version !== 1 || !Array.isArray(roots)) throw corrupt(path, 0, 'not a CAR v1 header ({roots, version: 1})');
  return roots.map((root) => {
    const cid = CID.asCID(root);
    if (cid === null) throw corrupt(path, 0, 'a CAR root is not a CID');
    return cid;
  });
}

export async function readCarSections(source: AsyncIterable<Uint8Array>, path: string): Promise<CarSections> {
  const iterator = source[Symbol.asyncIterator]();
  let buffer: Uint8Array = new Uint8Array(0);
  /** File offset of `buffer[0]`. */
  let offset = 0;
  let ended = false;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const next = await iterator.next();
    if (next.done === true) {
      ended = true;
      return false;
    }
    buffer = buffer.length === 0 ? next.value : Buffer.concat([buffer, next.value]);
    return true;
  };
  // The header: varint length, then the DAG-CBOR map.
  let length: { value: number; next: number } | undefined;
  for (;;) {
    length = readVarint(buffer, 0, 0);
    if (length !== undefined && length.value > MAX_CAR_HEADER_BYTES) {
      throw corrupt(
        path,
        0,
        `the CAR header declares ${length.value} bytes, over the ${MAX_CAR_HEADER_BYTES}-byte limit`,
      );
    }
    if (length !== undefined && buffer.length >= length.next + length.value) break;
    if (!(await more())) throw corrupt(path, buffer.length, 'the file ends inside the CAR header');
  }
  const roots = parseHeader(buffer.subarray(length.next, length.next + length.value), path);
  buffer = buffer.subarray(length.next + length.value);
  offset = length.next + length.value;

  async function* batches(): AsyncGenerator<CarSection[]> {
    for (;;) {
      const blocks: CarSection[] = [];
      let at = 0;
      for (;;) {
        const section = readVarint(buffer, at, offset);
        if (section !== undefined && section.value > MAX_CAR_SECTION_BYTES) {
          throw corrupt(
            path,
            offset + at,
            `a section declares ${section.value} bytes, over the ${MAX_CAR_SECTION_BYTES}-byte limit`,
          );
        }
        if (section === undefined || buffer.length < section.next + section.value) break;
        const end = section.next + section.value;
        const cid = readCid(buffer.subarray(0, end), section.next);
        if (typeof cid === 'string') throw corrupt(path, offset + at, `invalid CID (${cid})`);
        const cidBytes = buffer.subarray(section.next, cid.end);
        const bytes = buffer.subarray(cid.end, end);
        const problem = digestProblem(cid.hashCode, cid.digest, bytes);
        if (problem !== undefined) {
          throw corrupt(path, offset + at, `block ${cidText(cidBytes)} failed verification: ${problem}`);
        }
        blocks.push(new CarSection(cidBytes, bytes, cid.codec));
        at = end;
      }
      buffer = buffer.subarray(at);
      offset += at;
      if (blocks.length > 0) yield blocks;
      if (!(await more())) {
        if (buffer.length > 0) throw corrupt(path, offset, 'the file ends inside a block (truncated)');
        return;
      }
    }
  }
  return { roots, batches: batches() };
}
