/**
 * A CAR v1 writer for big exports (https://ipld.io/specs/transport/car/carv1/): the same bytes as
 * @ipld/car's writer, but sections are gathered into ~1 MiB chunks before they reach the stream.
 * Writing every block as its own stream chunk costs a file-system round trip per block, which
 * dominated export time.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { CID } from 'multiformats/cid';
import type { Block } from '../../ipld/index.js';
import { encodeCbor } from '../../types/index.js';

const CHUNK_BYTES = 1 << 20;

function varint(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
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
  let parts: Uint8Array[] = [];
  let pending = 0;
  const flush = async () => {
    if (failure !== undefined) throw failure;
    const chunk = Buffer.concat(parts, pending);
    parts = [];
    pending = 0;
    if (!destination.write(chunk)) await Promise.race([once(destination, 'drain'), failed]);
  };
  const push = async (part: Uint8Array) => {
    parts.push(part);
    pending += part.length;
    if (pending >= CHUNK_BYTES) await flush();
  };
  try {
    const header = encodeCbor({ roots: [...roots], version: 1 });
    await push(varint(header.length));
    await push(header);
    for await (const { cid, bytes } of blocks) {
      await push(varint(cid.bytes.length + bytes.length));
      await push(cid.bytes);
      await push(bytes);
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
