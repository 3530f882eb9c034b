/** JSON-RPC 2.0 over real HTTP: one test per edge case of the protocol and of go-jsonrpc's behaviour. */
import { allMethods, declareMethod } from '../../src/rpc/index.js';
import { jsonResult } from '../../src/rpc/results.js';
import { sharedResult } from '../../src/rpc/shared-results.js';
import { stringifyJsonLossless } from '../../src/types/index.js';
import { call, post, startTestServer, type TestServer } from './harness.js';

let test_: TestServer;
let admin: Record<string, string>;

beforeAll(async () => {
  test_ = await startTestServer({ methods: [...allMethods, ...testOnlyMethods()] });
  admin = { authorization: `Bearer ${test_.tokens.admin}` };
});
afterAll(() => test_.close());

/** Methods that exist only in this suite: one that fails like a bug would. */
function testOnlyMethods() {
  return [
    declareMethod({
      name: 'Explode',
      description: 'throws a TypeError, as a bug would',
      permission: 'read',
      apiVersions: [1],
      params: [],
      result: jsonResult<never>('nothing', 'never returns', {}),
      handler: () => {
        throw new TypeError('secret internal detail');
      },
    }),
    declareMethod({
      name: 'Shared',
      description: 'answers a result registered as shared (its JSON text written once)',
      permission: 'read',
      apiVersions: [1],
      params: [],
      result: jsonResult<unknown>('value', 'a fixed object', {}),
      handler: () => SHARED,
    }),
  ];
}

const SHARED = sharedResult({ Cids: [{ '/': 'bafy' }], Height: 7, Big: 123456789012345678901234567890n, Text: 'é"' });

const request = (method: string, params?: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  method,
  ...(params === undefined ? {} : { params }),
  id: 1,
  ...extra,
});

describe('single calls', () => {
  test('a call answers HTTP 200 with id, jsonrpc and result, keys in Lotus order', async () => {
    const reply = await post(test_.url(), request('Ledger.Version', []));
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.text).toBe(
      '{"id":1,"jsonrpc":"2.0","result":{"Version":"0.1.0+devnet","APIVersion":131840,"BlockDelay":4,"Agent":"ledger"}}\n',
    );
  });

  test('Filecoin.X is an alias of Ledger.X', async () => {
    const ledger = await call(test_.url(), 'Ledger.Version', []);
    const filecoin = await call(test_.url(), 'Filecoin.Version', []);
    expect(filecoin).toEqual(ledger);
  });

  test('/rpc/v0 and /rpc/v1 report their own API versions (1.5.0 and 2.3.0)', async () => {
    expect((await call(test_.url(0), 'Filecoin.Version', [])).result).toMatchObject({ APIVersion: 66816 });
    expect((await call(test_.url(1), 'Filecoin.Version', [])).result).toMatchObject({ APIVersion: 131840 });
  });

  test('a method declared only for v1 is not found on v0', async () => {
    expect((await call(test_.url(0), 'Ledger.Explode', [])).error?.code).toBe(-32601);
  });

  test.each([
    ['absent', undefined],
    ['null', null],
    ['an empty array', []],
  ])('params %s means no parameters', async (_label, params) => {
    const reply = await post(test_.url(), request('Ledger.Version', params));
    expect(JSON.parse(reply.text).result.Agent).toBe('ledger');
  });

  test('unknown request members are ignored', async () => {
    const reply = await post(test_.url(), request('Ledger.Version', [], { meta: { SpanContext: 'x' } }));
    expect(JSON.parse(reply.text).result).toBeDefined();
  });

  test('duplicate keys: the last one wins, as in Go', async () => {
    const reply = await post(test_.url(), '{"jsonrpc":"2.0","method":"Ledger.Nope","method":"Ledger.Version","id":1}');
    expect(JSON.parse(reply.text).result).toBeDefined();
  });

  test('text/plain bodies are accepted, with or without a charset', async () => {
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/json; charset=utf-8']) {
      const reply = await post(test_.url(), request('Ledger.Version', []), { 'content-type': type });
      expect(JSON.parse(reply.text).result).toBeDefined();
    }
  });

  test('any other content type is read as JSON too, as go-jsonrpc reads it (curl -d sends a form type)', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'application/octet-stream', 'multipart/form-data']) {
      const reply = await post(test_.url(), request('Ledger.Version', []), { 'content-type': type });
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text).result).toBeDefined();
    }
  });
});

