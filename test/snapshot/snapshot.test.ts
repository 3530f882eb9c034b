import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CID } from 'multiformats/cid';
import { buildGenesis } from '../../src/chain/genesis/index.js';
import { ChainStore } from '../../src/chain/index.js';
import {
  assertStateAvailable,
  exportSnapshot,
  exportSnapshotToFile,
  importSnapshot,
  oldestStateEpoch,
  openSnapshotSource,
  SnapshotError,
  StateNotAvailableError,
} from '../../src/chain/snapshot/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { importCar, MemoryBlockstore, readCar, writeCar } from '../../src/ipld/index.js';
import { StateTree } from '../../src/state/index.js';
import { cidOfCbor, decodeBlockHeader, encodeCbor, type TipSet } from '../../src/types/index.js';
import { fundedTemplate, PARAMS } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { buildSnapshotChain, openImported, type TempRepo, tempRepo } from '../helpers/snapshot-chain.js';
import { balanceOf } from '../helpers/state.js';
import type { TestChain } from '../helpers/test-chain.js';
import { vectorPath } from '../vectors/vectors-dir.js';

const EXPORT40 = vectorPath('blocks', 'export40.car');
const HEIGHT = 24;
const RECENT = 6n;

async function carCids(path: string): Promise<{ roots: readonly CID[]; cids: Set<string> }> {
  const car = await readCar(createReadStream(path));
  const cids = new Set<string>();
  for await (const block of car) cids.add(block.cid.toString());
  return { roots: car.roots, cids };
}

function canonicalTipSets(chain: ChainStore): TipSet[] {
  const tipSets: TipSet[] = [];
  for (let ts = chain.head(); ; ts = chain.loadTipSet(ts.parents)) {
    tipSets.push(ts);
    if (ts.height === 0n) return tipSets;
  }
}

/** What must not change when an import fails: no chain, none of the file's blocks. */
function expectUntouched(db: LedgerDatabase, someCidOfTheFile: CID): void {
  expect(ChainStore.hasChain(db)).toBe(false);
  expect(db.chainIndex.getMeta('head')).toBeUndefined();
  expect(db.blockstore.has(someCidOfTheFile)).toBe(false);
}

