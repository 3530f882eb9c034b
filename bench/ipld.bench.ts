/**
 * The state engine over its two blockstores: HAMT writes (set + flush) and cold reads (load + get)
 * of 100k actor-like entries, on SQLite (WAL, in a temporary directory) and in memory, with the
 * same inputs in one run. Both stores must produce the same roots and read back the same values.
 *
 *   npm run bench:ipld
 *
 * The codec cases run our src/types codecs (native blake2b) against what a TypeScript project would
 * otherwise write: plain @ipld/dag-cbor with @noble/hashes blake2b, over the 49 real mainnet headers
 * and 247 real messages of export40.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dagCbor from '@ipld/dag-cbor';
import { blake2b as nobleBlake2b } from '@noble/hashes/blake2.js';
import * as Digest from 'multiformats/hashes/digest';
import { LedgerDatabase } from '../src/db/index.js';
import { type Blockstore, Hamt, MemoryBlockstore } from '../src/ipld/index.js';
import { encodeCbor } from '../src/types/cbor.js';
import { BLAKE2B_256_CODE, CID, cidOfCbor } from '../src/types/cid.js';
import {
  decodeBlockHeader,
  decodeMessage,
  encodeMessage,
  type Message,
  messageToCborNode,
} from '../src/types/index.js';
import { vectorPath } from '../test/vectors/vectors-dir.js';
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

/** Runs `fn` over every item per timed run; reports items per second. */
async function perItem<T>(caseName: string, impl: string, items: readonly T[], fn: (item: T) => CID): Promise<number> {
  const { opsPerSec } = await measure(`${caseName} (runs of ${items.length})`, impl, () => {
    for (const item of items) fn(item);
  });
  return opsPerSec * items.length;
}

function codecCase<T>(impl: string, items: readonly T[], fn: (item: T) => CID): Implementation {
  return {
    impl,
    async run(caseName) {
      const answer = items.map((item) => fn(item).toString());
      return { opsPerSec: await perItem(caseName, impl, items, fn), answer };
    },
  };
}

const cidWithNoble = (bytes: Uint8Array) =>
  CID.createV1(dagCbor.code, Digest.create(BLAKE2B_256_CODE, nobleBlake2b(bytes, { dkLen: 32 })));

interface HexRecord {
  cbor_hex: string;
  kind?: string;
  unsigned_message_cbor_hex_derived?: string;
}
const readRecords = (file: string, key: string) =>
  (JSON.parse(readFileSync(vectorPath('blocks', file), 'utf8')) as Record<string, HexRecord[]>)[key]!;
const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

function realHeaders(): Uint8Array[] {
  return readRecords('export40_headers.json', 'headers').map((h) => fromHex(h.cbor_hex));
}

function realMessages(): Message[] {
  return readRecords('export40_messages.json', 'messages').map((m) =>
    decodeMessage(fromHex(m.unsigned_message_cbor_hex_derived ?? m.cbor_hex)),
  );
}

async function main(): Promise<void> {
  const headers = realHeaders();
  const messages = realMessages();
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-ipld-'));
  const database = LedgerDatabase.open(join(dir, 'bench.db'));
  const memory = new MemoryBlockstore();
  const cases: BenchCase[] = [
    {
      name: 'block header decode+CID',
      implementations: [
        codecCase('ledger-types', headers, (bytes) => {
          decodeBlockHeader(bytes);
          return cidOfCbor(bytes);
        }),
        codecCase('dag-cbor+noble', headers, (bytes) => {
          dagCbor.decode(bytes);
          return cidWithNoble(bytes);
        }),
      ],
      ratio: ['ledger-types', 'dag-cbor+noble'],
    },
    {
      name: 'message encode+CID',
      implementations: [
        codecCase('ledger-types', messages, (message) => cidOfCbor(encodeMessage(message))),
        codecCase('dag-cbor+noble', messages, (message) => cidWithNoble(dagCbor.encode(messageToCborNode(message)))),
      ],
      ratio: ['ledger-types', 'dag-cbor+noble'],
    },
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
