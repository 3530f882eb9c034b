/**
 * ChainExport over WebSocket (go-jsonrpc's channel protocol), below the network: a real server over
 * the chain fixture whose head holds ~30 MB of messages, so the CAR takes many values. The bytes
 * streamed are the CAR ChainExportToFile writes for the same tipset, in values of at most 1 MiB
 * ended by "" as Lotus streams them, and `ledger chain export --stream` writes them to a file; a
 * client that stops reading holds the export back, and its cancel ends the export on the server,
 * without the end marker.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { WebSocketRpcClient } from '../../src/rpc/ws-client.js';
import { Address } from '../../src/types/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { withCliOutput } from '../helpers/cli-in-process.js';
import { message } from '../helpers/messages.js';
import { call } from './harness.js';
import { GoJsonRpcClient } from './ws-client.js';

const MIB = 1 << 20;
const NROOTS = 2;

let c: ChainServer;
/** The CAR ChainExportToFile wrote for the head. */
let expected: Buffer;

beforeAll(async () => {
  c = await startChainServer();
  await c.t.mine();
  // Messages of 100 KB in the head (not executed: only the head's parent state is computed).
  const params = new Uint8Array(100_000).fill(7);
  const from = Address.newId(100n);
  const bls = Array.from({ length: 300 }, (_, nonce) => message({ from, to: from, nonce: BigInt(nonce), params }));
  await c.t.mine([{ bls }]);
  const file = join(c.directory, 'head.car');
  const admin = await c.tokens.create(['read', 'write', 'sign', 'admin']);
  const written = await call(c.url(), 'Filecoin.ChainExportToFile', [file, NROOTS, false, null], {
    authorization: `Bearer ${admin}`,
  });
  expect(written.error).toBeUndefined();
  expected = readFileSync(file);
  expect(expected.length).toBeGreaterThan(30_000_000);
}, 120_000);
afterAll(() => c.close());

test('the values are the CAR ChainExportToFile writes, at most 1 MiB each, then "" (read permission, as Lotus)', async () => {
  const client = await WebSocketRpcClient.connect(c.url());
  const channel = await client.subscribe('Filecoin.ChainExport', [NROOTS, false, null]);
  const values: string[] = [];
  for await (const value of channel) values.push(value as string);
  // The end marker, as Lotus sends it (lengths compared: a failure must not print megabytes).
  expect(values.at(-1)?.length).toBe(0);
  const chunks = values.map((value) => Buffer.from(value, 'base64'));
  expect(chunks.length).toBeGreaterThan(30);
  expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(MIB);
  expect(chunks.slice(0, -1).every((chunk) => chunk.length > 0)).toBe(true);
  expect(Buffer.concat(chunks).equals(expected)).toBe(true);
  expect(c.server.webSockets.channels).toBe(0);
  await client.close();
}, 60_000);

test('a client that stops reading holds the export back; its cancel ends it on the server, without the end marker', async () => {
  const client = await GoJsonRpcClient.connect(c.url());
  const channel = await client.subscribe('Filecoin.ChainExport', [NROOTS, false, null]);
  await channel.waitForValues(1);
  client.socket.pause();
  // Paused, the socket's buffers fill and the export waits for room in the channel.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(c.server.webSockets.channels).toBe(1);
  channel.cancel();
  client.socket.resume();
  await channel.waitForClose(20_000);
  expect(c.server.webSockets.channels).toBe(0);
  const received = channel.values.reduce<number>(
    (sum, value) => sum + Buffer.from(value as string, 'base64').length,
    0,
  );
  expect(channel.values.includes('')).toBe(false);
  expect(received).toBeLessThan(expected.length);
  // The connection keeps serving.
  expect(await client.call('Filecoin.ChainHead')).toHaveProperty('Height');
  await client.close();
  expect(client.violations).toEqual([]);
}, 60_000);

test('`ledger chain export --stream` writes the same CAR on the CLI’s machine, as `lotus chain export` does', async () => {
  const file = join(c.directory, 'streamed.car');
  const printed = await withCliOutput(c.url().replace(/\/rpc\/v1$/, ''), async (writes) => {
    await main(['node', 'ledger', 'chain', 'export', '--stream', '--recent-stateroots', String(NROOTS), file]);
    return writes.join('');
  });
  expect(printed).toMatch(/streamed\n$/);
  expect(readFileSync(file).equals(expected)).toBe(true);
  expect(existsSync(`${file}.partial`)).toBe(false);
}, 60_000);

test('bad parameters and an unknown tipset are refused before a channel opens', async () => {
  const client = await GoJsonRpcClient.connect(c.url());
  await expect(client.subscribe('Filecoin.ChainExport', [-1, false, null])).rejects.toMatchObject({
    error: { code: -32602, message: expect.stringContaining('nroots') },
  });
  const unknown = [{ '/': 'bafy2bzacedbaliyx7k3ycbkdaqjxpbtkmvfqmcijqs6njxdvkcgr5zlaxbdvq' }];
  await expect(client.subscribe('Filecoin.ChainExport', [NROOTS, false, unknown])).rejects.toMatchObject({
    error: { code: 1 },
  });
  expect(c.server.webSockets.channels).toBe(0);
  await client.close();
  expect(client.violations).toEqual([]);
});
