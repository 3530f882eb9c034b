/**
 * Real mainnet CAR (Forest's export40.car, epochs 0–39): streaming read with per-block CID checks,
 * TxMeta and message AMTs (legacy v0) rebuilt for every header, the genesis state tree (legacy
 * HAMT, state tree v0) loaded from the CAR, and a byte-identical rewrite.
 * See shared/vectors/blocks/PROVENANCE.md.
 */
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Amt,
  type Block,
  buildAmt,
  getBlock,
  getCbor,
  Hamt,
  importCar,
  MemoryBlockstore,
  readCar,
  verifyBlock,
  writeCar,
} from '../../src/ipld/index.js';
import { encodeCbor } from '../../src/types/cbor.js';
import { CID, cidMatchesBytes, cidOfCbor, parseCid } from '../../src/types/cid.js';
import { bytesEqual, fromHex, toHex } from '../../src/utils/bytes.js';
import { readVectorJson, vectorPath } from './vectors-dir.js';

interface HeaderVector {
  cid: string;
  height: number;
  cbor_hex: string;
  decoded: { ParentStateRoot: string; Messages: string };
  txmeta: {
    cid: string;
    cbor_hex: string;
    bls_messages_amt_root: string;
    secpk_messages_amt_root: string;
    bls_message_cids: string[];
    secpk_message_cids: string[];
  };
}

const headersVector = readVectorJson<{
  car_roots: string[];
  car_block_count: number;
  headers: HeaderVector[];
  workers_derived: Record<string, { worker_id: string }>;
}>('blocks', 'export40_headers.json');
const carPath = vectorPath('blocks', 'export40.car');

const DAG_CBOR = 0x71;
const SHA2_256 = 0x12;
const BLAKE2B_256 = 0xb220;

let store: MemoryBlockstore;
let blocks: Block[];

beforeAll(async () => {
  const car = await readCar(createReadStream(carPath));
  blocks = [];
  for await (const block of car) blocks.push(block);
  expect(car.roots.map(String)).toEqual(headersVector.car_roots);
  store = new MemoryBlockstore();
  store.putMany(blocks);
});

