/**
 * Reads a snapshot file as a byte stream, decompressing zstd (`.car.zst`) when the file starts
 * with zstd's frame magic, as Lotus detects it, whatever the file's name. Decompression is fzstd:
 * pure JavaScript, streaming, no native build or download at install (see docs/snapshots.md).
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Decompress } from 'fzstd';
import { SnapshotError, SnapshotErrorCode } from './errors.js';
import { ZstdFrameGuard } from './zstd-frames.js';

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const READ_CHUNK = 1 << 20;

export interface SnapshotSource {
  readonly path: string;
  /** The file's size on disk (compressed size for zstd). */
  readonly size: number;
  readonly compressed: boolean;
  /** Bytes of the file read so far: what progress and ETA are measured in. */
  bytesRead(): number;
  /** The CAR bytes (decompressed), in chunks. Iterate once. */
  chunks(): AsyncIterable<Uint8Array>;
}

async function startsWithZstdMagic(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const head = new Uint8Array(4);
    const { bytesRead } = await file.read(head, 0, 4, 0);
    return bytesRead === 4 && ZSTD_MAGIC.every((byte, i) => head[i] === byte);
  } finally {
    await file.close();
  }
}

export async function openSnapshotSource(path: string): Promise<SnapshotSource> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new SnapshotError(SnapshotErrorCode.Corrupt, `snapshot ${path} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError(SnapshotErrorCode.Corrupt, `cannot read snapshot ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const compressed = await startsWithZstdMagic(path);
  let read = 0;
  async function* raw(): AsyncGenerator<Uint8Array> {
    for await (const chunk of createReadStream(path, { highWaterMark: READ_CHUNK })) {
      read += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  }
  return {
    path,
    size,
    compressed,
    bytesRead: () => read,
    chunks: () => (compressed ? zstdDecompressed(raw(), path) : raw()),
  };
}

async function* zstdDecompressed(source: AsyncIterable<Uint8Array>, path: string): AsyncGenerator<Uint8Array> {
  let output: Uint8Array[] = [];
  const decompress = new Decompress((data) => {
    output.push(data);
  });
  const guard = new ZstdFrameGuard(path);
  const push = (chunk: Uint8Array, final: boolean) => {
    // Before fzstd sees a frame: it allocates the frame's declared window at once.
    guard.check(chunk);
    try {
      decompress.push(chunk, final);
    } catch (error) {
      throw new SnapshotError(
        SnapshotErrorCode.Corrupt,
        `snapshot ${path} is not valid zstd data: ${(error as Error).message}`,
        { cause: error },
      );
    }
  };
  for await (const chunk of source) {
    push(chunk, false);
    yield* output;
    output = [];
  }
  push(new Uint8Array(0), true);
  yield* output;
}
