/**
 * CAR v1 streams (https://ipld.io/specs/transport/car/carv1/) through @ipld/car: blocks are read
 * one at a time from any byte stream (memory stays bounded by the largest block plus one read
 * chunk) and every block is checked against its CID; writing streams blocks to a Node Writable with
 * backpressure.
 */
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CarBlockIterator, CarWriter } from '@ipld/car';
import type { CID } from '../types/cid.js';
import type { Block, Blockstore } from './blockstore.js';
import { CarFormatError } from './errors.js';
import { verifyBlock } from './verify-block.js';

export interface CarReadOptions {
  /** Check every block's bytes against its CID (default true). */
  verify?: boolean;
}

/** The header roots, and the blocks in file order (iterable once). */
export interface CarBlockStream extends AsyncIterable<Block> {
  readonly roots: readonly CID[];
}

/** Reads the header now; blocks are parsed (and verified) as they are iterated. */
export async function readCar(
  source: AsyncIterable<Uint8Array>,
  options: CarReadOptions = {},
): Promise<CarBlockStream> {
  let iterator: CarBlockIterator;
  try {
    iterator = await CarBlockIterator.fromIterable(source);
  } catch (error) {
    throw asCarError(error, 'invalid CAR header');
  }
  const roots = await iterator.getRoots();
  const verify = options.verify ?? true;
  return { roots, [Symbol.asyncIterator]: () => checkedBlocks(iterator, verify) };
}

async function* checkedBlocks(iterator: CarBlockIterator, verify: boolean): AsyncGenerator<Block> {
  const blocks = iterator[Symbol.asyncIterator]();
  for (let index = 0; ; index++) {
    let next: IteratorResult<Block>;
    try {
      next = await blocks.next();
    } catch (error) {
      throw asCarError(error, `invalid CAR section for block #${index}`);
    }
    if (next.done) return;
    if (verify) verifyBlock(next.value.cid, next.value.bytes);
    yield next.value;
  }
}

/** Parse failures from @ipld/car become CarFormatError; I/O errors (with a system `code`) pass through. */
function asCarError(error: unknown, context: string): unknown {
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string') return error;
  return new CarFormatError(`${context}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/** Streams `blocks` as a CAR v1 with `roots` into `destination`, which is ended when done. */
export async function writeCar(
  destination: Writable,
  roots: readonly CID[],
  blocks: Iterable<Block> | AsyncIterable<Block>,
): Promise<void> {
  const { writer, out } = CarWriter.create([...roots]);
  const output = Readable.from(out);
  const piping = pipeline(output, destination);
  try {
    // A failing destination never drains the writer: racing `piping` surfaces its error instead of hanging.
    for await (const block of blocks) await Promise.race([writer.put(block), piping]);
    await Promise.race([writer.close(), piping]);
  } catch (error) {
    output.destroy(error instanceof Error ? error : new Error(String(error)));
    await piping.catch(() => undefined);
    throw error;
  }
  await piping;
}

/** Copies every block of a CAR into `store` (verified, in `putMany` batches) and returns the roots. */
export async function importCar(
  store: Blockstore,
  source: AsyncIterable<Uint8Array>,
  options: CarReadOptions & { batchSize?: number } = {},
): Promise<{ roots: readonly CID[]; blockCount: number }> {
  const car = await readCar(source, options);
  const batchSize = options.batchSize ?? 1024;
  let batch: Block[] = [];
  let blockCount = 0;
  for await (const block of car) {
    batch.push(block);
    blockCount++;
    if (batch.length >= batchSize) {
      store.putMany(batch);
      batch = [];
    }
  }
  store.putMany(batch);
  return { roots: car.roots, blockCount };
}
