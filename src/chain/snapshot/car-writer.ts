/**
 * A CAR v1 writer for big exports (https://ipld.io/specs/transport/car/carv1/): the same bytes as
 * @ipld/car's writer, but sections are copied into ~1 MiB chunks before they reach the stream.
 * Writing every block as its own stream chunk costs a file-system round trip per block, which
 * dominated export time.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { CID } from 'multiformats/cid';
import type { Block } from '../../ipld/index.js';
import { encodeCbor } from '../../types/index.js';
import { EncodedBlock } from './cid-bytes.js';

const CHUNK_BYTES = 1 << 20;
/** A section's length varint takes at most this many bytes (go-car's sections are under 2^31 bytes). */
const MAX_VARINT_BYTES = 5;

/** Writes `value` as an unsigned varint at `at`; returns the offset after it. */
function putVarint(into: Uint8Array, at: number, value: number): number {
  let rest = value;
  let next = at;
  while (rest >= 0x80) {
    into[next++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  into[next++] = rest;
  return next;
}

/** Streams `blocks` as a CAR v1 with `roots` into `destination`, ending it when done. */
export async function writeCarChunked(
  destination: Writable,
  roots: readonly CID[],
  blocks: Iterable<Block> | AsyncIterable<Block>,
): Promise<void> {
  let failure: Error | undefined;
  const onError = (error: Error) => {
    failure = error;
  };
  destination.on('error', onError);
  const failed = new Promise<never>((_, reject) => destination.once('error', reject));
  failed.catch(() => undefined);
  // Sections are copied into one chunk buffer, handed to the stream whole when full.
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  const flush = async () => {
    if (failure !== undefined) throw failure;
    if (used === 0) return;
    const full = chunk.subarray(0, used);
    chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    used = 0;
    await write(full);
  };
  const write = async (bytes: Uint8Array) => {
    if (!destination.write(bytes)) await Promise.race([once(destination, 'drain'), failed]);
  };
  /** Copies a section (CID and data) into the chunk; false when the chunk must be flushed first. */
  const append = (cid: Uint8Array, data: Uint8Array): boolean => {
    const length = cid.length + data.length;
    if (used + MAX_VARINT_BYTES + length > CHUNK_BYTES) return false;
    used = putVarint(chunk, used, length);
    chunk.set(cid, used);
    chunk.set(data, used + cid.length);
    used += length;
    return true;
  };
  const section = async (cid: Uint8Array, data: Uint8Array) => {
    if (append(cid, data)) return;
    await flush();
    if (append(cid, data)) return;
    // A section bigger than a chunk goes to the stream on its own.
    const own = Buffer.allocUnsafe(MAX_VARINT_BYTES + cid.length + data.length);
    const at = putVarint(own, 0, cid.length + data.length);
    own.set(cid, at);
    own.set(data, at + cid.length);
    await write(own.subarray(0, at + cid.length + data.length));
  };
  const cidOf = (block: Block) => (block instanceof EncodedBlock ? block.cidBytes : block.cid.bytes);
  try {
    const header = encodeCbor({ roots: [...roots], version: 1 });
    await section(new Uint8Array(0), header);
    if (Symbol.iterator in blocks) {
      // A synchronous walk: no promise per block unless the chunk is full.
      for (const block of blocks) if (!append(cidOf(block), block.bytes)) await section(cidOf(block), block.bytes);
    } else {
      for await (const block of blocks) await section(cidOf(block), block.bytes);
    }
    await flush();
    destination.end();
    await Promise.race([once(destination, 'finish'), failed]);
    if (typeof (destination as { fd?: unknown }).fd !== 'undefined') {
      // A file stream: wait for the descriptor to close, so a rename right after sees every byte.
      if (!destination.closed) await Promise.race([once(destination, 'close'), failed]);
    }
  } catch (error) {
    destination.destroy();
    throw error;
  } finally {
    destination.off('error', onError);
  }
}
