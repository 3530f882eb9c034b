/**
 * Validated snapshot import on its fast path and its exact one. While a CAR streams in, the import
 * learns whether every DAG below a non-header block is complete (`StreamedLinks`); when it cannot
 * prove that, it walks each DAG from the database. Both must reach the same verdicts: a damaged
 * block is refused naming its CID, a missing state block makes the state incomplete, and neither
 * leaves anything in the repo.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { CID } from 'multiformats/cid';
import { buildGenesis } from '../../src/chain/genesis/index.js';
import { ChainStore } from '../../src/chain/index.js';
import type { CarSection } from '../../src/chain/snapshot/car-reader.js';
import { CarSection as Section } from '../../src/chain/snapshot/car-reader.js';
import { CidTable } from '../../src/chain/snapshot/cid-table.js';
import {
  exportSnapshotToFile,
  type ImportSummary,
  importSnapshot,
  SnapshotError,
} from '../../src/chain/snapshot/index.js';
import { StreamedLinks } from '../../src/chain/snapshot/streamed-links.js';
import { VisitedCids } from '../../src/chain/snapshot/visited-cids.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { type Block, readCar, writeCar } from '../../src/ipld/index.js';
import { blockLinks } from '../../src/state/index.js';
import { cidOfCbor, DAG_CBOR_CODE, encodeCbor, type TipSet } from '../../src/types/index.js';
import { fundedTemplate, PARAMS } from '../helpers/genesis.js';
import { buildSnapshotChain, type TempRepo, tempRepo } from '../helpers/snapshot-chain.js';
import type { TestChain } from '../helpers/test-chain.js';

const HEIGHT = 12;

let source: TestChain;
let repo: TempRepo;
let fullPath: string;

beforeAll(async () => {
  source = await buildSnapshotChain(HEIGHT, [5]);
  repo = tempRepo('ledger-snapshot-validation-');
  fullPath = join(repo.dir, 'full.car');
  await exportSnapshotToFile(source.db.blockstore, source.chain.head(), fullPath);
}, 120_000);

afterAll(() => {
  source?.close();
  repo?.remove();
});

/** Writes the full snapshot again with `change` applied to its blocks (undefined drops a block). */
async function rewritten(name: string, change: (block: Block) => Block | undefined): Promise<string> {
  const car = await readCar(createReadStream(fullPath));
  const path = join(repo.dir, name);
  await writeCar(
    createWriteStream(path),
    car.roots,
    (async function* () {
      for await (const block of car) {
        const changed = change(block);
        if (changed !== undefined) yield changed;
      }
    })(),
  );
  return path;
}

/** Every tipset state the import indexed, from the head down. */
function indexedStates(db: LedgerDatabase): string[] {
  const chain = ChainStore.open({ db, params: PARAMS });
  const states: string[] = [];
  for (let ts: TipSet = chain.head(); ; ts = chain.loadTipSet(ts.parents)) {
    const state = db.chainIndex.getTipSetState(ts.key);
    states.push(`${ts.height} ${state?.stateRoot ?? '-'} ${state?.receiptsRoot ?? '-'}`);
    if (ts.height === 0n) return states;
  }
}

/** What must not change when an import fails: no chain, none of the file's blocks. */
function expectUntouched(db: LedgerDatabase): void {
  expect(ChainStore.hasChain(db)).toBe(false);
  expect(db.chainIndex.getMeta('head')).toBeUndefined();
  expect(db.blockstore.has(source.chain.head().cids[0]!)).toBe(false);
  expect(db.blockstore.someCids(1)).toEqual([]);
}

