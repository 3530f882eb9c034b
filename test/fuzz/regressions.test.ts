/**
 * The minimal counterexamples the decoder fuzz suites found, kept as plain tests so each fix stays
 * fixed whatever the seed:
 * - CIDs with an explicit version 0 prefix (`00 <codec> <multihash>`): multiformats reads them and
 *   writes them back as a bare multihash, so a header or TxMeta holding one re-encoded to other
 *   bytes (another CID) than it arrived as, and a HAMT/AMT link holding one named another block
 *   than its bytes; go-cid refuses them, and so do we now;
 * - a snapshot whose CAR header varint is over-long: the importer threw a plain Error, which the
 *   CLI printed with a stack trace (issue 18); it is now ERR_SNAPSHOT_CORRUPT naming the byte;
 * - a 10-byte `.car.zst` whose frame declares a 1.8 GB single-segment content size: fzstd allocated
 *   1.8 GB for it; frames with windows over zstd's default limit (128 MiB) are now refused first.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CID } from 'multiformats/cid';
import { ChainStore } from '../../src/chain/index.js';
import { CarSectionError, readCarSections } from '../../src/chain/snapshot/car-reader.js';
import { importSnapshot, openSnapshotSource, SnapshotError } from '../../src/chain/snapshot/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { MalformedNodeError } from '../../src/ipld/errors.js';
import { decodeHamtNode } from '../../src/ipld/hamt-node.js';
import { Hamt, MemoryBlockstore } from '../../src/ipld/index.js';
import {
  CborDecodeError,
  decodeCbor,
  decodeTipSetKey,
  decodeTxMeta,
  InvalidCidError,
  TipSetKey,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { PARAMS } from '../helpers/genesis.js';

/** A blake2b-256 multihash (code 0xb220, 32 bytes), as chain CIDs carry. */
const MULTIHASH = `a0e40220${'0e8757e2f0101b6f4b750ae279e94af04107fe67cfdeee923a6f592f5935b5f6'}`;
const CANONICAL = `0171${MULTIHASH}`;
/** The same multihash behind an explicit CID version 0 and the dag-cbor codec: no CID's one form. */
const EXPLICIT_V0 = `0071${MULTIHASH}`;

describe('CIDs in a non-canonical binary form are refused', () => {
  test('in DAG-CBOR tag 42 (TxMeta found by the fuzzer; any typed decoder and decodeCbor)', () => {
    const link = (cidHex: string) => `d82a58${(cidHex.length / 2 + 1).toString(16)}00${cidHex}`;
    expect(() => decodeTxMeta(fromHex(`82${link(CANONICAL)}${link(CANONICAL)}`))).not.toThrow();
    const bad = fromHex(`82${link(EXPLICIT_V0)}${link(CANONICAL)}`);
    expect(() => decodeTxMeta(bad)).toThrow(CborDecodeError);
    expect(() => decodeTxMeta(bad)).toThrow(/TxMeta: .*non-canonical CID bytes/);
    expect(() => decodeCbor(bad, 'TxMeta')).toThrow(/non-canonical CID bytes/);
  });

  test('in a HAMT node link (ERR_MALFORMED_NODE)', () => {
    const store = new MemoryBlockstore();
    const hamt = Hamt.create(store);
    for (let i = 0; i < 100; i++) hamt.set(new TextEncoder().encode(`key ${i}`), i);
    const root = hamt.flush();
    const bytes = toHex(store.get(root)!);
    expect(bytes).toContain(`d82a5827${'00'}${CANONICAL.slice(0, 4)}`);
    const bad = fromHex(bytes.replace(`d82a582700${CANONICAL.slice(0, 4)}`, `d82a582700${EXPLICIT_V0.slice(0, 4)}`));
    expect(() => decodeHamtNode(bad, root, 'v3', 5)).toThrow(MalformedNodeError);
    expect(() => decodeHamtNode(bad, root, 'v3', 5)).toThrow(/an explicit version 0 prefix/);
  });

  test('in a TipSetKey byte string', () => {
    const good = fromHex(`5826${CANONICAL}`);
    expect(decodeTipSetKey(good).cids[0]!.toString()).toBe(CID.decode(fromHex(CANONICAL)).toString());
    expect(() => decodeTipSetKey(fromHex(`5826${EXPLICIT_V0}`))).toThrow(
      /TipSetKey: .*not in its canonical binary form/,
    );
    expect(() => TipSetKey.fromBytes(fromHex(EXPLICIT_V0))).toThrow(InvalidCidError);
  });
});

describe('a CAR whose length varint is over-long', () => {
  /** Eleven varint bytes (go-varint reads at most 9), then the start of a real header. */
  const overLong = fromHex(`ffffffffffffffffffff01a265726f6f747380`);

  test('readCarSections refuses it with a typed error naming the byte', async () => {
    const error = await readCarSections(
      (async function* () {
        yield overLong;
      })(),
      'over-long.car',
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CarSectionError);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_CORRUPT');
    expect((error as Error).message).toBe('at byte 0: the length varint is over-long (more than 9 bytes)');
  });

  test('a padded varint and a section of 2^31 bytes are refused too, before any buffering', async () => {
    const read = (hexBytes: string) =>
      readCarSections(
        (async function* () {
          yield fromHex(hexBytes);
        })(),
        'x.car',
      ).catch((e: unknown) => e);
    expect(((await read('8000')) as Error).message).toMatch(/not minimally encoded/);
    expect(((await read('8080808008')) as Error).message).toMatch(/header declares 2147483648 bytes, over the/);
  });

  test('importSnapshot answers ERR_SNAPSHOT_CORRUPT and leaves the database as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-fuzz-regression-'));
    const file = join(dir, 'over-long.car');
    writeFileSync(file, overLong);
    const db = LedgerDatabase.open(join(dir, 'chain.db'));
    try {
      const error = await importSnapshot(db, file, { mode: 'snapshot', params: PARAMS }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SnapshotError);
      expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_CORRUPT');
      expect((error as Error).message).toBe(
        `snapshot ${file} is corrupt or truncated after 0 blocks: at byte 0: the length varint is over-long (more than 9 bytes)`,
      );
      expect(ChainStore.hasChain(db)).toBe(false);
      expect(db.chainIndex.getMeta('head')).toBeUndefined();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('a zstd frame declaring a 1.8 GB window is refused before anything is allocated for it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-fuzz-regression-'));
  const file = join(dir, 'huge-window.car.zst');
  // Magic, frame header: single segment with a 4-byte content size of 0x70000000, then one byte.
  writeFileSync(file, fromHex('28b52ffda00000007000'));
  try {
    const before = process.memoryUsage().arrayBuffers;
    const source = await openSnapshotSource(file);
    const error = await (async () => {
      for await (const _chunk of source.chunks());
    })().catch((e: unknown) => e);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
    expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_CORRUPT');
    expect((error as Error).message).toBe(
      `snapshot ${file} is not usable zstd data: a frame declares a 1879048192-byte window, over the 134217728-byte ` +
        'limit (compress without --long, or decompress the file first) (compressed byte 9)',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
