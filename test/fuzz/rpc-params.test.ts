/**
 * Fuzz of the parameters of every declared JSON-RPC method: random JSON values per parameter
 * position — arbitrary JSON, integers at and beyond the 64-bit edges, huge digit strings, and real
 * Lotus JSON values (addresses, CIDs, tipset keys, messages, signatures, key infos) with one field
 * replaced, removed or added — sent over HTTP to a real server. Twice: on the in-process harness
 * (wallet and auth services, no chain), and on a server over a real chain (SQLite chain store,
 * executed tipsets with transfers), so well-typed parameters also reach the handlers. Every answer
 * is a result, an invalid-params error (-32602) naming the parameter, or a method's own refusal
 * (code 1, or Lotus's code for it such as 11 for an unknown actor) — never an internal error
 * (-32603), never a stack trace — and the server logs no unexpected failure.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import { allMethods, methodNames, type ParamDeclaration, PERMISSIONS, type RpcMethod } from '../../src/rpc/index.js';
import { parseRequestBody, plainJson } from '../../src/rpc/request-json.js';
import {
  blockHeaderToLotusJson,
  cidToLotusJson,
  messageToLotusJson,
  setDefaultNetwork,
  signatureToLotusJson,
  signedMessageCid,
  signedMessageToLotusJson,
  stringifyJsonLossless,
  tipSetKeyToLotusJson,
} from '../../src/types/index.js';
import { startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { startTestServer, type TestServer } from '../rpc/harness.js';
import { decodeChecked, fuzzParams, SEED } from './fuzz-kit.js';

/** Calls per method per server. */
const CALLS_PER_METHOD = Math.max(4, Math.round(fuzzParams().numRuns! / 120));
/**
 * Methods that write outside the test's directories (a file at the path given), long-poll by design
 * (StateGetBeaconEntry waits for a future epoch, as Lotus's waits for drand) or stop the node (Shutdown).
 */
const HANDLER_EXCLUDED = new Set([
  'ChainExportToFile',
  'StateWaitMsg',
  'StateWaitMsgLimited',
  'StateGetBeaconEntry',
  'Shutdown',
]);

interface Target {
  readonly url: (apiVersion: 0 | 1) => string;
  readonly adminToken: string;
  readonly logLines: string[];
}

const json = (value: unknown) => JSON.stringify(value) ?? 'null';

/** Real Lotus JSON values, each possibly bent: one member replaced, removed or added. */
function bent(values: readonly unknown[]): fc.Arbitrary<string> {
  const base = fc.constantFrom(...values);
  return fc.oneof(
    { weight: 3, arbitrary: base.map(json) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(base, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.boolean())
        .map(([value, pick, junk, drop]) => {
          if (typeof value !== 'object' || value === null) return json(junk);
          const copy: Record<string, unknown> = Array.isArray(value) ? { ...value } : { ...value };
          const members = Object.keys(copy);
          const member = members.length === 0 ? 'Extra' : members[pick % members.length]!;
          if (drop) delete copy[member];
          else copy[member] = junk;
          return json(Array.isArray(value) ? Object.values(copy) : copy);
        }),
    },
  );
}

const SPECIAL_VALUES = [
  '0',
  '-1',
  '9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '-9223372036854775809',
  '1e400',
  '-0',
  '0.5',
  `9${'9'.repeat(400)}`,
  '""',
  '"-1"',
  '"0x"',
  `"${'9'.repeat(200)}"`,
  '{"/":"bafy"}',
  '{"/":{"bytes":"AA"}}',
  '[{"/":"bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2"}]',
];

/**
 * JSON text of the value at one parameter position: mostly a real value its decoder accepts (as
 * is, or bent), so later positions and the handler are reached too; else any JSON or an edge value.
 */
