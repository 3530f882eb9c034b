/**
 * The net block list (NetBlockAdd/Remove/List) kept in the node database: a restart starts from
 * what was blocked, removals are kept too, and a bad entry changes neither the list nor the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { multiaddr } from '@multiformats/multiaddr';
import { LedgerDatabase } from '../../src/db/index.js';
import { PeerBlockList } from '../../src/net/index.js';

const PEER = '12D3KooWRBy97UB99e3J6hiPesre1MZeuNQvfan4gBziswrRJsNK';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-blocklist-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('what NetBlockAdd blocked is still blocked after a restart; removals and refusals are kept as made', () => {
  const path = join(dir, 'chain.db');
  let db = LedgerDatabase.open(path);
  const list = new PeerBlockList(db.netBlocks);
  list.add({ peers: [PEER], ipAddrs: ['10.1.2.3', '2001:DB8::1'], ipSubnets: ['192.168.0.0/16'] });
  list.remove({ peers: [], ipAddrs: ['10.1.2.3'], ipSubnets: [] });
  expect(() => list.add({ peers: [], ipAddrs: ['1.2.3.4', 'not-an-ip'], ipSubnets: [] })).toThrow(
    'error parsing IP address not-an-ip',
  );
  db.close();

  db = LedgerDatabase.open(path);
  const restarted = new PeerBlockList(db.netBlocks);
  expect(restarted.list()).toEqual({ peers: [PEER], ipAddrs: ['2001:db8::1'], ipSubnets: ['192.168.0.0/16'] });
  expect(restarted.hasPeer(PEER)).toBe(true);
  expect(restarted.blocksAddress(multiaddr('/ip4/192.168.7.7/tcp/1'))).toBe(true);
  expect(restarted.blocksIp('10.1.2.3')).toBe(false);
  expect(restarted.blocksIp('1.2.3.4')).toBe(false);
  db.close();
});
