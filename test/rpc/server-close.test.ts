/**
 * Closing the server waits for every call still running, also one whose client hung up: the node
 * closes its database right after, and a call finishing later (MpoolPushMessage saving a nonce)
 * would find it closed.
 */
import { request } from 'node:http';
import { allMethods, declareMethod } from '../../src/rpc/index.js';
import { jsonResult } from '../../src/rpc/results.js';
import { startTestServer } from './harness.js';

test('close() resolves only after a call whose client went away has finished', async () => {
  let started!: () => void;
  const callStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  let finish!: () => void;
  const events: string[] = [];
  const slow = declareMethod({
    name: 'Slow',
    description: 'returns when the test lets it',
    permission: 'read',
    apiVersions: [1],
    params: [],
    result: jsonResult<string>('done', 'always "done"', { type: 'string' }),
    handler: async () => {
      started();
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      events.push('call finished');
      return 'done';
    },
  });
  const server = await startTestServer({ methods: [...allMethods, slow] });

  // The client sends the call and hangs up while it runs.
  const client = request(server.url(), { method: 'POST', headers: { 'content-type': 'application/json' } });
  client.on('error', () => undefined);
  client.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Ledger.Slow', params: [] }));
  await callStarted;
  client.destroy();

  const closed = server.close().then(() => events.push('server closed'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(events).toEqual([]);
  finish();
  await closed;
  expect(events).toEqual(['call finished', 'server closed']);
});
