/**
 * Fuzz of the HAMT and AMT node decoders (src/ipld/hamt-node.ts, amt-node.ts and their raw CBOR
 * reader), which read state trees, message lists and receipts from snapshots and peers. Inputs:
 * random bytes and mutations of real nodes — mainnet's genesis state HAMT (legacy format) and the
 * message AMT roots (v0) of export40.car — and of v3 nodes written by our own Hamt and Amt. Each
 * decodes or fails with ERR_MALFORMED_NODE; a decoded node re-encodes to the same bytes, and its
 * links are CIDs in their canonical binary form.
 */
import { createReadStream } from 'node:fs';
import fc from 'fast-check';
import { decodeAmtRoot, encodeAmtRoot } from '../../src/ipld/amt-node.js';
import { decodeHamtNode, encodeHamtNode, HamtLink } from '../../src/ipld/hamt-node.js';
import {
  Amt,
  type AmtVersion,
  type Block,
  Hamt,
  type HamtFormat,
  MemoryBlockstore,
  readCar,
} from '../../src/ipld/index.js';
import { CID } from '../../src/types/index.js';
import { vectorPath } from '../vectors/vectors-dir.js';
import { decodeChecked, fuzzParams, hex, mutationsOf, randomBytes, SEED } from './fuzz-kit.js';

/** A link is a CID in its one binary form (as go-cid requires), so following it finds the block it names. */
function expectCanonicalLink(cidBytes: Uint8Array): void {
  expect(hex(CID.decode(cidBytes).bytes)).toBe(hex(cidBytes));
}

const RULE = { codes: ['ERR_MALFORMED_NODE'], names: /malformed (HAMT node|AMT)/ };

function tryDecode<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch {
    return undefined;
  }
}

/** A memory blockstore that also keeps the list of what was written to it. */
class RecordingBlockstore extends MemoryBlockstore {
  readonly written: Block[] = [];

  override put(cid: Block['cid'], bytes: Uint8Array): void {
    this.written.push({ cid, bytes });
    super.put(cid, bytes);
  }

  override putMany(blocks: Iterable<Block>): void {
    const list = [...blocks];
    this.written.push(...list);
    super.putMany(list);
  }
}

const hamtNodes: Record<HamtFormat, Uint8Array[]> = { legacy: [], v3: [] };
const amtRoots: Record<AmtVersion, Uint8Array[]> = { v0: [], v3: [] };
let someCid: Block['cid'];

beforeAll(async () => {
  const car = await readCar(createReadStream(vectorPath('blocks', 'export40.car')));
  for await (const { cid, bytes } of car) {
    someCid = cid;
    if (hamtNodes.legacy.length < 30 && tryDecode(() => decodeHamtNode(bytes, cid, 'legacy', 5)) !== undefined) {
      hamtNodes.legacy.push(bytes);
    } else if (amtRoots.v0.length < 30 && tryDecode(() => decodeAmtRoot(bytes, cid, 'v0')) !== undefined) {
      amtRoots.v0.push(bytes);
    }
  }
  // v3 nodes from our own writers: enough keys to split buckets, enough indices for two levels.
  const store = new RecordingBlockstore();
  const hamt = Hamt.create(store);
  for (let i = 0; i < 200; i++) hamt.set(new TextEncoder().encode(`key ${i}`), { value: i, bytes: Uint8Array.of(i) });
  const amt = Amt.create(store);
  for (const i of [0, 1, 7, 8, 9, 64, 65, 1000]) amt.set(i, `value ${i}`);
  hamt.flush();
  const amtRoot = amt.flush();
  for (const { cid, bytes } of store.written) {
    if (cid.equals(amtRoot)) amtRoots.v3.push(bytes);
    else if (tryDecode(() => decodeHamtNode(bytes, cid, 'v3', 5)) !== undefined) hamtNodes.v3.push(bytes);
  }
});

describe(`HAMT and AMT nodes (fast-check seed ${SEED})`, () => {
  test('the corpus holds real nodes of every format', () => {
    for (const list of [hamtNodes.legacy, hamtNodes.v3, amtRoots.v0, amtRoots.v3])
      expect(list.length).toBeGreaterThan(0);
  });

  test.each(['legacy', 'v3'] as const)(
    'HAMT %s node: a node that re-encodes identically, or ERR_MALFORMED_NODE',
    (format) => {
      fc.assert(
        fc.property(fc.oneof(randomBytes, { weight: 3, arbitrary: mutationsOf(hamtNodes[format]) }), (bytes) => {
          const outcome = decodeChecked(() => decodeHamtNode(bytes, someCid, format, 5), RULE, bytes);
          if (!outcome.ok) return;
          expect(hex(encodeHamtNode(outcome.value, format))).toBe(hex(bytes));
          for (const pointer of outcome.value.pointers)
            if (pointer instanceof HamtLink) expectCanonicalLink(pointer.cidBytes!);
        }),
        fuzzParams(0.5),
      );
    },
  );

  test.each(['v0', 'v3'] as const)(
    'AMT %s root: a root that re-encodes identically, or ERR_MALFORMED_NODE',
    (version) => {
      fc.assert(
        fc.property(fc.oneof(randomBytes, { weight: 3, arbitrary: mutationsOf(amtRoots[version]) }), (bytes) => {
          const outcome = decodeChecked(() => decodeAmtRoot(bytes, someCid, version), RULE, bytes);
          if (!outcome.ok) return;
          expect(hex(encodeAmtRoot(outcome.value, version))).toBe(hex(bytes));
          if (outcome.value.node.kind === 'inner')
            for (const link of outcome.value.node.links) if (link) expectCanonicalLink(link.cidBytes!);
        }),
        fuzzParams(0.5),
      );
    },
  );
});
