/**
 * JSON-RPC over WebSocket with go-jsonrpc's channel protocol, below the network: a real server
 * over a real chain store (test/helpers/chain-server.ts) whose reorgs the test forces, talked to
 * by a client written from the protocol's description (ws-client.ts). Calls and their ids,
 * ChainNotify's order on a reorg, cancellation, disconnects (1,000 of them: no subscription is
 * left, RSS printed), slow readers, keepalive, limits, and channels over HTTP.
 */
import { channelResult } from '../../src/rpc/channel.js';
import { allMethods, declareMethod } from '../../src/rpc/index.js';
import { jsonResult } from '../../src/rpc/results.js';
import type { TipSet } from '../../src/types/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { call, post, startTestServer } from './harness.js';
import { GoJsonRpcClient } from './ws-client.js';

interface HeadChangeJson {
  Type: string;
  Val: { Cids: Array<{ '/': string }>; Height: number };
}

const changeOf = (type: string, tipSet: TipSet) => ({
  Type: type,
  Height: Number(tipSet.height),
  Cids: tipSet.cids.map((cid) => cid.toString()),
});
const summary = (changes: unknown) =>
  (changes as HeadChangeJson[]).map(({ Type, Val }) => ({
    Type,
    Height: Val.Height,
    Cids: Val.Cids.map((cid) => cid['/']),
  }));

/** A channel method for the slow-reader test: 256 KiB values every few ms until cancelled. */
const flood = declareMethod({
  name: 'TestFlood',
  description: 'test only',
  permission: 'read',
  params: [],
  result: channelResult(jsonResult<string>('chunk', 'a chunk', { type: 'string' }), { buffer: 4 }),
  handler: () => (sink) => {
    const chunk = 'x'.repeat(256 * 1024);
    floods++;
    const timer = setInterval(() => sink.send(chunk), 2);
    sink.signal.addEventListener('abort', () => {
      floods--;
      clearInterval(timer);
    });
  },
});

/** A channel method whose producer sends 5 values at once, into a buffer of 2. */
const burst = declareMethod({
  name: 'TestBurst',
  description: 'test only',
  permission: 'read',
  params: [],
  result: channelResult(jsonResult<number>('n', 'a number', { type: 'integer' }), { buffer: 2 }),
  handler: () => (sink) => {
    for (let n = 1; n <= 5; n++) sink.send(n);
  },
});

let s: ChainServer;
/** TestFlood producers running now. */
let floods = 0;
/** Head-change subscriptions of the chain store open now (counted around the real store's method). */
let storeSubscriptions = 0;

beforeAll(async () => {
  s = await startChainServer({
    methods: [...allMethods, flood, burst],
    webSocket: { maxChannelsPerConnection: 50 },
  });
  const subscribe = s.t.chain.subscribeHeadChanges.bind(s.t.chain);
  s.t.chain.subscribeHeadChanges = (listener) => {
    storeSubscriptions++;
    const unsubscribe = subscribe(listener);
    return () => {
      storeSubscriptions--;
      unsubscribe();
    };
  };
});
afterAll(() => s.close());

async function waitUntil(done: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('calls', () => {
  test('v0 and v1 answer as over HTTP, ids echoed as sent, meta accepted, notifications unanswered', async () => {
    for (const [apiVersion, packed] of [
      [0, 66816],
      [1, 131840],
    ] as const) {
      const client = await GoJsonRpcClient.connect(s.url(apiVersion));
      expect(await client.call('Filecoin.Version')).toMatchObject({ APIVersion: packed, Agent: 'ledger' });
      expect(await client.exchange({ jsonrpc: '2.0', id: 0, method: 'Ledger.Version', params: [] })).toMatchObject({
        id: 0,
        jsonrpc: '2.0',
        result: { APIVersion: packed },
      });
      // A notification runs but gets nothing: the next frame answers the call after it.
      client.sendRaw({ jsonrpc: '2.0', method: 'Ledger.Version', params: [] });
      expect(await client.exchange({ jsonrpc: '2.0', id: 'x', method: 'Ledger.ChainHead', params: [] })).toMatchObject({
        id: 'x',
        result: { Height: Number(s.t.chain.head().height) },
      });
      await client.close();
      expect(client.violations).toEqual([]);
    }
  });

  test('errors are those of HTTP POST, a parse error gets id null, a batch is answered as a batch', async () => {
    const client = await GoJsonRpcClient.connect(s.url());
    const viaHttp = await call(s.url(), 'Filecoin.ChainGetTipSetByHeight', [1]);
    await expect(client.call('Filecoin.ChainGetTipSetByHeight', [1])).rejects.toMatchObject({ error: viaHttp.error });
    expect(viaHttp.error?.message).toMatch(/^wrong param count \(method 'Filecoin.ChainGetTipSetByHeight'\): 1 != 2/);
    await expect(client.call('Filecoin.Nope')).rejects.toMatchObject({ error: { code: -32601 } });
    expect(await client.exchange('{"jsonrpc":"2.0","id":')).toEqual({
      error: { code: -32700, message: 'Parse error' },
      id: null,
      jsonrpc: '2.0',
    });
    const batch = await client.exchange([
      { jsonrpc: '2.0', id: 1, method: 'Ledger.Version', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'Ledger.Nope', params: [] },
    ]);
    expect(batch).toEqual([
      expect.objectContaining({ id: 1, result: expect.any(Object) }),
      expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32601 }) }),
    ]);
    await client.close();
  });

  test('a channel method over HTTP POST is refused as go-jsonrpc refuses it, nothing subscribed', async () => {
    const before = storeSubscriptions;
    const reply = await call(s.url(), 'Filecoin.ChainNotify', []);
    expect(reply.error).toEqual({
      code: -32601,
      message: expect.stringMatching(
        /^method 'Filecoin.ChainNotify' not supported in this mode \(no out channel support\)/,
      ),
    });
    expect(storeSubscriptions).toBe(before);
  });

  test('HTTP POST reads the body as JSON whatever the Content-Type, as go-jsonrpc does (curl -d)', async () => {
    const reply = await post(
      s.url(),
      { jsonrpc: '2.0', id: 1, method: 'Ledger.Version', params: [] },
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).result.Agent).toBe('ledger');
  });
});

