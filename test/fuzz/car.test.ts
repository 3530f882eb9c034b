/**
 * Fuzz of the two CAR v1 readers of outside files: `readCar` (src/ipld/car.ts, genesis and test
 * CARs) and the snapshot importer's `readCarSections` (src/chain/snapshot/car-reader.ts). Inputs
 * are random bytes and mutations of a real CAR (the first blocks of mainnet export40.car, written
 * by our `writeCar`): the generic byte and CBOR-head damage plus CAR-specific varint damage —
 * over-long and padded length varints, lengths of 2^31 and more that no bytes back — fed in
 * chunks of random sizes. Each read yields blocks or fails with the reader's typed error; none
 * hangs or buffers what a declared length asks for beyond go-car's limits. Round trip: arbitrary
 * blocks written by `writeCar` read back identically through both readers.
 */
import { createReadStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { CarSectionError, MAX_CAR_SECTION_BYTES, readCarSections } from '../../src/chain/snapshot/car-reader.js';
import { type Block, readCar, writeCar } from '../../src/ipld/index.js';
import { cidOfCbor, encodeCbor } from '../../src/types/index.js';
import { encodeUvarint } from '../../src/types/uvarint.js';
import { vectorPath } from '../vectors/vectors-dir.js';
import { decodeCheckedAsync, fuzzParams, hex, mutationsOf, randomBytes, SEED } from './fuzz-kit.js';

const CAR_RULE = { codes: ['ERR_CAR_FORMAT', 'ERR_BLOCK_VERIFICATION'], names: /CAR|block/ };
const SECTIONS_RULE = { codes: ['ERR_SNAPSHOT_CORRUPT'], names: /at byte \d+/ };

async function carBytes(roots: Block['cid'][], blocks: Block[]): Promise<Uint8Array> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeCar(out, roots, blocks);
  return new Uint8Array(Buffer.concat(chunks));
}

/** `bytes` as a stream of chunks of the given sizes (the last chunk takes the rest). */
async function* chunked(bytes: Uint8Array, sizes: readonly number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) return;
    yield bytes.subarray(at, at + size);
    at += size;
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

const chunkSizes = fc.array(fc.integer({ min: 1, max: 512 }), { maxLength: 8 });

async function readAllCar(bytes: Uint8Array, sizes: readonly number[]): Promise<{ roots: string[]; blocks: Block[] }> {
  const car = await readCar(chunked(bytes, sizes));
  const blocks: Block[] = [];
  for await (const block of car) blocks.push(block);
  return { roots: car.roots.map(String), blocks };
}

async function readAllSections(
  bytes: Uint8Array,
  sizes: readonly number[],
): Promise<{ roots: string[]; blocks: Block[] }> {
  const car = await readCarSections(chunked(bytes, sizes), 'fuzz.car');
  const blocks: Block[] = [];
  for await (const batch of car.batches) blocks.push(...batch);
  return { roots: car.roots.map(String), blocks };
}

/** Offsets and lengths of the CAR's length varints: the header's, then each section's. */
function carVarints(bytes: Uint8Array): { at: number; width: number; value: number }[] {
  const found: { at: number; width: number; value: number }[] = [];
  let at = 0;
  while (at < bytes.length) {
    let value = 0;
    let width = 0;
    while (bytes[at + width]! >= 0x80) value += (bytes[at + width++]! & 0x7f) * 2 ** (7 * (width - 1));
    value += bytes[at + width]! * 2 ** (7 * width);
    width++;
    found.push({ at, width, value });
    at += width + value;
  }
  return found;
}

/** CAR damage: one length varint padded, made over-long, or made to declare a huge length. */
function varintMutations(valid: Uint8Array): fc.Arbitrary<Uint8Array> {
  const varints = carVarints(valid);
  return fc
    .tuple(
      fc.nat(),
      fc.constantFrom('padded', 'over-long', 'huge'),
      fc.constantFrom(2n ** 31n, 2n ** 32n, 2n ** 53n, 2n ** 63n - 1n, BigInt(MAX_CAR_SECTION_BYTES) + 1n),
    )
    .map(([pick, kind, huge]) => {
      const { at, width, value } = varints[pick % varints.length]!;
      let replacement: number[];
      if (kind === 'padded') {
        const minimal = [...encodeUvarint(BigInt(value))];
        replacement = [...minimal.slice(0, -1), minimal.at(-1)! | 0x80, 0x00];
      } else if (kind === 'over-long') {
        replacement = [...Array(10).fill(0xff), 0x01];
      } else {
        replacement = [...encodeUvarint(huge)];
      }
      return Uint8Array.from([...valid.subarray(0, at), ...replacement, ...valid.subarray(at + width)]);
    });
}

let valid: Uint8Array;
let realBlocks: Block[];
beforeAll(async () => {
  const car = await readCar(createReadStream(vectorPath('blocks', 'export40.car')));
  realBlocks = [];
  for await (const block of car) {
    realBlocks.push(block);
    if (realBlocks.length === 6) break;
  }
  valid = await carBytes([realBlocks[0]!.cid], realBlocks);
});

describe(`CAR readers (fast-check seed ${SEED})`, () => {
  test('the real CAR reads back through both readers', async () => {
    for (const read of [readAllCar, readAllSections]) {
      const { roots, blocks } = await read(valid, [7, 100]);
      expect(roots).toEqual([realBlocks[0]!.cid.toString()]);
      expect(blocks.map((b) => b.cid.toString())).toEqual(realBlocks.map((b) => b.cid.toString()));
    }
  });

  const inputs = () =>
    fc.oneof(
      { weight: 1, arbitrary: randomBytes },
      { weight: 3, arbitrary: mutationsOf([valid]) },
      { weight: 2, arbitrary: varintMutations(valid) },
    );

  test('readCar (src/ipld): blocks or ERR_CAR_FORMAT / ERR_BLOCK_VERIFICATION', async () => {
    await fc.assert(
      fc.asyncProperty(inputs(), chunkSizes, async (bytes, sizes) => {
        await decodeCheckedAsync(() => readAllCar(bytes, sizes), CAR_RULE, bytes);
      }),
      fuzzParams(0.4),
    );
  });

  test('readCarSections (snapshot import): blocks or ERR_SNAPSHOT_CORRUPT naming the byte offset', async () => {
    await fc.assert(
      fc.asyncProperty(inputs(), chunkSizes, async (bytes, sizes) => {
        const outcome = await decodeCheckedAsync(() => readAllSections(bytes, sizes), SECTIONS_RULE, bytes);
        if (!outcome.ok) expect(outcome.error).toBeInstanceOf(CarSectionError);
      }),
      fuzzParams(0.4),
    );
  });

  const block = fc
    .oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.jsonValue({ maxDepth: 3 }).map((json) => encodeCbor(json ?? null)),
    )
    .map((bytes): Block => ({ cid: cidOfCbor(bytes), bytes }));

  test('round trip: arbitrary blocks written by writeCar read back the same through both readers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(block, { minLength: 1, maxLength: 6 }), chunkSizes, async (blocks, sizes) => {
        const roots = [blocks[0]!.cid];
        const bytes = await carBytes(roots, blocks);
        for (const read of [readAllCar, readAllSections]) {
          const back = await read(bytes, sizes);
          expect(back.roots).toEqual(roots.map(String));
          expect(back.blocks.map((b) => [b.cid.toString(), hex(b.bytes)])).toEqual(
            blocks.map((b) => [b.cid.toString(), hex(b.bytes)]),
          );
        }
        expect(hex(await carBytes(roots, blocks))).toBe(hex(bytes));
      }),
      fuzzParams(0.2),
    );
  });
});