test('a shared result is answered with the same bytes as any other, in single calls and batches', async () => {
  const expected = (id: string) => `{"id":${id},"jsonrpc":"2.0","result":${stringifyJsonLossless(SHARED)}}`;
  for (const id of ['1', '"x"', '123456789012345678901234567890', 'null']) {
    const reply = await post(test_.url(), `{"jsonrpc":"2.0","method":"Ledger.Shared","params":[],"id":${id}}`);
    expect(reply.text).toBe(`${expected(id)}\n`);
  }
  const batch = await post(test_.url(), '[{"jsonrpc":"2.0","method":"Ledger.Shared","id":1}]');
  expect(batch.text).toBe(`[${expected('1')}]\n`);
});

describe('ids', () => {
  test.each([
    ['a string', '"abc-ü"'],
    ['zero', '0'],
    ['a negative number', '-17'],
    ['a fraction', '1.5'],
    ['an exponent', '1e3'],
    ['an integer beyond 2^64', '123456789012345678901234567890'],
    // Bodies whose numbers are all short integers take JSON.parse; these must not.
    ['minus zero', '-0'],
    ['a fraction with a trailing zero', '1.50'],
    ['an integer just beyond 2^53', '9007199254740993'],
    ['an exponent in capitals', '2E2'],
    ['the longest integer read by JSON.parse', '-999999999999999'],
    ['null', 'null'],
    ['a boolean', 'true'],
    ['an object', '{"a":[1,2]}'],
    ['an array', '[1,"x"]'],
  ])('an id that is %s is echoed exactly', async (_label, idText) => {
    const reply = await post(test_.url(), `{"jsonrpc":"2.0","method":"Ledger.Version","params":[],"id":${idText}}`);
    expect(reply.status).toBe(200);
    expect(reply.text.startsWith(`{"id":${idText},"jsonrpc":"2.0","result":`)).toBe(true);
  });

  test('an error response echoes the id too', async () => {
    const reply = await post(test_.url(), '{"jsonrpc":"2.0","method":"Ledger.Nope","id":"x-9"}');
    expect(JSON.parse(reply.text)).toEqual({
      error: { code: -32601, message: "method 'Ledger.Nope' not found" },
      id: 'x-9',
      jsonrpc: '2.0',
    });
  });
});

describe('notifications', () => {
  test('a request without id runs but gets no response (HTTP 204, empty body)', async () => {
    const before = test_.context.wallet.list().length;
    const reply = await post(test_.url(), { jsonrpc: '2.0', method: 'Ledger.WalletNew', params: ['bls'] }, admin);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(test_.context.wallet.list()).toHaveLength(before + 1);
  });

  test('a request that is not valid is answered even without an id, with id null', async () => {
    const reply = await post(test_.url(), { jsonrpc: '2.0', method: 42 });
    expect(JSON.parse(reply.text)).toEqual({
      error: { code: -32600, message: 'Invalid request: "method" must be a string' },
      id: null,
      jsonrpc: '2.0',
    });
  });

  test('a failing notification is not answered either', async () => {
    const reply = await post(test_.url(), { jsonrpc: '2.0', method: 'Ledger.Nope', params: [] });
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
  });

  test('"id": null is a request, not a notification', async () => {
    const reply = await post(test_.url(), '{"jsonrpc":"2.0","method":"Ledger.Version","id":null}');
    expect(JSON.parse(reply.text)).toMatchObject({ id: null, result: { Agent: 'ledger' } });
  });
});