describe('export40.car', () => {
  test('streams its root and 1581 blocks, each matching its CID', () => {
    expect(blocks).toHaveLength(1581);
    expect(headersVector.car_block_count).toBe(1581);
    const hashes = new Map<number, number>();
    for (const { cid, bytes } of blocks) {
      expect(cid.code).toBe(DAG_CBOR);
      hashes.set(cid.multihash.code, (hashes.get(cid.multihash.code) ?? 0) + 1);
      if (cid.multihash.code === BLAKE2B_256) expect(cidMatchesBytes(cid, bytes)).toBe(true);
      expect(() => verifyBlock(cid, bytes)).not.toThrow();
    }
    expect(Object.fromEntries(hashes)).toEqual({ [BLAKE2B_256]: 1580, [SHA2_256]: 1 });
    expect(store.size).toBe(1581);
  });

  test('importCar loads the same blocks into a blockstore', async () => {
    const imported = new MemoryBlockstore();
    const { roots, blockCount } = await importCar(imported, createReadStream(carPath, { highWaterMark: 4096 }), {
      batchSize: 100,
    });
    expect(roots.map(String)).toEqual(headersVector.car_roots);
    expect(blockCount).toBe(1581);
    for (const { cid, bytes } of blocks) expect(bytesEqual(imported.get(cid)!, bytes)).toBe(true);
  });

  test('every header is in the CAR, byte for byte', () => {
    expect(headersVector.headers).toHaveLength(49);
    for (const header of headersVector.headers) {
      expect(toHex(getBlock(store, parseCid(header.cid)))).toBe(header.cbor_hex);
    }
  });

  test("every header's TxMeta is reproduced from its message CIDs (legacy AMT v0)", () => {
    let messages = 0;
    for (const header of headersVector.headers) {
      const { txmeta } = header;
      const fields = getCbor(store, parseCid(header.cid), 'block header') as unknown[];
      const referenced = CID.asCID(fields[10])!;
      expect(referenced.toString()).toBe(txmeta.cid);

      const rebuilt = new MemoryBlockstore();
      const bls = buildAmt(rebuilt, txmeta.bls_message_cids.map(parseCid), { version: 'v0' });
      const secp = buildAmt(rebuilt, txmeta.secpk_message_cids.map(parseCid), { version: 'v0' });
      expect(bls.toString()).toBe(txmeta.bls_messages_amt_root);
      expect(secp.toString()).toBe(txmeta.secpk_messages_amt_root);
      const txMetaBytes = encodeCbor([bls, secp]);
      expect(toHex(txMetaBytes)).toBe(txmeta.cbor_hex);
      expect(cidOfCbor(txMetaBytes).toString()).toBe(referenced.toString());

      // Every block the rebuild wrote is the real one, and the real AMTs read back in order.
      for (const cid of [bls, secp]) expect(bytesEqual(rebuilt.get(cid)!, store.get(cid)!)).toBe(true);
      const readBack = (root: CID) => [...Amt.load(store, root, { version: 'v0' }).values()].map(String);
      expect(readBack(bls)).toEqual(txmeta.bls_message_cids);
      expect(readBack(secp)).toEqual(txmeta.secpk_message_cids);
      messages += txmeta.bls_message_cids.length + txmeta.secpk_message_cids.length;
    }
    expect(messages).toBeGreaterThan(200);
  });

  test('message AMTs built by set() match buildAmt() for the largest block', () => {
    const largest = headersVector.headers.reduce((a, b) =>
      b.txmeta.secpk_message_cids.length > a.txmeta.secpk_message_cids.length ? b : a,
    );
    const cids = largest.txmeta.secpk_message_cids.map(parseCid);
    expect(cids.length).toBeGreaterThan(64); // height 2 at bit width 3
    const amt = Amt.create(new MemoryBlockstore(), { version: 'v0' });
    for (const [i, cid] of cids.entries()) amt.set(i, cid);
    expect(amt.height).toBe(2);
    expect(amt.flush().toString()).toBe(largest.txmeta.secpk_messages_amt_root);
  });

  test('the genesis state tree (legacy HAMT at the state root) loads and iterates from the CAR', () => {
    const genesis = headersVector.headers.find((h) => h.height === 0)!;
    const stateRoot = parseCid(genesis.decoded.ParentStateRoot);
    const state = Hamt.load(store, stateRoot, { format: 'legacy' });
    const entries = [...state.entries()];
    expect(entries).toHaveLength(37); // the rebuild below proves this enumeration complete
    for (const [key, actor] of entries) {
      expect(key[0]).toBe(0); // ID address
      expect(actor).toHaveLength(4); // [code, head, nonce, balance]
      expect(CID.asCID((actor as unknown[])[0])).not.toBeNull();
    }
    // The miners that signed blocks 1–39, and their workers, are actors of the genesis state.
    for (const [minerKey, { worker_id }] of Object.entries(headersVector.workers_derived)) {
      expect(state.has(fromHex(minerKey))).toBe(true);
      expect(state.has(idAddressBytes(BigInt(worker_id.slice(2))))).toBe(true);
    }
    // Rebuilding it from its entries, in another order, gives the real root.
    const rebuilt = Hamt.create(new MemoryBlockstore(), { format: 'legacy' });
    for (const [key, actor] of [...entries].reverse()) rebuilt.set(key, actor);
    expect(rebuilt.flush().toString()).toBe(stateRoot.toString());
  });

  test('a CAR written from its blocks is byte-identical to the original', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-car-'));
    try {
      const out = join(dir, 'copy.car');
      await writeCar(createWriteStream(out), headersVector.car_roots.map(parseCid), blocks);
      expect(bytesEqual(readFileSync(out), readFileSync(carPath))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function idAddressBytes(id: bigint): Uint8Array {
  const bytes = [0];
  let rest = id;
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return Uint8Array.from(bytes);
}
