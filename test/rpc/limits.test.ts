/**
 * What one RPC client can make the node do (docs/rpc-limits.md), over HTTP on a real server over
 * a real chain (SQLite chain store, executed tipsets): batch length, expensive calls at once,
 * answer size, long calls ended when their client leaves or the server closes, and JSON-RPC
 * error bodies for what the HTTP layer refuses.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { allMethods, declareMethod, type RpcMethod, type RpcServer } from '../../src/rpc/index.js';
import type { RpcLimits } from '../../src/rpc/limits.js';
import { jsonResult } from '../../src/rpc/results.js';
import { messageToLotusJson, setDefaultNetwork, tipSetKeyToLotusJson } from '../../src/types/index.js';
import { answerStartMs } from '../helpers/answer-time.js';
import { startChainServer } from '../helpers/chain-server.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import type { TestChain } from '../helpers/test-chain.js';
import { post } from './harness.js';

const { alice, bob } = keys;

interface Setup {
  readonly t: TestChain;
  readonly server: RpcServer;
  readonly url: string;
  readonly directory: string;
  close(): Promise<void>;
}

async function start(limits: Partial<RpcLimits> = {}, methods: readonly RpcMethod[] = allMethods): Promise<Setup> {
  const c = await startChainServer({ limits, methods });
  return { t: c.t, server: c.server, url: c.url(1), directory: c.directory, close: c.close };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are walked field by field in assertions.
type Json = Record<string, any>;

function rpc(method: string, params: unknown[], id: unknown = 1) {
  return { jsonrpc: '2.0', method, params, id };
}

/** A chain with one transfer included (height 1) and executed (height 2): StateCompute has work. */
async function mineTransfer(t: TestChain) {
  const signed = signSecp(alice, message({ from: alice.address, to: bob.address, value: 2n * FIL }));
  const included = await t.mine([{ secp: [signed] }]);
  await t.mine();
  return included;
}

/** `count` transfers from bob for StateCompute to run after the tipset (nonces as given, no signatures). */
function transfers(count: number) {
  return Array.from({ length: count }, (_, nonce) =>
    messageToLotusJson(message({ from: bob.address, to: alice.address, value: 1n, nonce: BigInt(nonce) })),
  );
}

afterAll(() => setDefaultNetwork('f'));

describe('batch length', () => {
  test('300 StateCompute calls in one batch are refused at once, whole, and the node keeps answering', async () => {
    const s = await start();
    try {
      const included = await mineTransfer(s.t);
      const compute = rpc('Ledger.StateCompute', [1, [], tipSetKeyToLotusJson(included.key)]);
      const batch = Array.from({ length: 300 }, (_, i) => ({ ...compute, id: i }));
      const started = performance.now();
      const reply = await post(s.url, batch);
      const elapsed = performance.now() - started;
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message:
            'Invalid request: batch of 300 calls exceeds the limit of 100 (raise API.MaxBatchSize in config.toml, or split the batch)',
        },
      });
      expect(elapsed).toBeLessThan(1000);
      // The node answers afterwards, a batch within the limit included.
      const after = JSON.parse((await post(s.url, batch.slice(0, 3))).text) as Json[];
      expect(after.map((r) => r.id)).toEqual([0, 1, 2]);
      expect(after[0]?.result.Trace).toHaveLength(3);
    } finally {
      await s.close();
    }
  });

  test('the limit is configurable', async () => {
    const s = await start({ maxBatchSize: 2 });
    try {
      const version = rpc('Ledger.Version', []);
      expect(JSON.parse((await post(s.url, [version, version])).text)).toHaveLength(2);
      expect(JSON.parse((await post(s.url, [version, version, version])).text).error.message).toContain(
        'batch of 3 calls exceeds the limit of 2',
      );
    } finally {
      await s.close();
    }
  });
});