describe('batches', () => {
  test('answers in request order, leaves out notifications, HTTP 200 even with failing entries', async () => {
    const reply = await post(test_.url(), [
      request('Ledger.Version', [], { id: 'first' }),
      { jsonrpc: '2.0', method: 'Ledger.Version', params: [] },
      request('Ledger.Nope', [], { id: 2 }),
      request('Filecoin.WalletList', [], { id: 3 }),
    ]);
    expect(reply.status).toBe(200);
    const responses = JSON.parse(reply.text);
    expect(responses.map((r: { id: unknown }) => r.id)).toEqual(['first', 2, 3]);
    expect(responses[0].result.Agent).toBe('ledger');
    expect(responses[1].error.code).toBe(-32601);
    expect(responses[2].error).toEqual({
      code: 1,
      message: "missing permission to invoke 'WalletList' (need 'write')",
    });
  });

  test('entries run in order: a key created by one entry is listed by the next', async () => {
    const responses = JSON.parse(
      (
        await post(
          test_.url(),
          [request('Ledger.WalletNew', ['secp256k1'], { id: 1 }), request('Ledger.WalletList', [], { id: 2 })],
          admin,
        )
      ).text,
    );
    expect(responses[1].result).toContain(responses[0].result);
  });

  test('a batch of notifications only gets no response', async () => {
    const reply = await post(test_.url(), [
      { jsonrpc: '2.0', method: 'Ledger.Version' },
      { jsonrpc: '2.0', method: 'Ledger.Nope' },
    ]);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
  });

  test('an empty batch is an invalid request', async () => {
    const reply = await post(test_.url(), '[]');
    expect(JSON.parse(reply.text)).toEqual({
      error: { code: -32600, message: 'Invalid request: empty batch' },
      id: null,
      jsonrpc: '2.0',
    });
  });

  test('entries that are not request objects are invalid requests, each answered', async () => {
    const responses = JSON.parse((await post(test_.url(), '[1, "x", null, [], {"jsonrpc":"2.0"}]')).text);
    expect(responses).toHaveLength(5);
    for (const response of responses) expect(response.error.code).toBe(-32600);
  });
});

describe('protocol errors (HTTP 200, standard codes)', () => {
  test.each([
    ['malformed JSON', '{"jsonrpc":"2.0",', -32700, 'Parse error'],
    ['a truncated batch', '[{"jsonrpc":"2.0","method":"Ledger.Version","id":1}', -32700, 'Parse error'],
    ['an empty body', '', -32600, 'Invalid request: empty body'],
    ['whitespace only', ' \n\t ', -32600, 'Invalid request: empty body'],
    ['a bare number', '42', -32600, 'Invalid request: expected a request object'],
    ['no jsonrpc member', '{"method":"Ledger.Version","id":1}', -32600, 'Invalid request: "jsonrpc" must be "2.0"'],
    [
      'jsonrpc 1.0',
      '{"jsonrpc":"1.0","method":"Ledger.Version","id":1}',
      -32600,
      'Invalid request: "jsonrpc" must be "2.0"',
    ],
    [
      'a method that is not a string',
      '{"jsonrpc":"2.0","method":7,"id":1}',
      -32600,
      'Invalid request: "method" must be a string',
    ],
    [
      'params that are a string',
      '{"jsonrpc":"2.0","method":"Ledger.Version","params":"x","id":1}',
      -32600,
      'Invalid request: "params" must be an array',
    ],
  ])('%s', async (_label, body, code, message) => {
    const reply = await post(test_.url(), body);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).error).toEqual({ code, message });
  });

  test('an unknown method is -32601 naming it', async () => {
    expect((await call(test_.url(), 'Ledger.NoSuchMethod', [])).error).toEqual({
      code: -32601,
      message: "method 'Ledger.NoSuchMethod' not found",
    });
  });

  test('method names are case-sensitive', async () => {
    expect((await call(test_.url(), 'ledger.version', [])).error?.code).toBe(-32601);
  });

  test('named (object) params are refused as go-jsonrpc refuses them, with -32602', async () => {
    const response = await call(test_.url(), 'Ledger.WalletSign', { address: 't01', data: '' } as never);
    expect(response.error?.code).toBe(-32602);
    expect(response.error?.message).toMatch(/named parameters are not supported/);
  });

  test('a wrong parameter count is -32602 naming the expected parameters', async () => {
    expect((await call(test_.url(), 'Ledger.WalletSign', ['t01'], admin)).error).toEqual({
      code: -32602,
      message: "wrong param count (method 'Ledger.WalletSign'): 1 != 2 (expected [address, data])",
    });
  });

  test.each([
    ['a number for an address', 'Ledger.WalletSign', [5, ''], 'address: expected an address string, got 5'],
    [
      'a bad address checksum',
      'Ledger.WalletHas',
      ['t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6eaxba'],
      'address: invalid address checksum',
    ],
    ['bytes that are not base64', 'Ledger.WalletSign', ['t01', '***'], 'data: expected a base64 string, got "***"'],
    ['an unknown key type', 'Ledger.WalletNew', ['ed25519'], 'keyType: expected "secp256k1", "bls" or "delegated"'],
    [
      'a key type Lotus has but this node does not',
      'Ledger.WalletNew',
      ['secp256k1-ledger'],
      'keyType: key type "secp256k1-ledger" is not supported',
    ],
    [
      'a message field of the wrong type',
      'Ledger.WalletSignMessage',
      ['t01', { To: 't01', From: 't01', Value: 5 }],
      'message.Value: expected',
    ],
    [
      'a signature type out of range',
      'Ledger.WalletVerify',
      ['t01', '', { Type: 9, Data: '' }],
      'signature.Type: expected one of 1, 2, 3, got 9',
    ],
    ['a permission that does not exist', 'Ledger.AuthNew', [['read', 'root']], 'permissions[1]: expected one of'],
  ])('%s is -32602 naming the parameter', async (_label, method, params, fragment) => {
    const response = await call(test_.url(), method, params, admin);
    expect(response.error?.code).toBe(-32602);
    expect(response.error?.message).toContain(`invalid params for '${method}': `);
    expect(response.error?.message).toContain(fragment);
  });

  test('nesting deeper than the limit is a parse error, and the server lives on', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const reply = await post(test_.url(), `{"jsonrpc":"2.0","method":"Ledger.Version","params":${deep},"id":1}`);
    expect(JSON.parse(reply.text).error).toEqual({
      code: -32700,
      message: expect.stringMatching(/nested deeper than/),
    });
    expect((await call(test_.url(), 'Ledger.Version', [])).result).toBeDefined();
  });

  test('a method that fails unexpectedly is -32603 without a stack; the stack goes to the log', async () => {
    const reply = await post(test_.url(), request('Ledger.Explode', []));
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).error).toEqual({ code: -32603, message: "internal error calling 'Ledger.Explode'" });
    expect(reply.text).not.toMatch(/secret internal detail|at .*\.ts/);
    const logged = test_.logLines.map((line) => JSON.parse(line)).find((entry) => entry.method === 'Ledger.Explode');
    expect(logged.err.stack).toMatch(/secret internal detail/);
  });

  test('an error a method raises on purpose is code 1 with its message, as in Lotus', async () => {
    const empty = await startTestServer();
    try {
      const response = await call(empty.url(), 'Ledger.WalletDefaultAddress', [], {
        authorization: `Bearer ${empty.tokens.write}`,
      });
      expect(response.error).toEqual({
        code: 1,
        message: "failed to get default key: opening key 'default': key info not found",
      });
    } finally {
      await empty.close();
    }
  });
});

