/**
 * Snapshot export and import throughput (MB/s of CAR) and peak memory (RSS high-water), on a
 * chain big enough to matter: a genesis with a bulk state of BULK_ACTORS actors, then EPOCHS
 * tipsets, each with MESSAGES messages, a receipts AMT and a new state tree in which
 * UPDATES_PER_EPOCH actors changed. Everything is real codecs (headers, TxMeta and AMTs, HAMT state
 * trees, receipts) in a SQLite repo; the states are written directly rather than by executing the
 * messages, which only the VM benchmark measures.
 *
 *   npm run bench:snapshot            (SNAPSHOT_BENCH_SCALE=0.2 for a quick run)
 *
 * Each measurement runs in its own child process, so its RSS high-water is its own:
 * - export: ours (Lotus walk order, visited sets in temporary SQLite files) against the walk a
 *   TypeScript project would write first (depth-first over every link with a JS Set of CIDs,
 *   as the genesis exporter does), streaming through the same CAR writer; both must write the
 *   same number of blocks and bytes;
 * - import: ours (streaming, verified, indexed and validated in one transaction) against plain
 *   `importCar` (@ipld/car into the blockstore, CIDs verified, nothing validated or indexed);
 *   both must store the same number of blocks;
 * - the floor both import and export are measured against: the CAR's sections found by their
 *   length varints, each block hashed (blake2b-256) and inserted with one prepared statement, in
 *   one transaction — no CBOR parsed, nothing checked but the hash, no index written.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CID } from 'multiformats/cid';
import { buildGenesis } from '../src/chain/genesis/index.js';
import { ChainStore, putBlockMessages } from '../src/chain/index.js';
import { type CidParts, readCid } from '../src/chain/snapshot/cid-bytes.js';
import { exportSnapshotToFile, IMPORT_PAGE_CACHE_MIB, importSnapshot } from '../src/chain/snapshot/index.js';
import { blake2b256 } from '../src/crypto/index.js';
import { LedgerDatabase } from '../src/db/index.js';
import {
  type Block,
  type Blockstore,
  buildAmt,
  digestProblem,
  getBlock,
  importCar,
  putCbor,
  WriteBatch,
  writeCar,
} from '../src/ipld/index.js';
import { DEVNET_2K } from '../src/params/index.js';
import { ACTOR_CODES, blockLinks, StateTree } from '../src/state/index.js';
import {
  Address,
  type BlockHeader,
  DAG_CBOR_CODE,
  type Message,
  messageReceiptToCborNode,
  TipSet,
} from '../src/types/index.js';
import { accountOf, devnetTemplate, FIL, GENESIS_TIMESTAMP, genesisMiner } from '../test/helpers/genesis.js';
import { keys } from '../test/helpers/keys.js';
import { assertAgree, type Measurement, report } from './harness.js';

const SCALE = Number(process.env.SNAPSHOT_BENCH_SCALE ?? 1);
const BULK_ACTORS = Math.round(200_000 * SCALE);
const EPOCHS = Math.round(600 * SCALE);
const UPDATES_PER_EPOCH = 100;
const MESSAGES = 20;
const PARAMS = DEVNET_2K;

const self = fileURLToPath(import.meta.url);

function buildChain(dbPath: string): { head: TipSet } {
  const db = LedgerDatabase.open(dbPath);
  try {
    const template = devnetTemplate({
      accounts: [accountOf(keys.alice.address, 1000n * FIL), accountOf(keys.worker.address, 1000n * FIL)],
      miners: [genesisMiner(0, keys.worker.address, keys.worker.address, 2)],
    });
    const genesis = buildGenesis(db.blockstore, template, PARAMS);
    const chain = ChainStore.initialize({ db, params: PARAMS }, genesis.cid);
    const store = db.blockstore;
    const writeState = (root: CID, change: (tree: StateTree) => void): CID => {
      const batch = new WriteBatch(store);
      const tree = StateTree.load(batch, root);
      change(tree);
      const next = tree.flush();
      batch.commit();
      return next;
    };
    const accountHead = putCbor(store, [keys.alice.address.bytes]);
    const firstId = 100_000n;
    let stateRoot = writeState(genesis.stateRoot, (tree) => {
      for (let i = 0; i < BULK_ACTORS; i++) {
        tree.setActor(firstId + BigInt(i), {
          code: ACTOR_CODES.account,
          head: accountHead,
          nonce: 0n,
          balance: BigInt(i) * FIL,
          delegatedAddress: null,
        });
      }
    });
    let receiptsRoot = genesis.header.parentMessageReceipts;
    let parent = chain.head();
    for (let h = 1; h <= EPOCHS; h++) {
      const messages: Message[] = Array.from({ length: MESSAGES }, (_, i) => ({
        to: Address.newId(firstId + BigInt((h * 7919 + i * 104_729) % BULK_ACTORS)),
        from: Address.newId(firstId + BigInt((h * 31 + i) % BULK_ACTORS)),
        nonce: BigInt(h),
        value: BigInt(i + 1),
        gasLimit: 1_000_000n,
        gasFeeCap: 100_000n,
        gasPremium: 1_000n,
        method: 0n,
        params: new Uint8Array(0),
      }));
      const header: BlockHeader = {
        miner: Address.newId(1000n),
        ticket: { vrfProof: blake2b256(new TextEncoder().encode(`ticket ${h}`)) },
        electionProof: { winCount: 1n, vrfProof: blake2b256(new TextEncoder().encode(`election ${h}`)) },
        beaconEntries: [],
        winPoStProof: [],
        parents: parent.key.cids,
        parentWeight: chain.weightOf(parent),
        height: BigInt(h),
        parentStateRoot: stateRoot,
        parentMessageReceipts: receiptsRoot,
        messages: putBlockMessages(store, { blsMessages: messages, secpMessages: [] }).txMeta,
        blsAggregate: null,
        timestamp: GENESIS_TIMESTAMP + BigInt(h) * PARAMS.blockDelaySecs,
        blockSig: null,
        forkSignaling: 0n,
        parentBaseFee: PARAMS.minimumBaseFee,
      };
      chain.putBlock({ header, blsMessages: messages, secpkMessages: [] });
      parent = TipSet.fromHeaders([header]);
      chain.addTipSet(parent);
      // The next tipset's parent state and receipts: UPDATES_PER_EPOCH actors changed, one receipt per message.
      stateRoot = writeState(stateRoot, (tree) => {
        for (let u = 0; u < UPDATES_PER_EPOCH; u++) {
          const id = firstId + BigInt((h * 15_485_863 + u * 2_038_074_743) % BULK_ACTORS);
          const actor = tree.getActor(id)!;
          tree.setActor(id, { ...actor, nonce: actor.nonce + 1n, balance: actor.balance + 1n });
        }
      });
      receiptsRoot = buildAmt(
        store,
        messages.map((_, i) =>
          messageReceiptToCborNode({
            version: 0,
            exitCode: 0n,
            return: new Uint8Array(0),
            gasUsed: BigInt(1000 + i),
            eventsRoot: null,
          }),
        ),
        { version: 'v0' },
      );
    }
    return { head: chain.head() };
  } finally {
    db.close();
  }
}

/** The walk a TS project writes first: depth-first over every DAG-CBOR link, with a JS Set of the CIDs seen. */
function* naiveBlocks(store: Blockstore, head: TipSet): Generator<Block> {
  const seen = new Set<string>();
  const pending: CID[] = [...head.cids].reverse();
  for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
    const key = cid.toString();
    if (seen.has(key) || cid.code !== DAG_CBOR_CODE) continue;
    seen.add(key);
    const bytes = getBlock(store, cid);
    yield { cid, bytes };
    const links = blockLinks(cid, bytes);
    for (let i = links.length - 1; i >= 0; i--) pending.push(links[i]!);
  }
}