describe('snapshot export: Lotus v1 walk order on real mainnet data', () => {
  test('re-exporting export40.car (headers, messages, genesis state) reproduces Lotus’s file byte for byte', async () => {
    const store = new MemoryBlockstore();
    const { roots } = await importCar(store, createReadStream(EXPORT40));
    const head = (await import('../../src/types/index.js')).TipSet.fromHeaders(
      roots.map((cid) => decodeBlockHeader(store.get(cid)!)),
    );
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    const summary = await exportSnapshot(store, head, out, { recentStateRoots: 0n });
    expect(summary.blocks).toBe(1581);
    expect(Buffer.concat(chunks).equals(readFileSync(EXPORT40))).toBe(true);
  });

  test('importing export40.car fails clearly: it holds no state for its head, and the repo stays as it was', async () => {
    const db = LedgerDatabase.open(':memory:');
    const error = await importSnapshot(db, EXPORT40, { mode: 'snapshot', params: PARAMS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_INCOMPLETE');
    expect((error as Error).message).toMatch(
      /state tree of its head \(epoch 39, state root bafy2bzacecciuxidxjkqev4y2agtmu2o3mh6j6o5lzaskptl7eigfv7dluul4\) is not complete/,
    );
    expectUntouched(db, CID.parse('bafy2bzacecymez2h5egquoalbtqp6mfegui27kcf7kc4zsqqvpxfi72ssqf2c'));
    db.close();
  });
});

describe('snapshot export and import of a real chain', () => {
  let source: TestChain;
  let repo: TempRepo;
  let fullPath: string;
  let minimalPath: string;
  let skipPath: string;

  beforeAll(async () => {
    source = await buildSnapshotChain(HEIGHT, [7, 15, 16]);
    repo = tempRepo();
    fullPath = join(repo.dir, 'full.car');
    minimalPath = join(repo.dir, 'minimal.car');
    skipPath = join(repo.dir, 'minimal-skip.car');
    const head = source.chain.head();
    const full = await exportSnapshotToFile(source.db.blockstore, head, fullPath);
    expect(full.full).toBe(true);
    await exportSnapshotToFile(source.db.blockstore, head, minimalPath, { recentStateRoots: RECENT });
    await exportSnapshotToFile(source.db.blockstore, head, skipPath, {
      recentStateRoots: RECENT,
      skipOldMessages: true,
    });
  }, 120_000);

  afterAll(() => {
    source?.close();
    repo?.remove();
  });

  test('the CAR roots are the head tipset’s blocks; a full export holds every state tree, message and receipt', async () => {
    const { roots, cids } = await carCids(fullPath);
    expect(roots.map(String)).toEqual(source.chain.head().cids.map(String));
    for (const ts of canonicalTipSets(source.chain)) {
      for (const header of ts.blocks) {
        expect(cids.has(header.parentStateRoot.toString())).toBe(true);
        expect(cids.has(header.parentMessageReceipts.toString())).toBe(true);
        expect(cids.has(header.messages.toString())).toBe(true);
      }
    }
  });

  test('an export whose signal fires ends with ERR_ABORTED and leaves no file (ChainExportToFile when its caller leaves)', async () => {
    const path = join(repo.dir, 'aborted.car');
    const controller = new AbortController();
    const exporting = exportSnapshotToFile(source.db.blockstore, source.chain.head(), path, {
      signal: controller.signal,
    });
    // The walk looks at the signal at its first block and every 1,024 blocks after.
    controller.abort(new Error('the client went away'));
    await expect(exporting).rejects.toMatchObject({ code: 'ERR_ABORTED', message: 'aborted: the client went away' });
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.partial`)).toBe(false);
  });

  test('a minimal export is smaller and holds exactly the recent state trees (and genesis’s)', async () => {
    expect(statSync(minimalPath).size).toBeLessThan(statSync(fullPath).size);
    expect(statSync(skipPath).size).toBeLessThan(statSync(minimalPath).size);
    const minimal = await carCids(minimalPath);
    const skip = await carCids(skipPath);
    const headHeight = source.chain.head().height;
    for (const ts of canonicalTipSets(source.chain)) {
      const recent = ts.height > headHeight - RECENT;
      const header = ts.blocks[0]!;
      expect([ts.height, minimal.cids.has(header.parentStateRoot.toString())]).toEqual([
        ts.height,
        recent || ts.height === 0n || header.parentStateRoot.equals(source.chain.genesis.parentStateRoot),
      ]);
      expect(minimal.cids.has(header.messages.toString())).toBe(true);
      expect([ts.height, skip.cids.has(header.messages.toString())]).toEqual([ts.height, recent]);
      // Every header is there, back to genesis.
      expect(minimal.cids.has(ts.cids[0]!.toString())).toBe(true);
    }
  });

  test('a full import gives the same head, tipset states, balances and actors, and the chain runs on', async () => {
    const db = LedgerDatabase.open(join(repo.dir, 'imported-full.db'));
    try {
      const summary = await importSnapshot(db, fullPath, { mode: 'chain', params: PARAMS });
      expect(summary.full).toBe(true);
      expect(summary.head.key.equals(source.chain.head().key)).toBe(true);
      expect(summary.tipSets).toBe(HEIGHT + 1 - 3);
      expect(oldestStateEpoch(db)).toBeUndefined();
      const imported = openImported(db);
      expect(imported.chain.head().key.equals(source.chain.head().key)).toBe(true);
      expect(imported.chain.genesis.key.equals(source.chain.genesis.key)).toBe(true);
      expect(imported.chain.headWeight()).toBe(source.chain.headWeight());
      for (const ts of canonicalTipSets(source.chain)) {
        if (ts.height === source.chain.head().height) continue;
        const want = await source.states.stateOf(ts);
        const got = db.chainIndex.getTipSetState(ts.key);
        expect(got?.stateRoot.toString()).toBe(want.stateRoot.toString());
        expect(got?.receiptsRoot.toString()).toBe(want.receiptsRoot.toString());
        expect(imported.chain.getTipSetByHeight(ts.height, imported.chain.head(), true).key.equals(ts.key)).toBe(true);
      }
      // The head's own state is not in any snapshot: the imported node computes it, and agrees.
      const headState = await imported.states.stateOf(imported.chain.head());
      expect(headState.stateRoot.toString()).toBe(
        (await source.states.stateOf(source.chain.head())).stateRoot.toString(),
      );
      const srcTree = StateTree.load(source.db.blockstore, source.chain.head().parentStateRoot);
      const dstTree = StateTree.load(db.blockstore, imported.chain.head().parentStateRoot);
      expect(balanceOf(dstTree, keys.bob.address)).toBe(balanceOf(srcTree, keys.bob.address));
      expect(balanceOf(dstTree, keys.alice.address)).toBe(balanceOf(srcTree, keys.alice.address));
      const transfer = imported.chain.tipSetMessages(imported.chain.head())[0]!;
      expect(imported.chain.findMessageInclusion(transfer.cid)?.height).toBe(imported.chain.head().height);
    } finally {
      db.close();
    }
  });

  test('a minimal import serves recent state and names the oldest epoch with state for older queries', async () => {
    const db = LedgerDatabase.open(join(repo.dir, 'imported-minimal.db'));
    try {
      const summary = await importSnapshot(db, minimalPath, { mode: 'snapshot', params: PARAMS });
      const head = source.chain.head();
      expect(summary.full).toBe(false);
      expect(summary.oldestStateEpoch).toBe(head.height - RECENT + 1n);
      expect(oldestStateEpoch(db)).toBe(summary.oldestStateEpoch);
      const imported = openImported(db);
      const recent = imported.chain.getTipSetByHeight(summary.oldestStateEpoch, imported.chain.head(), false);
      expect(() => assertStateAvailable(imported.chain, recent)).not.toThrow();
      expect(() => assertStateAvailable(imported.chain, imported.chain.genesis)).not.toThrow();
      StateTree.load(db.blockstore, recent.parentStateRoot).lookupId(keys.bob.address);
      const old = imported.chain.getTipSetByHeight(3n, imported.chain.head(), false);
      const error = (() => {
        try {
          assertStateAvailable(imported.chain, old);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(StateNotAvailableError);
      expect((error as Error).message).toBe(
        `state for epoch 3 is not available: this node started from a minimal snapshot and holds state from epoch ${summary.oldestStateEpoch} on (and genesis)`,
      );
    } finally {
      db.close();
    }
  });

  test('--import-chain refuses a minimal snapshot and leaves the repo as it was', async () => {
    const db = LedgerDatabase.open(join(repo.dir, 'refused.db'));
    try {
      const error = await importSnapshot(db, minimalPath, { mode: 'chain', params: PARAMS }).catch((e: unknown) => e);
      expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_INCOMPLETE');
      expect((error as Error).message).toMatch(/is not a full snapshot: it holds state trees only from epoch 19 on/);
      expectUntouched(db, source.chain.head().cids[0]!);
    } finally {
      db.close();
    }
  });

  test('a corrupted byte, a truncated file and a CAR whose root is not a tipset fail clearly, repo untouched', async () => {
    const bytes = readFileSync(fullPath);
    const corrupted = Buffer.from(bytes);
    corrupted[Math.floor(bytes.length / 2)]! ^= 0x01;
    const corruptPath = join(repo.dir, 'corrupt.car');
    writeFileSync(corruptPath, corrupted);
    const truncatedPath = join(repo.dir, 'truncated.car');
    writeFileSync(truncatedPath, bytes.subarray(0, bytes.length - 1000));
    const notTipSetPath = join(repo.dir, 'not-a-tipset.car');
    const stateRoot = source.chain.head().parentStateRoot;
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    await writeCar(out, [stateRoot], [{ cid: stateRoot, bytes: source.db.blockstore.get(stateRoot)! }]);
    writeFileSync(notTipSetPath, Buffer.concat(chunks));

    const cases: [string, string, RegExp][] = [
      [corruptPath, 'ERR_SNAPSHOT_CORRUPT', /corrupt or truncated after \d+ blocks: .*(hash|CID|invalid)/i],
      [truncatedPath, 'ERR_SNAPSHOT_CORRUPT', /corrupt or truncated after \d+ blocks/],
      [
        notTipSetPath,
        'ERR_SNAPSHOT_NOT_A_CHAIN',
        /root bafy\w+ is not a block header, so the file is not a chain snapshot/,
      ],
    ];
    for (const [path, code, message] of cases) {
      const db = LedgerDatabase.open(join(repo.dir, `${code}-${path.length}.db`));
      try {
        const error = await importSnapshot(db, path, { mode: 'snapshot', params: PARAMS }).catch((e: unknown) => e);
        expect([path, (error as SnapshotError).code]).toEqual([path, code]);
        expect((error as Error).message).toMatch(message);
        expectUntouched(db, source.chain.head().cids[0]!);
        expect(db.blockstore.has(source.chain.genesis.cids[0]!)).toBe(false);
      } finally {
        db.close();
      }
    }
  });

  test('a zstd-compressed snapshot (.car.zst) imports the same, detected by its magic bytes', async () => {
    const zstPath = `${minimalPath}.zst`;
    execFileSync('zstd', ['-q', '-f', minimalPath, '-o', zstPath]);
    const opened = await openSnapshotSource(zstPath);
    expect(opened.compressed).toBe(true);
    const db = LedgerDatabase.open(join(repo.dir, 'imported-zst.db'));
    try {
      const summary = await importSnapshot(db, zstPath, { mode: 'snapshot', params: PARAMS });
      expect(summary.compressed).toBe(true);
      expect(summary.head.key.equals(source.chain.head().key)).toBe(true);
    } finally {
      db.close();
    }
    const broken = readFileSync(zstPath);
    const brokenPath = join(repo.dir, 'broken.car.zst');
    writeFileSync(brokenPath, broken.subarray(0, broken.length - 200));
    const db2 = LedgerDatabase.open(join(repo.dir, 'broken-zst.db'));
    try {
      const error = await importSnapshot(db2, brokenPath, { mode: 'snapshot', params: PARAMS }).catch(
        (e: unknown) => e,
      );
      expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_CORRUPT');
      expectUntouched(db2, source.chain.head().cids[0]!);
    } finally {
      db2.close();
    }
  });

  test('a v2 snapshot (one SnapshotMetadata root naming the head, as Lotus ExportV2 and Forest write) imports', async () => {
    const head = source.chain.head();
    const metadata = encodeCbor({ Version: 2, HeadTipsetKey: [...head.cids], F3Data: null });
    const metadataCid = cidOfCbor(metadata);
    const v1 = await readCar(createReadStream(fullPath));
    const v2Path = join(repo.dir, 'v2.car');
    await writeCar(
      createWriteStream(v2Path),
      [metadataCid],
      (async function* () {
        yield { cid: metadataCid, bytes: metadata };
        yield* v1;
      })(),
    );
    const db = LedgerDatabase.open(join(repo.dir, 'imported-v2.db'));
    try {
      const summary = await importSnapshot(db, v2Path, { mode: 'chain', params: PARAMS });
      expect(summary.head.key.equals(head.key)).toBe(true);
    } finally {
      db.close();
    }
  });

  test('a repo holding only the same genesis (a node that joined the network) imports; another genesis is refused', async () => {
    const joined = LedgerDatabase.open(join(repo.dir, 'joined.db'));
    try {
      const genesis = buildGenesis(joined.blockstore, fundedTemplate(), PARAMS);
      ChainStore.initialize({ db: joined, params: PARAMS }, genesis.cid);
      const summary = await importSnapshot(joined, fullPath, { mode: 'snapshot', params: PARAMS });
      expect(summary.head.key.equals(source.chain.head().key)).toBe(true);
      expect(openImported(joined).chain.head().key.equals(source.chain.head().key)).toBe(true);
    } finally {
      joined.close();
    }
    const other = LedgerDatabase.open(join(repo.dir, 'other.db'));
    try {
      const genesis = buildGenesis(other.blockstore, { ...fundedTemplate(), networkName: 'another' }, PARAMS);
      ChainStore.initialize({ db: other, params: PARAMS }, genesis.cid);
      const error = await importSnapshot(other, fullPath, { mode: 'snapshot', params: PARAMS }).catch(
        (e: unknown) => e,
      );
      expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_GENESIS_MISMATCH');
      // Untouched: still at its own genesis.
      const reopened = ChainStore.open({ db: other, params: PARAMS });
      expect(reopened.head().key.equals(reopened.genesis.key)).toBe(true);
      expect(reopened.genesis.cids[0]!.equals(genesis.cid)).toBe(true);
    } finally {
      other.close();
    }
  });

  test('a repo that already holds a chain is refused', async () => {
    const error = await importSnapshot(source.db, fullPath, { mode: 'snapshot', params: PARAMS }).catch(
      (e: unknown) => e,
    );
    expect((error as SnapshotError).code).toBe('ERR_SNAPSHOT_REPO_HAS_CHAIN');
  });
});