describe('big integers survive JSON both ways', () => {
  test('a uint64 nonce beyond 2^53 goes in and comes back digit for digit', async () => {
    const address = (await call(test_.url(), 'Ledger.WalletNew', ['secp256k1'], admin)).result as string;
    const body =
      `{"jsonrpc":"2.0","id":1,"method":"Ledger.WalletSignMessage","params":["${address}",` +
      `{"To":"t01","From":"${address}","Nonce":18446744073709551615,"Value":"340282366920938463463374607431768211456",` +
      `"GasLimit":9223372036854775807,"GasFeeCap":"1","GasPremium":"1","Method":18446744073709551614,"Params":null}]}`;
    const reply = await post(test_.url(), body, admin);
    expect(reply.text).toContain('"Nonce":18446744073709551615');
    expect(reply.text).toContain('"GasLimit":9223372036854775807');
    expect(reply.text).toContain('"Method":18446744073709551614');
    expect(reply.text).toContain('"Value":"340282366920938463463374607431768211456"');
  });

  test('a uint64 one past the maximum is refused, naming the field', async () => {
    const reply = await post(
      test_.url(),
      '{"jsonrpc":"2.0","id":1,"method":"Ledger.WalletSignMessage","params":["t01",{"To":"t01","From":"t01","Nonce":18446744073709551616}]}',
      admin,
    );
    expect(JSON.parse(reply.text).error).toEqual({
      code: -32602,
      message: expect.stringContaining('message.Nonce: expected an unsigned 64-bit integer (out of range)'),
    });
  });
});

describe('request size limit', () => {
  test('a body over the limit is HTTP 413 with -32700 "request bigger than maximum N allowed" and the config key', async () => {
    const small = await startTestServer({ maxRequestBytes: 4096 });
    try {
      const reply = await post(small.url(), request('Ledger.WalletValidateAddress', ['x'.repeat(5000)]));
      expect(reply.status).toBe(413);
      expect(JSON.parse(reply.text)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32700,
          message: 'request bigger than maximum 4096 allowed (raise API.MaxRequestSize in config.toml)',
        },
      });
      expect((await call(small.url(), 'Ledger.Version', [])).result).toBeDefined();
    } finally {
      await small.close();
    }
  });
});