describe('ChainNotify', () => {
  test('current first, then on a reorg the reverts newest first and the applies oldest first, as Lotus', async () => {
    const { t } = s;
    const base = await t.mine();
    const a1 = await t.mine([{ ticket: 'ws-a1' }]);
    const a2 = await t.mine([{ ticket: 'ws-a2' }]);
    const client = await GoJsonRpcClient.connect(s.url());
    const channel = await client.subscribe('Filecoin.ChainNotify');
    const [current] = await channel.waitForValues(1);
    expect(summary(current)).toEqual([changeOf('current', a2)]);

    // A fork of two-block tipsets from `base` outweighs a1 → a2.
    const b1 = await t.mine([{ ticket: 'ws-b1x' }, { ticket: 'ws-b1y' }], { parent: base, salt: 'b' });
    const b2 = await t.mine([{ ticket: 'ws-b2x' }, { ticket: 'ws-b2y' }], { parent: b1, salt: 'b' });
    expect(t.chain.head().equals(b2)).toBe(true);
    const b3 = await t.mine();
    const [, reorg, extend] = await channel.waitForValues(3);
    // One notification for the whole switch (b1 alone did not outweigh a2, b2 did).
    expect(summary(reorg)).toEqual([
      changeOf('revert', a2),
      changeOf('revert', a1),
      changeOf('apply', b1),
      changeOf('apply', b2),
    ]);
    expect(summary(extend)).toEqual([changeOf('apply', b3)]);
    // The values are Lotus JSON objects, never strings, and carry whole tipsets.
    expect((reorg as HeadChangeJson[])[0]?.Val).toHaveProperty('Blocks');
    await client.close();
    expect(client.violations).toEqual([]);
  });

  test('xrpc.cancel (by request id, with or without "id": null) ends the channel on the server', async () => {
    const client = await GoJsonRpcClient.connect(s.url());
    const before = storeSubscriptions;
    const first = await client.subscribe('Filecoin.ChainNotify');
    const second = await client.subscribe('Filecoin.ChainNotify');
    await first.waitForValues(1);
    expect(storeSubscriptions).toBe(before + 2);
    expect(s.server.webSockets.channels).toBe(2);

    first.cancel();
    await first.waitForClose();
    client.sendRaw({ jsonrpc: '2.0', id: null, method: 'xrpc.cancel', params: [second.requestId] });
    await second.waitForClose();
    expect(storeSubscriptions).toBe(before);
    expect(s.server.webSockets.channels).toBe(0);
    // Closed means closed: a head change now reaches nobody, and the connection still serves calls.
    await s.t.mine();
    expect(await client.call('Filecoin.Version')).toHaveProperty('APIVersion');
    expect(client.frames.filter((f) => (f as { method?: string }).method === 'xrpc.ch.close')).toHaveLength(2);
    // A cancel is never answered, and a client's own xrpc.ch.close is ignored, as go-jsonrpc does.
    const third = await client.subscribe('Filecoin.ChainNotify');
    client.sendRaw({ jsonrpc: '2.0', method: 'xrpc.ch.close', params: [third.channelId] });
    await s.t.mine();
    await third.waitForValues(2);
    await client.close();
    expect(client.violations).toEqual([]);
  });

  test('1,000 connect/subscribe/disconnect cycles leave no subscription and no connection behind', async () => {
    const before = storeSubscriptions;
    const cycles = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const client = await GoJsonRpcClient.connect(s.url());
        const channel = await client.subscribe('Filecoin.ChainNotify');
        await channel.waitForValues(1);
        // Half leave with a close handshake, half vanish.
        await (i % 2 === 0 ? client.close() : client.terminate());
      }
      await waitUntil(() => s.server.webSockets.connections === 0, 'the server to see every client gone');
    };
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    // With --expose-gc (NODE_OPTIONS), the figures are after a full collection.
    const collect = () => (globalThis as { gc?: () => void }).gc?.();
    await cycles(100); // warm-up: code paths compiled, pools allocated
    collect();
    const memoryBefore = process.memoryUsage();
    await cycles(1000);
    collect();
    const memoryAfter = process.memoryUsage();
    console.log(
      `WebSocket leak check, 1,000 connect/subscribe/disconnect cycles: RSS ${mib(memoryBefore.rss)} before, ${mib(memoryAfter.rss)} after; heap used ${mib(memoryBefore.heapUsed)} before, ${mib(memoryAfter.heapUsed)} after; channels left ${s.server.webSockets.channels}, chain store subscriptions left ${storeSubscriptions - before}`,
    );
    expect(s.server.webSockets.channels).toBe(0);
    expect(storeSubscriptions).toBe(before);
    // After a full collection a leak would show: each connection's state, socket and channel hold kilobytes.
    if (typeof (globalThis as { gc?: unknown }).gc === 'function') {
      expect(memoryAfter.heapUsed - memoryBefore.heapUsed).toBeLessThan(8 * 2 ** 20);
    }
  }, 120_000);
});

