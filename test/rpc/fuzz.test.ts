/**
 * 10,000 random and malformed requests over real HTTP: bad JSON, wrong types, huge numbers, deep
 * nesting, long strings, valid-looking calls with random parameters, batches. Every answer must be
 * well-formed — a JSON-RPC response or a batch of them (errors with HTTP 200, 413 for a body over
 * the size limit or 415 for a wrong content type), or no response at all (HTTP 204) when every
 * request was a notification — no
 * answer may carry a stack trace, and the server must still serve afterwards.
 */
import fc from 'fast-check';
import { allMethods, methodNames } from '../../src/rpc/index.js';
import { call, startTestServer, type TestServer } from './harness.js';

const RUNS = 10_000;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ maxRequestBytes: 256 * 1024 });
  server.context.wallet.newKey('secp256k1');
});
afterAll(() => server.close());

const json = (value: unknown) => JSON.stringify(value) ?? 'null';

/** JSON text of a value, including what JSON.stringify cannot write: huge numbers, deep nesting. */
const valueText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map(json),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
  fc.integer({ min: 1, max: 400 }).map((digits) => `9${'9'.repeat(digits)}`),
  fc.constantFrom('1e999', '-1e999', '1.5e-400', '0.1', '-0', '18446744073709551616', '9223372036854775808'),
  fc.integer({ min: 1, max: 3000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 1, max: 3000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.integer({ min: 1000, max: 200_000 }).map((length) => json('x'.repeat(length))),
  fc.constantFrom('"t01"', '"t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba"', '"bls"', '"secp256k1"', '""', '"aGk="'),
  fc.constantFrom('{"Type":1,"Data":""}', '{"Type":"secp256k1","PrivateKey":"AAAA"}', '{"To":"t01","From":"t01"}'),
);

const methodText = fc.oneof(
  fc.constantFrom(...allMethods.flatMap(methodNames)).map(json),
  fc.string().map(json),
  valueText,
);

const paramsText = fc.oneof(
  fc.array(valueText, { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  valueText,
);

const idText = fc.oneof(fc.integer().map(String), fc.string().map(json), valueText);

/** A request object, with any member possibly missing or of the wrong type. */
const requestText = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant('"2.0"'), valueText),
      method: methodText,
      params: paramsText,
      id: idText,
    },
    { requiredKeys: [] },
  )
  .map(
    (members) =>
      `{${Object.entries(members)
        .map(([key, text]) => `"${key}":${text}`)
        .join(',')}}`,
  );

/** Damage to a body: truncation, a stray character, or nothing. */
const damaged = (text: fc.Arbitrary<string>) =>
  fc
    .tuple(text, fc.nat(), fc.constantFrom('', '}', ']', ',', '"', '\\', '\u0000', '\ud800'))
    .map(([body, at, junk]) => {
      const cut = at % (body.length + 1);
      return junk === '' ? body.slice(0, cut) : `${body.slice(0, cut)}${junk}${body.slice(cut)}`;
    });

const bodyText = fc.oneof(
  { weight: 5, arbitrary: requestText },
  { weight: 2, arbitrary: fc.array(requestText, { maxLength: 5 }).map((items) => `[${items.join(',')}]`) },
  { weight: 2, arbitrary: damaged(requestText) },
  { weight: 1, arbitrary: valueText },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
);

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constant('text/plain') },
  { weight: 1, arbitrary: fc.constantFrom('application/octet-stream', 'text/html', 'multipart/form-data') },
);

const who = fc.constantFrom<'none' | 'admin'>('none', 'admin', 'admin');

function checkResponseObject(response: unknown): void {
  expect(typeof response).toBe('object');
  const r = response as Record<string, unknown>;
  expect(r.jsonrpc).toBe('2.0');
  expect('id' in r).toBe(true);
  expect(Object.hasOwn(r, 'result') !== Object.hasOwn(r, 'error')).toBe(true);
  if (Object.hasOwn(r, 'error')) {
    const error = r.error as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
    expect(error.message).not.toMatch(/\n\s+at /);
  }
}

test(`${RUNS} random and malformed requests all get well-formed answers`, async () => {
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(bodyText, contentType, who, async (body, type, caller) => {
      const headers: Record<string, string> = { 'content-type': type };
      if (caller === 'admin') headers.authorization = `Bearer ${server.tokens.admin}`;
      const response = await fetch(server.url(), { method: 'POST', headers, body });
      const text = await response.text();
      answered++;
      if (response.status === 204) {
        expect(text).toBe('');
        return;
      }
      expect([200, 413, 415]).toContain(response.status);
      const parsed = JSON.parse(text);
      if (Array.isArray(parsed)) {
        expect(parsed.length).toBeGreaterThan(0);
        parsed.forEach(checkResponseObject);
      } else {
        checkResponseObject(parsed);
      }
    }),
    { numRuns: RUNS },
  );
  expect(answered).toBe(RUNS);
  expect((await call(server.url(), 'Ledger.Version', [])).result).toMatchObject({ Agent: 'ledger' });
  const list = await call(server.url(), 'Ledger.WalletList', [], { authorization: `Bearer ${server.tokens.admin}` });
  expect(Array.isArray(list.result)).toBe(true);
}, 300_000);
