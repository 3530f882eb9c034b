import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { MultiaddrConnection } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import { BandwidthCounter, MAX_CLOSED_PEERS } from '../../src/net/bandwidth.js';

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((socket) => socket.on('data', () => undefined).on('error', () => undefined));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as { port: number }).port;
});
afterAll(() => server.close());

/** A real TCP connection to the test server, as the transport hands it to the upgrader. */
async function connection(): Promise<{ socket: Socket; connection: MultiaddrConnection }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const remoteAddr = multiaddr(`/ip4/127.0.0.1/tcp/${port}`);
  return { socket, connection: { socket, remoteAddr } as unknown as MultiaddrConnection };
}

async function sendAndClose(counter: BandwidthCounter, peer: string, bytes: number): Promise<void> {
  const { socket, connection: conn } = await connection();
  counter.track(conn);
  counter.attribute(`/ip4/127.0.0.1/tcp/${port}/p2p/${peer}`, peer);
  socket.end(Buffer.alloc(bytes));
  await once(socket, 'close');
}

test('bytes count per peer; closed peers beyond the bound are forgotten oldest first, the totals keep them', async () => {
  const counter = new BandwidthCounter();
  await sendAndClose(counter, 'peer-a', 100);
  await sendAndClose(counter, 'peer-b', 200);
  expect(counter.statsByPeer().get('peer-a')?.totalOut).toBe(100n);
  expect(counter.statsByPeer().get('peer-b')?.totalOut).toBe(200n);
  // peer-a closes again: it becomes the most recently closed, its bytes add up.
  await sendAndClose(counter, 'peer-a', 50);
  expect(counter.statsByPeer().get('peer-a')?.totalOut).toBe(150n);

  // An open connection of peer-b keeps it even when it is the oldest.
  const open = await connection();
  counter.track(open.connection);
  counter.attribute(`/ip4/127.0.0.1/tcp/${port}`, 'peer-b');
  for (let i = 0; i < MAX_CLOSED_PEERS - 1; i++) await sendAndClose(counter, `peer-${i}`, 1);
  const byPeer = counter.statsByPeer();
  expect(byPeer.has('peer-b')).toBe(true);
  expect(byPeer.has('peer-a')).toBe(false);
  expect(byPeer.has(`peer-${MAX_CLOSED_PEERS - 2}`)).toBe(true);
  expect(byPeer.size).toBe(MAX_CLOSED_PEERS);
  expect(counter.stats().totalOut).toBe(350n + BigInt(MAX_CLOSED_PEERS - 1));
  open.socket.destroy();
}, 120_000);