/** Reads an unsigned varint at `at`: [value, offset after it], or undefined when `bytes` ends first. */
function varintAt(bytes: Uint8Array, at: number): [number, number] | undefined {
  let value = 0;
  for (let i = at, scale = 1; i < bytes.length; i++, scale *= 0x80) {
    value += (bytes[i]! & 0x7f) * scale;
    if (bytes[i]! < 0x80) return [value, i + 1];
  }
  return undefined;
}

/**
 * The floor: every block of the CAR hashed (compared with its CID's digest) and inserted by one
 * prepared statement, in one transaction with the import's page cache; sections found by their
 * length varints, the CID by its prefix.
 */
async function rawFloor(db: LedgerDatabase, car: string): Promise<number> {
  let blocks = 0;
  await db.exclusiveTransaction(
    async () => {
      let rest: Uint8Array = new Uint8Array(0);
      let first = true;
      for await (const chunk of createReadStream(car, { highWaterMark: 1 << 20 })) {
        const buffer: Uint8Array = rest.length === 0 ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer]);
        let at = 0;
        if (first) {
          // Past the CAR header (its length varint, then the header).
          const [length, start] = varintAt(buffer, 0)!;
          at = start + length;
          first = false;
        }
        const batch: { cidBytes: Uint8Array; bytes: Uint8Array }[] = [];
        for (let section = varintAt(buffer, at); section !== undefined; section = varintAt(buffer, at)) {
          const [length, start] = section;
          if (start + length > buffer.length) break;
          const cid = readCid(buffer, start) as CidParts;
          const cidBytes = buffer.subarray(start, cid.end);
          const bytes = buffer.subarray(cid.end, start + length);
          if (digestProblem(cid.hashCode, cid.digest, bytes) !== undefined) {
            throw new Error(`block ${blocks + batch.length} does not hash to its CID`);
          }
          batch.push({ cidBytes, bytes });
          at = start + length;
        }
        db.blockstore.putEncodedMany(batch);
        blocks += batch.length;
        rest = buffer.subarray(at);
      }
    },
    { cacheMiB: IMPORT_PAGE_CACHE_MIB },
  );
  return blocks;
}

