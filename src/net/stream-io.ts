/**
 * Filecoin's request/response protocols (hello, chain exchange) put one CBOR object on a stream
 * with no length prefix. `readCborObject` collects chunks until the first complete CBOR item is
 * there, refusing more than `maxBytes` and giving up after `timeoutMs`.
 */
import * as dagCbor from '@ipld/dag-cbor';
import type { Stream } from '@libp2p/interface';
import { decodeFirst } from 'cborg';
import { NetError, NetErrorCode } from './errors.js';

export interface ReadLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** Names the message in errors ("hello message from <peer>"). */
  readonly what: string;
}

/** The byte length of the first complete CBOR item in `bytes`, or undefined when more bytes are needed. */
function firstItemLength(bytes: Uint8Array, what: string): number | undefined {
  try {
    const [, rest] = decodeFirst(bytes, dagCbor.decodeOptions);
    return bytes.length - rest.length;
  } catch (error) {
    if (/unexpected end|not enough (data|entries)/i.test((error as Error).message)) return undefined;
    throw new NetError(NetErrorCode.BadMessage, `${what}: invalid CBOR: ${(error as Error).message}`, { cause: error });
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

function checkWhole(all: Uint8Array, itemLength: number, what: string): Uint8Array {
  if (itemLength !== all.length)
    throw new NetError(NetErrorCode.BadMessage, `${what}: ${all.length - itemLength} trailing bytes`);
  return all;
}

/** Reads the first CBOR object off the stream and returns its exact bytes (trailing bytes are refused). */
export async function readCborObject(stream: Stream, limits: ReadLimits): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new NetError(
        NetErrorCode.Timeout,
        `${limits.what}: no complete message within ${limits.timeoutMs} ms`,
      );
      stream.abort(error);
      reject(error);
    }, limits.timeoutMs);
  });
  const read = (async () => {
    // Decoding is retried only when the buffer has doubled, so a large response costs linear time;
    // a peer that keeps the stream open after its message (as Lotus does) is still answered.
    let nextAttempt = 1;
    for await (const chunk of stream) {
      const bytes = chunk instanceof Uint8Array ? chunk : chunk.subarray();
      chunks.push(bytes);
      length += bytes.length;
      if (length > limits.maxBytes) {
        throw new NetError(NetErrorCode.BadMessage, `${limits.what}: larger than ${limits.maxBytes} bytes`);
      }
      if (length >= nextAttempt) {
        nextAttempt = length * 2;
        const all = concat(chunks, length);
        const itemLength = firstItemLength(all, limits.what);
        if (itemLength !== undefined) return checkWhole(all, itemLength, limits.what);
      }
    }
    const all = concat(chunks, length);
    if (all.length === 0)
      throw new NetError(NetErrorCode.BadMessage, `${limits.what}: the stream closed without a message`);
    const itemLength = firstItemLength(all, limits.what);
    if (itemLength === undefined) {
      throw new NetError(NetErrorCode.BadMessage, `${limits.what}: the stream closed in the middle of a message`);
    }
    return checkWhole(all, itemLength, limits.what);
  })();
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Writes the bytes and closes the write side, so the other end sees the message end. */
export async function writeAndClose(stream: Stream, bytes: Uint8Array): Promise<void> {
  if (!stream.send(bytes)) await stream.onDrain();
  await stream.close();
}
