/**
 * Turns for expensive calls (src/rpc/expensive-calls.ts): the total and per-connection limits,
 * first come first served, the bounded wait and queue, and leaving the queue on abort.
 */
import { ExpensiveCallGate, type Release } from '../../src/rpc/expensive-calls.js';
import { JsonRpcError } from '../../src/rpc/index.js';
import { rpcLimits } from '../../src/rpc/limits.js';
import { AbortedError } from '../../src/utils/abort.js';

function gate(overrides: Parameters<typeof rpcLimits>[0] = {}) {
  return new ExpensiveCallGate(
    rpcLimits({
      maxConcurrentExpensiveCalls: 2,
      maxConcurrentExpensiveCallsPerConnection: 1,
      expensiveCallQueueMs: 200,
      ...overrides,
    }),
  );
}

const connectionA = {};
const connectionB = {};
const connectionC = {};

test('a call within both limits gets its turn at once; over the per-connection one it waits for its own connection', async () => {
  const g = gate();
  const a1 = g.acquire('StateCompute', connectionA, undefined) as Release;
  expect(typeof a1).toBe('function');
  // A second call on the same connection waits, though a turn is free in total.
  const a2 = g.acquire('StateCompute', connectionA, undefined);
  expect(a2).toBeInstanceOf(Promise);
  // Another connection takes the free turn meanwhile.
  const b1 = g.acquire('StateCompute', connectionB, undefined);
  expect(typeof b1).toBe('function');
  expect(g.running).toBe(2);
  expect(g.waiting).toBe(1);
  a1();
  const a2Release = await a2;
  expect(g.running).toBe(2);
  a2Release();
  (b1 as Release)();
  expect(g.running).toBe(0);
});

test('waiters are served in arrival order; one whose connection is busy does not hold up the others', async () => {
  const g = gate();
  const a = g.acquire('X', connectionA, undefined) as Release;
  const b = g.acquire('X', connectionB, undefined) as Release;
  const order: string[] = [];
  const queued = (connection: object, name: string) =>
    (g.acquire('X', connection, undefined) as Promise<Release>).then((release) => {
      order.push(name);
      return release;
    });
  const a2 = queued(connectionA, 'a2');
  const c1 = queued(connectionC, 'c1');
  // b leaves: a2 is first in line but its connection still runs a; c1 takes the turn.
  b();
  const c1Release = await c1;
  expect(order).toEqual(['c1']);
  a();
  const a2Release = await a2;
  expect(order).toEqual(['c1', 'a2']);
  c1Release();
  a2Release();
  expect(g.running).toBe(0);
});

test('a wait longer than the queue timeout is refused with -32005 naming the limit and its key', async () => {
  const g = gate({ maxConcurrentExpensiveCallsPerConnection: 2 });
  const a = g.acquire('X', connectionA, undefined) as Release;
  const b = g.acquire('X', connectionB, undefined) as Release;
  const started = performance.now();
  const refused = await (g.acquire('StateReplay', connectionC, undefined) as Promise<Release>).catch((e) => e);
  expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  expect(refused).toBeInstanceOf(JsonRpcError);
  expect(refused.rpcCode).toBe(-32005);
  expect(refused.message).toBe(
    "too many expensive calls at once: 'StateReplay' found the 2 in total taken for 200 ms (raise API.MaxConcurrentExpensiveCalls in config.toml, or send fewer at a time)",
  );
  // Over the per-connection limit the message names that one.
  const again = await (g.acquire('X', connectionA, undefined) as Promise<Release>).catch((e) => e);
  expect(again.message).toContain('found the 2 in total taken');
  a();
  const second = g.acquire('X', connectionB, undefined) as Release;
  const third = await (g.acquire('X', connectionB, undefined) as Promise<Release>).catch((e) => e);
  expect(third.message).toContain(
    'found the 2 per connection taken for 200 ms (raise API.MaxConcurrentExpensiveCallsPerConnection',
  );
  b();
  second();
  expect(g.waiting).toBe(0);
});

test('a full queue refuses at once, and an aborted waiter leaves the queue', async () => {
  const g = gate({ maxConcurrentExpensiveCalls: 1, expensiveCallQueueMs: 60_000 });
  const running = g.acquire('X', undefined, undefined) as Release;
  const abort = new AbortController();
  const waiters = Array.from({ length: 16 }, (_, i) =>
    (g.acquire('X', undefined, i === 0 ? abort.signal : undefined) as Promise<Release>).catch((e) => e),
  );
  expect(g.waiting).toBe(16);
  const started = performance.now();
  const refused = await (g.acquire('X', undefined, undefined) as Promise<Release>).catch((e) => e);
  expect(performance.now() - started).toBeLessThan(50);
  expect(refused.message).toContain('and too many calls already waiting');
  abort.abort(new Error('the client went away'));
  const aborted = await waiters[0];
  expect(aborted).toBeInstanceOf(AbortedError);
  expect(aborted.message).toBe('aborted: the client went away');
  expect(g.waiting).toBe(15);
  // The others get their turns one by one as each ends.
  running();
  for (const waiter of waiters.slice(1)) ((await waiter) as Release)();
  expect(g.running).toBe(0);
  expect(g.waiting).toBe(0);
});
