import { createHash } from 'node:crypto';
import { PassThrough, Writable } from 'node:stream';
import * as Digest from 'multiformats/hashes/digest';
import { type Block, BlockVerificationError, CarFormatError, readCar, writeCar } from '../../src/ipld/index.js';
import { encodeCbor } from '../../src/types/cbor.js';
import { CID, cidOfCbor } from '../../src/types/cid.js';
import { bytesEqual, concatBytes } from '../../src/utils/bytes.js';

const DAG_CBOR = 0x71;

function blakeBlock(value: unknown): Block {
  const bytes = encodeCbor(value);
  return { cid: cidOfCbor(bytes), bytes };
}

function shaBlock(value: unknown): Block {
  const bytes = encodeCbor(value);
  return { cid: CID.createV1(DAG_CBOR, Digest.create(0x12, createHash('sha256').update(bytes).digest())), bytes };
}

function identityBlock(value: unknown): Block {
  const bytes = encodeCbor(value);
  return { cid: CID.createV1(DAG_CBOR, Digest.create(0x00, bytes)), bytes };
}

async function carBytes(roots: CID[], blocks: Iterable<Block> | AsyncIterable<Block>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await writeCar(sink, roots, blocks);
  return concatBytes(...chunks);
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function readAll(bytes: Uint8Array, options = {}): Promise<{ roots: readonly CID[]; blocks: Block[] }> {
  const car = await readCar(chunked(bytes, 7), options);
  const blocks: Block[] = [];
  for await (const block of car) blocks.push(block);
  return { roots: car.roots, blocks };
}

const sample = [
  blakeBlock({ hello: 'world' }),
  shaBlock([1, 2, 3]),
  identityBlock('tiny'),
  blakeBlock(new Uint8Array(5000)),
];

describe('CAR v1', () => {
  test('round trips roots and blocks (blake2b-256, sha2-256 and identity CIDs) through small chunks', async () => {
    const bytes = await carBytes([sample[0]!.cid], sample);
    const { roots, blocks } = await readAll(bytes);
    expect(roots.map(String)).toEqual([sample[0]!.cid.toString()]);
    expect(blocks.map((b) => b.cid.toString())).toEqual(sample.map((b) => b.cid.toString()));
    for (const [i, b] of blocks.entries()) expect(bytesEqual(b.bytes, sample[i]!.bytes)).toBe(true);
  });

  test('writes from an async block source', async () => {
    async function* source(): AsyncGenerator<Block> {
      yield* sample;
    }
    expect(await carBytes([], source())).toEqual(await carBytes([], sample));
  });

  test('a block whose bytes do not match its CID fails, naming the block', async () => {
    const good = blakeBlock('good');
    const forged: Block = { cid: blakeBlock('claimed').cid, bytes: encodeCbor('actual') };
    const bytes = await carBytes([], [good, forged]);
    await expect(readAll(bytes)).rejects.toThrow(BlockVerificationError);
    await expect(readAll(bytes)).rejects.toThrow(forged.cid.toString());
    expect((await readAll(bytes, { verify: false })).blocks).toHaveLength(2);

    const unsupported: Block = {
      cid: CID.createV1(DAG_CBOR, Digest.create(0x13, new Uint8Array(64))),
      bytes: good.bytes,
    };
    await expect(readAll(await carBytes([], [unsupported]))).rejects.toThrow(/unsupported multihash 0x13/);
  });

  test('truncated or garbled input is a CarFormatError', async () => {
    const bytes = await carBytes([], sample);
    await expect(readAll(bytes.subarray(0, bytes.length - 10))).rejects.toThrow(CarFormatError);
    await expect(readAll(bytes.subarray(0, bytes.length - 10))).rejects.toThrow(/block #3/);
    await expect(readAll(new Uint8Array([0x05, 1, 2, 3, 4, 5]))).rejects.toThrow(CarFormatError);
    await expect(readAll(new Uint8Array())).rejects.toThrow(CarFormatError);
  });

  test('a failing destination rejects the write instead of hanging', async () => {
    const failing = new Writable({
      write(_chunk, _encoding, done) {
        done(new Error('disk full'));
      },
    });
    await expect(writeCar(failing, [], sample)).rejects.toThrow('disk full');
  });

  test('a failing block source rejects the write and ends the destination', async () => {
    async function* broken(): AsyncGenerator<Block> {
      yield sample[0]!;
      throw new Error('store failed');
    }
    const destination = new PassThrough();
    destination.resume();
    await expect(writeCar(destination, [], broken())).rejects.toThrow('store failed');
    expect(destination.destroyed).toBe(true);
  });
});
