/**
 * Fuzz of the zstd path of snapshot import (`openSnapshotSource(...).chunks()` on a `.car.zst`,
 * src/chain/snapshot/source.ts): random bytes behind the zstd magic, and mutations of a real
 * compressed CAR (the first blocks of mainnet export40.car, compressed by the `zstd` tool) —
 * byte damage plus frame headers that declare huge windows or content sizes. Each file
 * decompresses or fails with ERR_SNAPSHOT_CORRUPT, and never makes the decompressor allocate what
 * the header declares beyond zstd's default window limit. Round trip: what `zstd` compresses
 * comes back byte for byte.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { openSnapshotSource } from '../../src/chain/snapshot/index.js';
import { MAX_ZSTD_WINDOW_BYTES } from '../../src/chain/snapshot/zstd-frames.js';
import { readCar } from '../../src/ipld/index.js';
import { vectorPath } from '../vectors/vectors-dir.js';
import { decodeCheckedAsync, fuzzParams, hex, mutationsOf, SEED } from './fuzz-kit.js';

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const RULE = { codes: ['ERR_SNAPSHOT_CORRUPT'], names: /zstd/ };

let dir: string;
let compressed: Uint8Array;
let file = 0;

const zstd = (bytes: Uint8Array): Uint8Array => new Uint8Array(execFileSync('zstd', ['-q', '-c'], { input: bytes }));

async function decompressFile(bytes: Uint8Array): Promise<Uint8Array> {
  const path = join(dir, `fuzz-${file++}.car.zst`);
  writeFileSync(path, bytes);
  const source = await openSnapshotSource(path);
  const chunks: Uint8Array[] = [];
  for await (const chunk of source.chunks()) chunks.push(chunk);
  rmSync(path);
  return new Uint8Array(Buffer.concat(chunks));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-fuzz-zstd-'));
  const car = await readCar(createReadStream(vectorPath('blocks', 'export40.car')));
  const parts: Uint8Array[] = [];
  for await (const block of car) {
    parts.push(block.bytes);
    if (parts.length === 6) break;
  }
  compressed = zstd(Buffer.concat(parts));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Frame headers that declare what no bytes back: single-segment content sizes, window descriptors. */
const hugeHeaders = fc
  .tuple(
    fc.constantFrom(
      [0xa0, 0x00, 0x00, 0x00, 0x70], // single segment, 4-byte content size 1.8 GB
      [0xe0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], // single segment, 8-byte content size
      [0x00, 0xe8], // window 2^39
      [0x00, 0xa0], // window 2^30
      [0x00, 0x88], // window 2^27 (the limit: allowed)
      [0x60, 0x00, 0xff, 0xff], // 2-byte content size
    ),
    fc.uint8Array({ maxLength: 40 }),
  )
  .map(([header, rest]) => Uint8Array.from([...MAGIC, ...header, ...rest]));

describe(`zstd snapshots (fast-check seed ${SEED})`, () => {
  test('a real compressed CAR decompresses', async () => {
    expect((await decompressFile(compressed)).length).toBeGreaterThan(compressed.length);
  });

  test('random, mutated and huge-window frames: the bytes, or ERR_SNAPSHOT_CORRUPT with bounded memory', async () => {
    const inputs = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((rest) => Uint8Array.from([...MAGIC, ...rest])),
      {
        weight: 3,
        arbitrary: mutationsOf([compressed]).filter((b) => b.length >= 4 && MAGIC.every((m, i) => b[i] === m)),
      },
      { weight: 2, arbitrary: hugeHeaders },
    );
    await fc.assert(
      fc.asyncProperty(inputs, async (bytes) => {
        // A frame may ask for zstd's default window limit, no more (plus the file's own buffers).
        await decodeCheckedAsync(() => decompressFile(bytes), RULE, bytes, {
          maxGrowth: MAX_ZSTD_WINDOW_BYTES + (16 << 20),
        });
      }),
      fuzzParams(0.2),
    );
  });

  test('round trip: what zstd compresses decompresses to the same bytes, frames and skippable frames concatenated', async () => {
    const skippable = (payload: Uint8Array) => {
      const size = Buffer.alloc(4);
      size.writeUInt32LE(payload.length);
      return Uint8Array.from([0x5a, 0x2a, 0x4d, 0x18, ...size, ...payload]);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 4096 }), { minLength: 1, maxLength: 3 }),
        fc.option(fc.uint8Array({ maxLength: 32 }), { nil: undefined }),
        async (parts, skipped) => {
          const frames = parts.map(zstd);
          if (skipped !== undefined) frames.splice(1, 0, skippable(skipped));
          const back = await decompressFile(Uint8Array.from(Buffer.concat(frames)));
          expect(hex(back)).toBe(hex(Buffer.concat(parts)));
        },
      ),
      fuzzParams(0.03),
    );
  });
});