/**
 * This process's RSS high-water mark in MiB: Linux's VmHWM, its own since exec. getrusage's maxRSS
 * would not do: on Linux it carries over the parent's peak at fork time (the chain build's), which
 * hid every child's own peak below it.
 */
function peakRssMiB(): number {
  const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '';
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  return hwm === null ? process.resourceUsage().maxRSS / 1024 : Number(hwm[1]) / 1024;
}

interface ChildResult {
  seconds: number;
  /** CPU time of the child over the same span (user + system): steadier than wall time on a shared machine. */
  cpuSeconds: number;
  /** RSS high-water of the whole child process. */
  maxRssMiB: number;
  /** The high-water before the measured work began (loading tsx and the modules). */
  startRssMiB: number;
  blocks: number;
  bytes: number;
}

async function child(mode: string, impl: string, dir: string): Promise<ChildResult> {
  const startRssMiB = peakRssMiB();
  const startCpu = process.cpuUsage();
  const started = performance.now();
  let blocks = 0;
  let bytes = 0;
  const car = join(dir, 'full.car');
  if (mode === 'export') {
    const db = LedgerDatabase.open(join(dir, 'source.db'));
    const head = ChainStore.open({ db, params: PARAMS }).head();
    const out = join(dir, `export-${impl}.car`);
    if (impl === 'ledger') {
      const summary = await exportSnapshotToFile(db.blockstore, head, out);
      blocks = summary.blocks;
    } else {
      const counted = function* () {
        for (const block of naiveBlocks(db.blockstore, head)) {
          blocks++;
          yield block;
        }
      };
      await writeCar(createWriteStream(out), head.cids, counted());
    }
    bytes = statSync(out).size;
    db.close();
  } else {
    const db = LedgerDatabase.open(join(dir, `import-${impl}.db`));
    bytes = statSync(car).size;
    if (impl === 'ledger') {
      blocks = (await importSnapshot(db, car, { mode: 'chain', params: PARAMS })).blocks;
    } else if (impl === 'floor') {
      blocks = await rawFloor(db, car);
    } else {
      blocks = (await importCar(db.blockstore, createReadStream(car, { highWaterMark: 1 << 20 }))).blockCount;
    }
    db.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(startCpu);
  return {
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    maxRssMiB: peakRssMiB(),
    startRssMiB,
    blocks,
    bytes,
  };
}

function runChild(mode: string, impl: string, dir: string): ChildResult {
  const run = spawnSync(process.execPath, ['--import', 'tsx', self, mode, impl, dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  if (run.status !== 0) throw new Error(`${mode} [${impl}] failed with status ${run.status}`);
  const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as ChildResult;
  console.error(
    `  ${mode} [${impl}]: ${(result.bytes / 2 ** 20 / result.seconds).toFixed(1)} MB/s, ${result.seconds.toFixed(1)} s (${result.cpuSeconds.toFixed(1)} s CPU), peak RSS ${result.maxRssMiB.toFixed(0)} MiB (${result.startRssMiB.toFixed(0)} MiB before the work), ${result.blocks} blocks`,
  );
  return result;
}

async function main(): Promise<void> {
  const [mode, impl, dir] = process.argv.slice(2);
  if (mode !== undefined) {
    process.stdout.write(`${JSON.stringify(await child(mode, impl!, dir!))}\n`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'ledger-bench-snapshot-'));
  const keep = process.env.SNAPSHOT_BENCH_KEEP === '1';
  try {
    console.error(
      `building a chain: ${BULK_ACTORS} bulk actors, ${EPOCHS} epochs × ${UPDATES_PER_EPOCH} state updates and ${MESSAGES} messages`,
    );
    const built = performance.now();
    const { head } = buildChain(join(work, 'source.db'));
    console.error(`  built in ${((performance.now() - built) / 1000).toFixed(1)} s; head at epoch ${head.height}`);

    const exportOurs = runChild('export', 'ledger', work);
    const exportNaive = runChild('export', 'naive-js-set', work);
    assertAgree('export blocks', { ledger: exportOurs.blocks, naive: exportNaive.blocks });
    assertAgree('export bytes', { ledger: exportOurs.bytes, naive: exportNaive.bytes });
    const { renameSync } = await import('node:fs');
    renameSync(join(work, 'export-ledger.car'), join(work, 'full.car'));
    const importOurs = runChild('import', 'ledger', work);
    const importPlain = runChild('import', 'importCar', work);
    const floor = runChild('import', 'floor', work);
    assertAgree('import blocks', { ledger: importOurs.blocks, importCar: importPlain.blocks, floor: floor.blocks });

    const mbps = (r: ChildResult) => r.bytes / 2 ** 20 / r.seconds;
    const results: Measurement[] = [
      { case: 'export MB/s', impl: 'ledger', opsPerSec: mbps(exportOurs) },
      { case: 'export MB/s', impl: 'naive-js-set', opsPerSec: mbps(exportNaive) },
      { case: 'import MB/s', impl: 'ledger (validated)', opsPerSec: mbps(importOurs) },
      { case: 'import MB/s', impl: 'importCar (unvalidated)', opsPerSec: mbps(importPlain) },
      { case: 'floor MB/s', impl: 'blake2b + one insert per block', opsPerSec: mbps(floor) },
    ];
    report(
      'snapshot',
      results,
      {
        'import speed ledger / importCar': mbps(importOurs) / mbps(importPlain),
        'import speed ledger / floor': mbps(importOurs) / mbps(floor),
        'export speed ledger / floor': mbps(exportOurs) / mbps(floor),
        'export speed ledger / naive': mbps(exportOurs) / mbps(exportNaive),
        'export peak RSS ledger / naive': exportOurs.maxRssMiB / exportNaive.maxRssMiB,
      },
      {
        chain: {
          bulkActors: BULK_ACTORS,
          epochs: EPOCHS,
          updatesPerEpoch: UPDATES_PER_EPOCH,
          messagesPerEpoch: MESSAGES,
        },
        snapshotBytes: exportOurs.bytes,
        snapshotBlocks: exportOurs.blocks,
        rssBeforeWorkMiB: {
          exportLedger: exportOurs.startRssMiB,
          exportNaive: exportNaive.startRssMiB,
          importLedger: importOurs.startRssMiB,
          importCar: importPlain.startRssMiB,
          floor: floor.startRssMiB,
        },
        peakRssMiB: {
          exportLedger: exportOurs.maxRssMiB,
          exportNaive: exportNaive.maxRssMiB,
          importLedger: importOurs.maxRssMiB,
          importCar: importPlain.maxRssMiB,
          floor: floor.maxRssMiB,
        },
        seconds: {
          exportLedger: exportOurs.seconds,
          exportNaive: exportNaive.seconds,
          importLedger: importOurs.seconds,
          importCar: importPlain.seconds,
          floor: floor.seconds,
        },
        cpuSeconds: {
          exportLedger: exportOurs.cpuSeconds,
          exportNaive: exportNaive.cpuSeconds,
          importLedger: importOurs.cpuSeconds,
          importCar: importPlain.cpuSeconds,
          floor: floor.cpuSeconds,
        },
      },
    );
  } finally {
    if (keep) console.error(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
