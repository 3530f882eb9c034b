/**
 * The dispatcher answers synchronously when the method does (no promise, no event-loop turn: the
 * ChainHead path), and through a promise otherwise; errors are answered the same either way.
 */
import { pino } from 'pino';
import { Dispatcher, declareMethod, type RpcContext } from '../../src/rpc/index.js';
import { jsonResult } from '../../src/rpc/results.js';
import { sharedResult } from '../../src/rpc/shared-results.js';
import { stringifyJsonLossless } from '../../src/types/index.js';
import { LedgerError } from '../../src/utils/errors.js';

const number = jsonResult<number>('value', 'a number', { type: 'integer' });

const methods = [
  declareMethod({
    name: 'Now',
    description: 'answers synchronously',
    permission: 'read',
    apiVersions: [1],
    params: [],
    result: number,
    handler: () => 7,
  }),
  declareMethod({
    name: 'Later',
    description: 'answers through a promise',
    permission: 'read',
    apiVersions: [1],
    params: [],
    result: number,
    handler: async () => 8,
  }),
  declareMethod({
    name: 'Big',
    description: 'answers an integer beyond 2^53 (a bigint)',
    permission: 'read',
    apiVersions: [1],
    params: [],
    result: jsonResult<unknown>('value', 'an object holding a bigint', {}),
    handler: () => ({ Height: 2n ** 64n - 1n, Name: 'é"' }),
  }),
  declareMethod({
    name: 'Shared',
    description: 'answers a shared result (its JSON encoded once)',
    permission: 'read',
    apiVersions: [1],
    params: [],
    result: jsonResult<unknown>('value', 'a shared object', {}),
    handler: () => SHARED,
  }),
  declareMethod({
    name: 'RefuseNow',
    description: 'refuses synchronously',
    permission: 'read',
    apiVersions: [1],
    params: [],
    result: number,
    handler: () => {
      throw new LedgerError('ERR_TEST', 'refused at once');
    },
  }),
  declareMethod({
    name: 'RefuseLater',
    description: 'refuses through a promise',
    permission: 'read',
    apiVersions: [1],
    params: [],
    result: number,
    handler: async () => {
      throw new LedgerError('ERR_TEST', 'refused later');
    },
  }),
];

const SHARED = sharedResult({ Height: 2n ** 64n - 1n, Name: 'é"', Cids: [{ '/': 'bafy' }] });

const dispatcher = new Dispatcher({
  methods,
  apiVersion: 1,
  context: {} as RpcContext,
  logger: pino({ level: 'silent' }),
});

const body = (method: string, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', method, params: [], id });

describe('Dispatcher.handle', () => {
  test('a synchronous method is answered at once, as a string', () => {
    expect(dispatcher.handle(body('Ledger.Now'), ['read'])).toBe('{"id":1,"jsonrpc":"2.0","result":7}');
  });

  test('an asynchronous method is answered through a promise', async () => {
    const handled = dispatcher.handle(body('Ledger.Later'), ['read']);
    expect(handled).toBeInstanceOf(Promise);
    await expect(handled).resolves.toBe('{"id":1,"jsonrpc":"2.0","result":8}');
  });

  test('a synchronous refusal is answered at once with code 1', () => {
    expect(dispatcher.handle(body('Ledger.RefuseNow', 'a'), ['read'])).toBe(
      '{"error":{"code":1,"message":"refused at once"},"id":"a","jsonrpc":"2.0"}',
    );
  });

  test('an asynchronous refusal is answered with code 1 too', async () => {
    await expect(dispatcher.handle(body('Ledger.RefuseLater'), ['read'])).resolves.toBe(
      '{"error":{"code":1,"message":"refused later"},"id":1,"jsonrpc":"2.0"}',
    );
  });

  test('protocol errors and notifications of synchronous methods need no promise either', () => {
    expect(dispatcher.handle(body('Ledger.Nope'), ['read'])).toBe(
      '{"error":{"code":-32601,"message":"method \'Ledger.Nope\' not found"},"id":1,"jsonrpc":"2.0"}',
    );
    expect(dispatcher.handle(JSON.stringify({ jsonrpc: '2.0', method: 'Ledger.Now', params: [] }), ['read'])).toBe(
      undefined,
    );
  });

  test('bigints and ids beyond 2^53 are written digit for digit', () => {
    expect(dispatcher.handle(body('Ledger.Big'), ['read'])).toBe(
      '{"id":1,"jsonrpc":"2.0","result":{"Height":18446744073709551615,"Name":"é\\""}}',
    );
    const bigId = '{"jsonrpc":"2.0","method":"Ledger.Now","params":[],"id":123456789012345678901234567890}';
    expect(dispatcher.handle(bigId, ['read'])).toBe('{"id":123456789012345678901234567890,"jsonrpc":"2.0","result":7}');
    const batch = `[${bigId},${body('Ledger.Now', 2)}]`;
    return expect(dispatcher.handle(batch, ['read'])).resolves.toBe(
      '[{"id":123456789012345678901234567890,"jsonrpc":"2.0","result":7},{"id":2,"jsonrpc":"2.0","result":7}]',
    );
  });

  test('a batch runs its calls in order, synchronous and asynchronous alike', async () => {
    const batch = `[${body('Ledger.Later', 1)},${body('Ledger.Now', 2)},${body('Ledger.RefuseNow', 3)}]`;
    const answers = JSON.parse((await dispatcher.handle(batch, ['read'])) as string) as { id: number }[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[0]).toMatchObject({ result: 8 });
    expect(answers[1]).toMatchObject({ result: 7 });
    expect(answers[2]).toMatchObject({ error: { code: 1 } });
  });
});

describe('answers with a terminator (the HTTP server ends each with a newline)', () => {
  const terminated = new Dispatcher({
    methods,
    apiVersion: 1,
    context: {} as RpcContext,
    logger: pino({ level: 'silent' }),
    terminator: '\n',
  });

  test('a shared result comes as UTF-8 bytes, the same the lossless writer gives, whatever the id', () => {
    for (const id of ['1', '0', '-17', '"ü-\\"x"', 'null', '1.5', '123456789012345678901234567890']) {
      const answer = terminated.handle(`{"jsonrpc":"2.0","method":"Ledger.Shared","params":[],"id":${id}}`, ['read']);
      expect(Buffer.isBuffer(answer)).toBe(true);
      expect((answer as Buffer).toString('utf8')).toBe(
        `{"id":${id},"jsonrpc":"2.0","result":${stringifyJsonLossless(SHARED)}}\n`,
      );
    }
  });

  test('text answers, errors and batches end with it too; a notification still gets nothing', async () => {
    expect(terminated.handle(body('Ledger.Now'), ['read'])).toBe('{"id":1,"jsonrpc":"2.0","result":7}\n');
    expect(terminated.handle(body('Ledger.Nope'), ['read'])).toMatch(/"code":-32601.*\}\n$/);
    expect(terminated.handle('', ['read'])).toMatch(/\}\n$/);
    await expect(terminated.handle(`[${body('Ledger.Shared')}]`, ['read'])).resolves.toBe(
      `[{"id":1,"jsonrpc":"2.0","result":${stringifyJsonLossless(SHARED)}}]\n`,
    );
    expect(terminated.handle('{"jsonrpc":"2.0","method":"Ledger.Shared","params":[]}', ['read'])).toBeUndefined();
  });
});