describe('limits and liveness', () => {
  test('a client that stops reading loses its channel after the declared buffer; its connection keeps serving', async () => {
    const client = await GoJsonRpcClient.connect(s.url());
    const channel = await client.subscribe('Ledger.TestFlood');
    client.socket.pause();
    // The producer is stopped once the buffer is full; what was buffered still goes out, then the close.
    await waitUntil(() => floods === 0, 'the server to stop the producer', 20_000);
    client.socket.resume();
    await channel.waitForClose(20_000);
    expect(channel.values.length).toBeGreaterThan(4);
    expect(s.server.webSockets.channels).toBe(0);
    expect(await client.call('Filecoin.Version')).toHaveProperty('APIVersion');
    await client.close();
    expect(client.violations).toEqual([]);
  });

  test('values past the buffer before the answer is out: the answer first, the buffered values, then the close', async () => {
    const client = await GoJsonRpcClient.connect(s.url());
    const channel = await client.subscribe('Ledger.TestBurst');
    await channel.waitForClose();
    expect(channel.values).toEqual([1, 2]);
    expect(client.violations).toEqual([]);
    await client.close();
  });

  test('channels per connection are limited (-32005); the others keep working', async () => {
    const client = await GoJsonRpcClient.connect(s.url());
    const channels = await Promise.all(Array.from({ length: 50 }, () => client.subscribe('Filecoin.ChainNotify')));
    await expect(client.subscribe('Filecoin.ChainNotify')).rejects.toMatchObject({
      error: { code: -32005, message: expect.stringContaining('too many channels open on this connection (50)') },
    });
    await s.t.mine();
    await Promise.all(channels.map((c) => c.waitForValues(2)));
    await client.close();
  });

  test('pings go out, pongs are not required from clients that ping; a silent client is dropped', async () => {
    const server = await startTestServer({ webSocket: { pingIntervalMs: 50, idleTimeoutMs: 400 } });
    try {
      const answering = await GoJsonRpcClient.connect(server.url());
      let pings = 0;
      answering.socket.on('ping', () => pings++);
      // A Go client answers no ping but pings every 5 s itself: that keeps it too.
      const pinging = await GoJsonRpcClient.connect(server.url(), undefined, { autoPong: false });
      const goPings = setInterval(() => pinging.socket.ping(), 100);
      const silent = await GoJsonRpcClient.connect(server.url(), undefined, { autoPong: false });
      expect(await silent.closed).toBe(1006);
      clearInterval(goPings);
      expect(pings).toBeGreaterThan(3);
      expect(answering.socket.readyState).toBe(answering.socket.OPEN);
      expect(pinging.socket.readyState).toBe(pinging.socket.OPEN);
      await Promise.all([answering.close(), pinging.close()]);
    } finally {
      await server.close();
    }
  });

  test('a message over MaxRequestSize closes the connection with 1009; the server keeps serving', async () => {
    const server = await startTestServer({ maxRequestBytes: 4096 });
    try {
      const client = await GoJsonRpcClient.connect(server.url());
      client.sendRaw({ jsonrpc: '2.0', id: 1, method: 'Ledger.Version', params: ['x'.repeat(5000)] });
      expect(await client.closed).toBe(1009);
      const again = await GoJsonRpcClient.connect(server.url());
      expect(await again.call('Ledger.Version')).toHaveProperty('Agent');
      await again.close();
    } finally {
      await server.close();
    }
  });

  test('Closing: no values, closed when the node stops, then the socket closes with 1001', async () => {
    const server = await startTestServer();
    const client = await GoJsonRpcClient.connect(server.url(0));
    const closing = await client.subscribe('Filecoin.Closing');
    await server.close();
    await closing.waitForClose();
    expect(closing.values).toEqual([]);
    expect(await client.closed).toBe(1001);
    expect(client.violations).toEqual([]);
  });
});
