/**
 * The client side of bench/rpc.bench.ts, run as its own process so that the node's process only
 * serves. Prints one JSON line on stdout when done.
 *
 *   fanout <ws url> <subscribers> <heads>   subscribers on ChainNotify; for each head height, the
 *                                           wall-clock time (ms) its last subscriber got it
 *   load <http url> <ws|http> <connections> <seconds> <method>
 *                                           calls per second, one call in flight per connection
 *
 * Times are `performance.timeOrigin + performance.now()`: the same clock in every process.
 */
import autocannon from 'autocannon';
import WebSocket from 'ws';

const now = () => performance.timeOrigin + performance.now();

async function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return socket;
}

async function fanout(url: string, subscribers: number, heads: number): Promise<void> {
  /** Per height: how many subscribers got it, and when the last did. */
  const received = new Map<number, { count: number; last: number }>();
  const sockets: WebSocket[] = [];
  let subscribed = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  for (let i = 0; i < subscribers; i++) {
    const socket = await open(url);
    sockets.push(socket);
    socket.on('message', (data) => {
      const at = now();
      const frame = JSON.parse(String(data));
      if (frame.id === 1) {
        subscribed++;
        return;
      }
      if (frame.method !== 'xrpc.ch.val') return;
      for (const change of frame.params[1] as Array<{ Type: string; Val: { Height: number } }>) {
        // `current` is what each subscriber saw when it joined: not a new head.
        if (change.Type !== 'apply' || subscribed < subscribers) continue;
        const height = change.Val.Height;
        const entry = received.get(height) ?? { count: 0, last: 0 };
        entry.count++;
        entry.last = Math.max(entry.last, at);
        received.set(height, entry);
        const complete = [...received.values()].filter((e) => e.count === subscribers).length;
        if (complete >= heads) done();
      }
    });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Filecoin.ChainNotify', params: [] }));
  }
  console.error(`  ${subscribers} subscribers on ChainNotify; waiting for ${heads} heads`);
  await finished;
  const lastByHeight = Object.fromEntries(
    [...received].filter(([, e]) => e.count === subscribers).map(([height, e]) => [height, e.last]),
  );
  process.stdout.write(`${JSON.stringify({ lastByHeight })}\n`);
  for (const socket of sockets) socket.terminate();
}

async function load(url: string, transport: string, connections: number, seconds: number, method: string) {
  if (transport === 'http') {
    const result = await autocannon({
      url,
      method: 'POST',
      connections,
      duration: seconds,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method, params: [], id: 1 }),
    });
    if (result.errors > 0 || result.non2xx > 0) throw new Error(`${method} over HTTP: ${result.errors} errors`);
    process.stdout.write(`${JSON.stringify({ perSecond: result.requests.total / seconds })}\n`);
    return;
  }
  const started = now();
  const answered = await wsLoad(url.replace(/^http/, 'ws'), connections, seconds, method);
  process.stdout.write(`${JSON.stringify({ perSecond: (answered * 1000) / (now() - started) })}\n`);
}

/** Calls `method` over WebSocket for `seconds`, one call in flight per connection; returns how many were answered. */
async function wsLoad(url: string, connections: number, seconds: number, method: string): Promise<number> {
  const sockets = await Promise.all(Array.from({ length: connections }, () => open(url)));
  const body = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method, params: [] });
  let answered = 0;
  const deadline = now() + seconds * 1000;
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve, reject) => {
          let id = 0;
          socket.on('message', (data) => {
            const frame = JSON.parse(String(data));
            if (frame.result === undefined) {
              reject(new Error(`${method} over WebSocket: ${String(data).slice(0, 200)}`));
              return;
            }
            answered++;
            if (now() < deadline) socket.send(body(++id));
            else resolve();
          });
          socket.send(body(++id));
        }),
    ),
  );
  for (const socket of sockets) socket.terminate();
  return answered;
}

const [mode, url, ...args] = process.argv.slice(2);
if (mode === 'fanout') await fanout(url as string, Number(args[0]), Number(args[1]));
else if (mode === 'load')
  await load(url as string, args[0] as string, Number(args[1]), Number(args[2]), args[3] as string);
else throw new Error(`unknown mode ${mode}`);
process.exit(0);