/** An expensive test method that runs until the test lets it end. */
function gatedMethod() {
  const running: Array<() => void> = [];
  let started = 0;
  const method = declareMethod({
    name: 'TestExpensive',
    description: 'an expensive call that ends when the test says',
    permission: 'read',
    apiVersions: [1],
    expensive: true,
    params: [],
    result: jsonResult<string>('done', 'always "done"', { type: 'string' }),
    handler: async () => {
      started++;
      await new Promise<void>((resolve) => running.push(resolve));
      return 'done';
    },
  });
  return {
    method,
    started: () => started,
    finishAll: () => {
      for (const finish of running.splice(0)) finish();
    },
  };
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('expensive calls at once', () => {
  test('over the total, a call waits its turn, then is refused with -32005 naming the key', async () => {
    const gated = gatedMethod();
    const s = await start({ maxConcurrentExpensiveCalls: 2, expensiveCallQueueMs: 300 }, [...allMethods, gated.method]);
    try {
      const call = () => post(s.url, rpc('Ledger.TestExpensive', []));
      const first = [call(), call()];
      await waitUntil(() => gated.started() === 2);
      const started = performance.now();
      const third = JSON.parse((await call()).text);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      expect(third.error).toEqual({
        code: -32005,
        message:
          "too many expensive calls at once: 'TestExpensive' found the 2 in total taken for 300 ms (raise API.MaxConcurrentExpensiveCalls in config.toml, or send fewer at a time)",
      });
      expect(gated.started()).toBe(2);
      // Cheap calls are not held up meanwhile.
      expect(JSON.parse((await post(s.url, rpc('Ledger.ChainHead', []))).text).result).toBeDefined();
      // A waiting call runs as soon as a turn frees up.
      const fourth = call();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(gated.started()).toBe(2);
      gated.finishAll();
      for (const reply of await Promise.all(first)) expect(JSON.parse(reply.text).result).toBe('done');
      await waitUntil(() => gated.started() === 3);
      gated.finishAll();
      expect(JSON.parse((await fourth).text).result).toBe('done');
    } finally {
      gated.finishAll();
      await s.close();
    }
  });

  test('over the per-connection limit, calls pipelined on one connection wait for each other', async () => {
    const gated = gatedMethod();
    const s = await start(
      { maxConcurrentExpensiveCalls: 4, maxConcurrentExpensiveCallsPerConnection: 1, expensiveCallQueueMs: 300 },
      [...allMethods, gated.method],
    );
    try {
      const body = JSON.stringify(rpc('Ledger.TestExpensive', []));
      const one = `POST /rpc/v1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const answers = rawHttpAll(s.server.port, `${one}${one}`, 2);
      await waitUntil(() => gated.started() === 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The second call on the connection waited its 300 ms and was refused; the first still runs.
      expect(gated.started()).toBe(1);
      gated.finishAll();
      const [first, second] = await answers;
      expect(JSON.parse(first as string).result).toBe('done');
      expect(JSON.parse(second as string).error.message).toContain(
        'found the 1 per connection taken for 300 ms (raise API.MaxConcurrentExpensiveCallsPerConnection',
      );
    } finally {
      gated.finishAll();
      await s.close();
    }
  });

  test('StateCompute, StateReplay, StateSearchMsg, gas estimation and MinerGetBaseInfo are declared expensive', () => {
    const expensive = new Set(allMethods.filter((m) => m.expensive).map((m) => m.name));
    for (const name of [
      'StateCompute',
      'StateReplay',
      'StateSearchMsg',
      'StateSearchMsgLimited',
      'StateGetReceipt',
      'GasEstimateMessageGas',
      'GasEstimateGasLimit',
      'GasEstimateGasPremium',
      'MinerGetBaseInfo',
      'MinerCreateBlock',
      'MpoolSelect',
    ]) {
      expect(expensive).toContain(name);
    }
    expect(expensive).not.toContain('ChainHead');
  });
});

describe('answer size', () => {
  test('an answer over the limit is -32005 naming the key; the node keeps answering', async () => {
    const s = await start({ maxResponseBytes: 4096 });
    try {
      const included = await mineTransfer(s.t);
      const compute = rpc('Ledger.StateCompute', [1, [], tipSetKeyToLotusJson(included.key)], 7);
      const reply = JSON.parse((await post(s.url, compute)).text);
      expect(reply).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32005,
          message:
            'the answer exceeds the answer limit of 4096 bytes (raise API.MaxResponseSize in config.toml, or ask for less)',
        },
      });
      expect(JSON.parse((await post(s.url, rpc('Ledger.ChainHead', []))).text).result).toBeDefined();
    } finally {
      await s.close();
    }
  });

  test('a batch stops running once its answers pass the limit; each call left gets the error', async () => {
    const s = await start({ maxResponseBytes: 64 * 1024 });
    try {
      const included = await mineTransfer(s.t);
      const single = (await post(s.url, rpc('Ledger.StateCompute', [1, [], tipSetKeyToLotusJson(included.key)]))).text;
      const perAnswer = Buffer.byteLength(single);
      const fits = Math.floor((64 * 1024) / (perAnswer + 1));
      expect(fits).toBeGreaterThan(1);
      expect(fits).toBeLessThan(50);
      const batch = Array.from({ length: 50 }, (_, i) =>
        rpc('Ledger.StateCompute', [1, [], tipSetKeyToLotusJson(included.key)], i),
      );
      const reply = await post(s.url, batch);
      const answers = JSON.parse(reply.text) as Json[];
      expect(answers.map((a) => a.id)).toEqual(batch.map((r) => r.id));
      const answered = answers.filter((a) => a.result !== undefined);
      // The answers sent hold within the limit; the errors of the calls left come on top.
      expect(Buffer.byteLength(JSON.stringify(answered))).toBeLessThanOrEqual(64 * 1024);
      const refused = answers.filter((a) => a.error !== undefined);
      expect(answers.filter((a) => a.result !== undefined).length).toBeGreaterThanOrEqual(fits - 1);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]?.error).toEqual({
        code: -32005,
        message: expect.stringMatching(
          /^the answer to call \d+ of the batch exceeds the answer limit of 65536 bytes \(raise API.MaxResponseSize/,
        ),
      });
      // Every call after the first refused one is refused too, without running.
      const firstRefused = answers.findIndex((a) => a.error !== undefined);
      expect(answers.slice(firstRefused).every((a) => a.error?.code === -32005)).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('long calls end when nobody waits for them', () => {
  /** How long StateCompute takes on `count` extra messages here. */
  /** How long StateCompute takes on `count` extra messages here, up to its answer's first bytes. */
  function computeMs(s: Setup, count: number): Promise<number> {
    return answerStartMs(s.url, rpc('Ledger.StateCompute', [3, transfers(count), null]));
  }

  test('a StateCompute whose client hangs up stops, and frees its turn', async () => {
    const s = await start({ maxConcurrentExpensiveCalls: 1 });
    try {
      await mineTransfer(s.t);
      const count = 10_000;
      await computeMs(s, count); // warm-up: the measured run below is the one to compare with
      const fullMs = await computeMs(s, count);
      expect(fullMs).toBeGreaterThan(1000);
      const started = performance.now();
      const client = request(s.url, { method: 'POST', headers: { 'content-type': 'application/json' } });
      client.on('error', () => undefined);
      client.end(JSON.stringify(rpc('Ledger.StateCompute', [3, transfers(count), null])));
      await new Promise((resolve) => setTimeout(resolve, 300));
      client.destroy();
      // With one expensive call at a time, a short one gets its turn only when the long one ended:
      // long before the long one would have finished, counted from when it was sent.
      const short = JSON.parse((await post(s.url, rpc('Ledger.StateCompute', [3, transfers(1), null]))).text);
      expect(short.result.Trace.length).toBeGreaterThan(1);
      expect(performance.now() - started).toBeLessThan(fullMs * 0.6);
    } finally {
      await s.close();
    }
  }, 60_000);

  test('a batch whose client hangs up runs none of its calls left', async () => {
    const gated = gatedMethod();
    const s = await start({}, [...allMethods, gated.method]);
    try {
      const client = request(s.url, { method: 'POST', headers: { 'content-type': 'application/json' } });
      client.on('error', () => undefined);
      client.end(JSON.stringify([1, 2, 3].map((id) => rpc('Ledger.TestExpensive', [], id))));
      await waitUntil(() => gated.started() === 1);
      client.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      gated.finishAll();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(gated.started()).toBe(1);
    } finally {
      gated.finishAll();
      await s.close();
    }
  });

  test('closing the server aborts a running StateCompute instead of waiting for it', async () => {
    const s = await start();
    try {
      await mineTransfer(s.t);
      const count = 10_000;
      await computeMs(s, count); // warm-up: the measured run below is the one to compare with
      const fullMs = await computeMs(s, count);
      const started = performance.now();
      const pending = post(s.url, rpc('Ledger.StateCompute', [3, transfers(count), null]));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await s.server.close();
      // Closed long before the call would have finished, counted from when it was sent.
      expect(performance.now() - started).toBeLessThan(fullMs * 0.6);
      // The call answers that it was aborted, and the keep-alive connection is closed with it.
      const reply = await pending;
      expect(JSON.parse(reply.text).error).toEqual({ code: 1, message: 'aborted: the node is stopping' });
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe('what the HTTP layer refuses is a JSON-RPC error body with its status', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await start({ maxRequestBytes: 4096 });
  });
  afterAll(() => s.close());

  function expectErrorBody(text: string, code: number, message: string | RegExp) {
    const body = JSON.parse(text);
    expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } });
    expect(body.error.message).toMatch(message);
  }

  test('404 for a path that is no API', async () => {
    const reply = await post(s.url.replace('/rpc/v1', '/rpc/v7'), rpc('Ledger.Version', []));
    expect(reply.status).toBe(404);
    expect(reply.contentType).toContain('application/json');
    expectErrorBody(reply.text, -32600, 'no API at POST /rpc/v7 (POST JSON-RPC to /rpc/v0 or /rpc/v1)');
    const get = await fetch(s.url);
    expect(get.status).toBe(404);
    expectErrorBody(await get.text(), -32600, 'no API at GET /rpc/v1');
  });

  test('413 for a body over MaxRequestSize', async () => {
    const reply = await post(s.url, rpc('Ledger.WalletValidateAddress', ['x'.repeat(5000)]));
    expect(reply.status).toBe(413);
    expectErrorBody(reply.text, -32700, 'request bigger than maximum 4096 allowed (raise API.MaxRequestSize');
  });

  test('a body of any content type is read as JSON, within the same size limit (413)', async () => {
    const type = { 'content-type': 'application/x-www-form-urlencoded' };
    const reply = await post(s.url, rpc('Ledger.Version', []), type);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).result).toBeDefined();
    const big = await post(s.url, rpc('Ledger.WalletValidateAddress', ['x'.repeat(5000)]), type);
    expect(big.status).toBe(413);
  });

  test('a POST without a content type is read as JSON, as Lotus reads it', async () => {
    const body = JSON.stringify(rpc('Ledger.Version', []));
    const raw = await rawHttp(
      s.server.port,
      `POST /rpc/v1 HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(raw.status).toBe(200);
    expect(JSON.parse(raw.body).result.Version).toBe('0.1.0+devnet');
  });

  test('400 for a body that is no JSON is answered -32700 (HTTP 200, as JSON-RPC errors are)', async () => {
    const reply = await post(s.url, '{"jsonrpc":');
    expect(reply.status).toBe(200);
    expectErrorBody(reply.text, -32700, 'Parse error');
  });

  test('431 for headers over the HTTP limit, 400 for a malformed request', async () => {
    const big = await rawHttp(
      s.server.port,
      `POST /rpc/v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect(big.status).toBe(431);
    expect(big.headers).toContain('content-type: application/json');
    expectErrorBody(big.body, -32600, 'HTTP headers too large');
    const malformed = await rawHttp(s.server.port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(malformed.status).toBe(400);
    expectErrorBody(malformed.body, -32600, /malformed HTTP request/);
    // And the server still answers.
    expect(JSON.parse((await post(s.url, rpc('Ledger.Version', []))).text).result).toBeDefined();
  });
});

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function rawHttp(port: number, text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const split = answer.indexOf('\r\n\r\n');
      const head = answer.slice(0, split);
      let body = answer.slice(split + 4);
      if (/transfer-encoding: chunked/i.test(head))
        body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
    });
    socket.end(text);
  });
}

/** Sends raw bytes on one connection and collects `count` answer bodies (Content-Length framed). */
function rawHttpAll(port: number, text: string, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = '';
    const bodies: string[] = [];
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        const split = buffer.indexOf('\r\n\r\n');
        if (split < 0) break;
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, split))?.[1] ?? 0);
        if (buffer.length < split + 4 + length) break;
        bodies.push(buffer.slice(split + 4, split + 4 + length));
        buffer = buffer.slice(split + 4 + length);
      }
      if (bodies.length >= count) {
        socket.destroy();
        resolve(bodies);
      }
    });
    socket.on('error', reject);
    socket.write(text);
  });
}