function valueText(param: ParamDeclaration<unknown>, real: readonly unknown[]): fc.Arbitrary<string> {
  const accepted = real.filter((value) => {
    try {
      param.decode(value, param.name);
      return true;
    } catch {
      return false;
    }
  });
  const other = [
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json) },
    { weight: 1, arbitrary: bent(real) },
    { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_VALUES) },
  ];
  if (accepted.length === 0) return fc.oneof(...other);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...accepted).map(json) },
    { weight: 3, arbitrary: bent(accepted) },
    ...other,
  );
}

function paramsText(method: RpcMethod, real: readonly unknown[]): fc.Arbitrary<string> {
  const positions = method.params.map((param) => valueText(param, real));
  const anyValue = fc.jsonValue({ maxDepth: 2 }).map(json);
  return fc
    .oneof(
      { weight: 12, arbitrary: fc.tuple(...positions) },
      { weight: 1, arbitrary: fc.tuple(...positions, anyValue) },
      { weight: 1, arbitrary: fc.tuple(...positions.slice(1)) },
    )
    .map((items) => `[${items.join(',')}]`);
}

async function callText(target: Target, apiVersion: 0 | 1, name: string, params: string) {
  const response = await fetch(target.url(apiVersion), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.adminToken}` },
    body: `{"jsonrpc":"2.0","id":1,"method":${json(name)},"params":${params}}`,
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  return JSON.parse(await response.text()) as { result?: unknown; error?: { code: number; message: string } };
}

async function fuzzEveryMethod(
  target: Target,
  real: readonly unknown[],
  skip: ReadonlySet<string>,
): Promise<{ calls: number; reached: Set<string> }> {
  let calls = 0;
  /** Methods that got past parameter decoding at least once (a result or the handler's own refusal). */
  const reached = new Set<string>();
  for (const method of allMethods) {
    if (skip.has(method.name)) continue;
    // Channel methods answer over WebSocket only; over HTTP POST they are refused (-32601) by design.
    if (method.channel !== undefined) continue;
    const name = methodNames(method)[calls % 2]!;
    const apiVersion = method.apiVersions.includes(1) ? 1 : 0;
    await fc.assert(
      fc.asyncProperty(paramsText(method, real), async (params) => {
        calls++;
        const answer = await callText(target, apiVersion, name, params);
        if (answer.error?.code !== -32602) reached.add(method.name);
        if (answer.error === undefined) return;
        expect([name, params, answer.error.code]).not.toEqual([name, params, -32603]);
        // Lotus's own codes pass through too (11 actor not found, gas errors); the request itself is always valid.
        expect([-32700, -32600, -32601]).not.toContain(answer.error.code);
        expect(answer.error.message).not.toMatch(/\n\s+at /);
        if (answer.error.code === -32602) expect(answer.error.message).toMatch(/param/);
      }),
      { ...fuzzParams(), numRuns: CALLS_PER_METHOD },
    );
  }
  const unexpected = target.logLines.filter((line) => line.includes('failed unexpectedly'));
  expect(unexpected).toEqual([]);
  return { calls, reached };
}

/** Lotus JSON values a node really exchanges, from the test chain's keys and a real transfer. */
function realValues(extra: readonly unknown[] = []): unknown[] {
  const { alice, bob, worker } = keys;
  const transfer = message({ from: alice.address, to: bob.address, value: FIL, nonce: 0n });
  const signed = signSecp(alice, transfer);
  return [
    alice.address.toString(),
    bob.address.toString(),
    worker.address.toString(),
    't01000',
    't0',
    't410fkkilgqaaaauaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    'f1abjxfbp274xpdqcpuaykwkfb43omjotacm2p3za',
    cidToLotusJson(signedMessageCid(signed)),
    messageToLotusJson(transfer),
    signedMessageToLotusJson(signed),
    signatureToLotusJson(signed.signature),
    { Type: 'secp256k1', PrivateKey: Buffer.from(alice.privateKey).toString('base64') },
    { Type: 'bls', PrivateKey: 'AAAA' },
    ['read', 'write'],
    [...PERMISSIONS],
    'secp256k1',
    'bls',
    'aGVsbG8=',
    { MaxFee: '0' },
    '/nonexistent-ledger-fuzz/snapshot.car',
    null,
    [],
    5,
    -1,
    true,
    ...extra,
  ];
}

describe(`JSON-RPC parameters of every method (fast-check seed ${SEED})`, () => {
  test('the in-process harness (no chain): results, -32602 or code 1, never -32603', async () => {
    let server: TestServer | undefined;
    try {
      server = await startTestServer({ maxRequestBytes: 1024 * 1024 });
      server.context.wallet.newKey('secp256k1');
      const { calls, reached } = await fuzzEveryMethod(
        { url: server.url, adminToken: server.tokens.admin, logLines: server.logLines },
        realValues(),
        new Set(),
      );
      expect(calls).toBeGreaterThan(allMethods.length * 3);
      expect(reached.size).toBeGreaterThan(allMethods.length * 0.75);
    } finally {
      await server?.close();
    }
  }, 120_000);

  test('a server over a real chain: well-typed parameters reach the handlers, which refuse cleanly', async () => {
    const { alice, bob } = keys;
    const logLines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const served = await startChainServer({ logger: pino({ level: 'info' }, sink) });
    const { t: chain, tokens } = served;
    try {
      const included = await chain.mine([
        { secp: [signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL, nonce: 0n }))] },
      ]);
      const head = await chain.mine();
      const chainValues = [
        tipSetKeyToLotusJson(head.key),
        tipSetKeyToLotusJson(included.key),
        cidToLotusJson(head.cids[0]!),
        cidToLotusJson(included.cids[0]!),
        cidToLotusJson(head.parentStateRoot),
        cidToLotusJson(chain.chain.genesis.cids[0]!),
        { Header: blockHeaderToLotusJson(head.blocks[0]!), BlsMessages: [], SecpkMessages: [] },
        0,
        1,
        2,
        1_000_000,
      ];
      const { calls, reached } = await fuzzEveryMethod(
        {
          url: (apiVersion) => served.url(apiVersion),
          adminToken: await tokens.create([...PERMISSIONS]),
          logLines,
        },
        realValues(chainValues),
        HANDLER_EXCLUDED,
      );
      expect(calls).toBeGreaterThan((allMethods.length - HANDLER_EXCLUDED.size) * 3);
      expect(reached.size).toBeGreaterThan(allMethods.length * 0.75);
    } finally {
      await served.close();
      setDefaultNetwork('f');
    }
  }, 180_000);
});

describe(`request bodies (src/rpc/request-json.ts, fast-check seed ${SEED})`, () => {
  /** JSON text, often damaged: cut short, a stray character, deep nesting, long numbers. */
  const bodyText = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map(json),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc
      .tuple(
        fc.jsonValue({ maxDepth: 4 }).map(json),
        fc.nat(),
        fc.constantFrom('', '}', ']', ',', '"', '\\', '-', 'e', '0'),
      )
      .map(
        ([text, at, junk]) => `${text.slice(0, at % (text.length + 1))}${junk}${text.slice(at % (text.length + 1))}`,
      ),
    fc.integer({ min: 1, max: 2000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
    fc.constantFrom(...SPECIAL_VALUES).map((value) => `{"params":[${value}]}`),
  );

  test('parseRequestBody: a value, or a parse error (-32700); plainJson never throws', () => {
    fc.assert(
      fc.property(bodyText, (text) => {
        const outcome = decodeChecked(
          () => parseRequestBody(text),
          { codes: ['ERR_RPC_PARSE'], names: /Parse error/ },
          text,
        );
        if (outcome.ok) plainJson(outcome.value.value);
      }),
      fuzzParams(1),
    );
  });

  test('round trip: JSON.stringify of any JSON value parses back to it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const text = json(value);
        const parsed = parseRequestBody(text);
        const back = parsed.plain ? parsed.value : plainJson(parsed.value);
        // Integers beyond 2^53 come back as bigints, written back digit for digit.
        expect(stringifyJsonLossless(back)).toBe(text);
      }),
      fuzzParams(0.5),
    );
  });
});
