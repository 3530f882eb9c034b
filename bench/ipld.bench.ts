/**
 * The state engine over its two blockstores: HAMT writes (set + flush) and cold reads (load + get)
 * of 100k actor-like entries, on SQLite (WAL, in a temporary directory) and in memory, with the
 * same inputs in one run. Both stores must produce the same roots and read back the same values.
 *
 *   npm run bench:ipld
 *
 * Each case lists the implementations it compares and the ratio to report; block-header
 * decode+CID and message encode+CID cases (src/types against plain @ipld/dag-cbor) slot into
 * `cases` the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerDatabase } from '../src/db/index.js';
import { type Blockstore, Hamt, MemoryBlockstore } from '../src/ipld/index.js';
import { encodeCbor } from '../src/types/cbor.js';
import { type CID, cidOfCbor } from '../src/types/cid.js';
import { assertAgree, type Measurement, measure, report } from './harness.js';

const ENTRIES = 100_000;

interface Implementation {
  readonly impl: string;
  /** Measures the case; `answer` must be the same for every implementation of the case. */
  run(caseName: string): Promise<{ opsPerSec: number; answer: unknown }>;
}

interface BenchCase {
  readonly name: string;
  readonly implementations: readonly Implementation[];
  /** Reported as `<case> <numerator>/<denominator>` of ops/s. */
  readonly ratio: readonly [numerator: string, denominator: string];
}

/** ID-address keys (`00 || uvarint(id)`) and Actor-shaped values, as in the state tree. */
const keys = Array.from({ length: ENTRIES }, (_, i) => idAddress(1000 + i));
const code = cidOfCbor(encodeCbor('account actor code'));
const head = cidOfCbor(encodeCbor('empty account state'));
const actor = (nonce: number, i: number) => [code, head, nonce, new Uint8Array([0, (i >> 8) & 0xff, i & 0xff])];

function idAddress(id: number): Uint8Array {
  const bytes = [0];
  for (let rest = id; ; rest = Math.floor(rest / 128)) {
    if (rest < 128) {
      bytes.push(rest);
      return Uint8Array.from(bytes);
    }
    bytes.push((rest & 0x7f) | 0x80);
  }
}

function buildHamt(blockstore: Blockstore, nonce: number): CID {
  const hamt = Hamt.create(blockstore);
  for (let i = 0; i < ENTRIES; i++) hamt.set(keys[i]!, actor(nonce, i));
  return hamt.flush();
}

function shuffledIndices(n: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let state = 0x9e3779b9;
  for (let i = n - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * Each run does ENTRIES operations and takes about a second, so one untimed run warms the JIT
 * instead of tinybench's many; tinybench reports runs per second, the table operations per second.
 */
async function perOperation(caseName: string, impl: string, run: () => unknown): Promise<number> {
  run();
  const { opsPerSec } = await measure(`${caseName} (runs of ${ENTRIES})`, impl, run, {
    iterations: 5,
    time: 0,
    warmup: false,
  });
  return opsPerSec * ENTRIES;
}

function hamtSet(impl: string, blockstore: Blockstore): Implementation {
  return {
    impl,
    async run(caseName) {
      // A new nonce per run, so every run writes new blocks rather than finding them stored.
      let nonce = 0;
      const opsPerSec = await perOperation(caseName, impl, () => buildHamt(blockstore, ++nonce));
      return { opsPerSec, answer: buildHamt(blockstore, 0).toString() };
    },
  };
}

function hamtGet(impl: string, blockstore: Blockstore): Implementation {
  return {
    impl,
    async run(caseName) {
      const root = buildHamt(blockstore, 0);
      const order = shuffledIndices(ENTRIES);
      let nonceSum = 0;
      // A fresh load each run: every node comes from the store, decoded once, then cached.
      const opsPerSec = await perOperation(caseName, impl, () => {
        const hamt = Hamt.load(blockstore, root);
        nonceSum = 0;
        for (const i of order) nonceSum += (hamt.get(keys[i]!) as unknown[])[2] as number;
      });
      return { opsPerSec, answer: [root.toString(), nonceSum] };
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-ipld-'));
  const database = LedgerDatabase.open(join(dir, 'bench.db'));
  const memory = new MemoryBlockstore();
  const cases: BenchCase[] = [
    {
      name: `hamt set ${ENTRIES / 1000}k`,
      implementations: [hamtSet('sqlite', database.blockstore), hamtSet('memory', memory)],
      ratio: ['sqlite', 'memory'],
    },
    {
      name: `hamt get ${ENTRIES / 1000}k`,
      implementations: [hamtGet('sqlite', database.blockstore), hamtGet('memory', memory)],
      ratio: ['sqlite', 'memory'],
    },
  ];
  const results: Measurement[] = [];
  const ratios: Record<string, number> = {};
  try {
    for (const { name, implementations, ratio } of cases) {
      const answers: Record<string, unknown> = {};
      const ops: Record<string, number> = {};
      for (const { impl, run } of implementations) {
        const { opsPerSec, answer } = await run(name);
        results.push({ case: name, impl, opsPerSec });
        answers[impl] = answer;
        ops[impl] = opsPerSec;
      }
      assertAgree(name, answers);
      ratios[`${name} ${ratio[0]}/${ratio[1]}`] = ops[ratio[0]]! / ops[ratio[1]]!;
    }
  } finally {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
  report('ipld', results, ratios);
}

await main();