async function importFails(path: string): Promise<SnapshotError> {
  const db = LedgerDatabase.open(join(repo.dir, `${Math.random().toString(36).slice(2)}.db`));
  try {
    const error = await importSnapshot(db, path, { mode: 'snapshot', params: PARAMS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expectUntouched(db);
    return error as SnapshotError;
  } finally {
    db.close();
  }
}

describe('validated import: proven while streaming, or walked', () => {
  test('our own full export is proven complete while it streams, and indexes what the exact walk indexes', async () => {
    const fresh = LedgerDatabase.open(join(repo.dir, 'fresh.db'));
    const joined = LedgerDatabase.open(join(repo.dir, 'joined.db'));
    const held = LedgerDatabase.open(join(repo.dir, 'held.db'));
    try {
      const streamed = await importSnapshot(fresh, fullPath, { mode: 'chain', params: PARAMS });
      expect(streamed.completeness).toEqual({ by: 'stream' });
      // A repo holding its genesis already (a node that joined the network): the file streams every
      // genesis block again, so the proof holds.
      const genesis = buildGenesis(joined.blockstore, fundedTemplate(), PARAMS);
      ChainStore.initialize({ db: joined, params: PARAMS }, genesis.cid);
      const joinedSummary = await importSnapshot(joined, fullPath, { mode: 'chain', params: PARAMS });
      expect(joinedSummary.completeness).toEqual({ by: 'stream' });
      // A repo holding a state block the file leaves out: complete, but only a walk can tell.
      const root = source.chain.head().parentStateRoot;
      const shared = blockLinks(root, source.db.blockstore.get(root)!).find((link) => link.code === DAG_CBOR_CODE)!;
      held.blockstore.put(shared, source.db.blockstore.get(shared)!);
      const withoutShared = await rewritten('without-shared.car', (block) =>
        block.cid.equals(shared) ? undefined : block,
      );
      const walked = await importSnapshot(held, withoutShared, { mode: 'chain', params: PARAMS });
      expect(walked.completeness).toEqual({
        by: 'walk',
        because: '1 links name blocks the repo held before the import and the file does not hold',
      });
      const verdict = ({ tipSets, oldestStateEpoch, full }: ImportSummary) => ({ tipSets, oldestStateEpoch, full });
      expect(verdict(streamed)).toEqual(verdict(walked));
      expect(verdict(streamed)).toEqual(verdict(joinedSummary));
      expect(indexedStates(fresh)).toEqual(indexedStates(held));
      expect(indexedStates(fresh)).toEqual(indexedStates(joined));
      expect(indexedStates(fresh)).toHaveLength(HEIGHT); // every epoch but the null round, and genesis
    } finally {
      fresh.close();
      joined.close();
      held.close();
    }
  });

  test('a block whose bytes do not match its CID is refused, naming that CID, and nothing is kept', async () => {
    const victim = source.chain.head().parentStateRoot;
    const path = await rewritten('corrupt-block.car', (block) =>
      block.cid.equals(victim)
        ? { cid: block.cid, bytes: Uint8Array.from(block.bytes, (b, i) => (i === 3 ? b ^ 1 : b)) }
        : block,
    );
    const error = await importFails(path);
    expect(error.code).toBe('ERR_SNAPSHOT_CORRUPT');
    expect(error.message).toMatch(
      new RegExp(
        `corrupt or truncated after \\d+ blocks: at byte \\d+: block ${victim} failed verification: its bytes do not hash to its CID`,
      ),
    );
  });

  test('a file cut inside a block is refused as truncated, and nothing is kept', async () => {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const bytes = readFileSync(fullPath);
    const path = join(repo.dir, 'cut.car');
    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const error = await importFails(path);
    expect(error.code).toBe('ERR_SNAPSHOT_CORRUPT');
    expect(error.message).toMatch(/the file ends inside a block \(truncated\)/);
  });

  test('a state block missing below the head’s state root: state incomplete, naming the block, nothing kept', async () => {
    const root = source.chain.head().parentStateRoot;
    const missing = blockLinks(root, source.db.blockstore.get(root)!).find((link) => link.code === DAG_CBOR_CODE)!;
    expect(missing).toBeDefined();
    const path = await rewritten('missing-state-block.car', (block) => (block.cid.equals(missing) ? undefined : block));
    const error = await importFails(path);
    expect(error.code).toBe('ERR_SNAPSHOT_INCOMPLETE');
    expect(error.message).toMatch(
      new RegExp(
        `the state tree of its head \\(epoch ${HEIGHT}, state root ${root}\\) is not complete: block ${missing} is missing`,
      ),
    );
  });
});

describe('StreamedLinks', () => {
  const cbor = (value: unknown): CarSection => {
    const bytes = encodeCbor(value);
    return new Section(cidOfCbor(bytes).bytes, bytes, DAG_CBOR_CODE);
  };
  const cidOf = (section: CarSection): CID => section.cid;
  const stored = new Map<string, number>();
  const firstByte = (cid: Uint8Array) => stored.get(Buffer.from(cid).toString('hex'));
  const feed = (links: StreamedLinks, sections: readonly CarSection[]) => {
    for (const section of sections) links.add(section);
    for (const section of sections) stored.set(Buffer.from(section.cidBytes).toString('hex'), section.bytes[0]!);
    links.endBatch();
  };

  test('children before or after their parent, in one chunk or in several: complete', () => {
    const leaf = cbor({ leaf: 1 });
    const middle = cbor([cidOf(leaf), 7]);
    const root = cbor({ a: cidOf(middle), b: [cidOf(leaf)] });
    for (const order of [[[root, middle, leaf]], [[leaf, middle, root]], [[root], [middle], [leaf]]]) {
      stored.clear();
      const links = new StreamedLinks(firstByte, []);
      for (const chunk of order) feed(links, chunk);
      expect(links.doubt).toBeUndefined();
    }
  });

  test('a link to a block the file does not hold, or from a non-header block to a header, withholds the proof', () => {
    stored.clear();
    const absent = cbor('not in the file');
    const dangling = new StreamedLinks(firstByte, []);
    feed(dangling, [cbor([cidOf(absent)])]);
    expect(dangling.doubt).toBe('1 links of state, message or receipt blocks name blocks the file does not hold');

    // A block header is a 16-element array; a state block linking to one would lead a walk into the header chain.
    const header = cbor(Array.from({ length: 16 }, () => 0));
    for (const order of [
      [header, cbor([cidOf(header)])],
      [cbor([cidOf(header)]), header],
    ]) {
      stored.clear();
      const links = new StreamedLinks(firstByte, []);
      feed(links, order);
      expect(links.doubt).toBe('a block that is not a header links to a header');
    }
    // Headers' own links (old state roots of a minimal snapshot) do not count.
    stored.clear();
    const old = new StreamedLinks(firstByte, []);
    feed(old, [cbor([...Array.from({ length: 15 }, () => 0), cidOf(absent)])]);
    expect(old.doubt).toBeUndefined();
  });
});

describe('the bounded sets of the bulk walks', () => {
  const chainCid = (i: number) => cidOfCbor(encodeCbor(i)).bytes;

  test('CidTable remembers the newer generation and the older one, and forgets beyond', () => {
    const table = new CidTable(4);
    for (let i = 0; i < 4; i++) table.set(chainCid(i), 0, i);
    expect(table.complete).toBe(true);
    expect(table.full).toBe(true);
    for (let i = 4; i < 8; i++) table.set(chainCid(i), 0, i);
    expect(table.complete).toBe(false);
    expect([4, 5, 6, 7].map((i) => table.get(chainCid(i), 0))).toEqual([4, 5, 6, 7]);
    // Found in the older generation: carried into the newer one, whose turnover drops 0–2.
    expect(table.get(chainCid(3), 0)).toBe(3);
    expect([0, 1, 2, 3, 4].map((i) => table.get(chainCid(i), 0))).toEqual([-1, -1, -1, 3, 4]);
    expect(table.get(chainCid(99), 0)).toBe(-1);
  });

  test('VisitedCids answers the same in memory and after it moved to disk', () => {
    const identity = (i: number) => Uint8Array.of(0x01, 0x55, 0x00, 0x02, 0x66, i);
    const cids = [
      ...Array.from({ length: 50 }, (_, i) => chainCid(i)),
      ...Array.from({ length: 20 }, (_, i) => identity(i)),
    ];
    for (const inMemory of [1 << 10, 8]) {
      const visited = new VisitedCids(inMemory);
      try {
        expect(cids.map((cid) => visited.visit(cid))).toEqual(cids.map(() => true));
        expect(cids.map((cid) => visited.visit(cid))).toEqual(cids.map(() => false));
        // A CID read in place inside a larger buffer is the same CID.
        const framed = new Uint8Array([9, 9, ...cids[3]!, 9]);
        expect(visited.visit(framed, 2, 2 + cids[3]!.length)).toBe(false);
      } finally {
        visited.close();
      }
    }
  });
});
