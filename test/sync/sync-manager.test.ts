/**
 * The sync manager's refusal path with real parts: a peer's chain (hand-made, unsigned blocks on
 * a real genesis and real parent states) is fetched through real chain-exchange encoding and
 * checked by the real consensus validator, which refuses it. The blocks go to the bad-block cache
 * (descendants as "linked to a bad block"), the peer is penalised, the worker reports the error,
 * the head stays, and a later announcement of the same chain is dropped at once.
 */
import pino from 'pino';
import { LocalBeacon } from '../../src/beacon/index.js';
import { BlockValidator } from '../../src/consensus/index.js';
import { ChainExchangeClient, encodeExchangeResponse, PeerScores, serveExchangeBytes } from '../../src/net/index.js';
import { BlockIntake, SyncManager, SyncStage } from '../../src/sync/index.js';
import type { TipSet } from '../../src/types/index.js';
import { GENESIS_TIMESTAMP, PARAMS } from '../helpers/genesis.js';
import { TestChain } from '../helpers/test-chain.js';

const logger = pino({ level: 'silent' });

test('an invalid chain is refused, cached as bad, and its peers penalised', async () => {
  const source = TestChain.create();
  let head: TipSet = source.chain.head();
  for (const ticket of ['a', 'b', 'c']) head = (await source.add(head, [{ ticket }])).tipSet;

  const follower = TestChain.create();
  expect(follower.chain.genesis.key.equals(source.chain.genesis.key)).toBe(true);
  const beacon = LocalBeacon.fromSeed(
    new TextEncoder().encode('sync-manager-test'),
    GENESIS_TIMESTAMP,
    PARAMS.blockDelaySecs,
  );
  const validator = new BlockValidator({ chain: follower.chain, states: follower.states, beacon, params: PARAMS });
  // The peer's answers are the real server's, through the real codecs (no network needed here).
  const exchange = new ChainExchangeClient(async (_peer, request) =>
    encodeExchangeResponse(serveExchangeBytes(source.chain, request)),
  );
  const scores = new PeerScores();
  const sync = new SyncManager({
    chain: follower.chain,
    intake: new BlockIntake({ chain: follower.chain, validator }),
    exchange,
    params: PARAMS,
    logger,
    penalizer: scores,
  });

  expect(sync.informNewHead('peer-a', head)).toBe(true);
  expect(() => sync.requireSynced('MpoolPushMessage')).toThrow(/MpoolPushMessage: the node is not synced yet/);
  await sync.idle();

  const [worker] = sync.state().ActiveSyncs;
  expect(worker?.Stage).toBe(SyncStage.Errored);
  expect(worker?.Message).toMatch(/is invalid/);
  expect(worker?.Target?.Height).toBe(3);
  expect(follower.chain.head().key.equals(follower.chain.genesis.key)).toBe(true);

  const [first, second, third] = [1n, 2n, 3n].map((h) => source.chain.getTipSetByHeight(h, head, true).cids[0]!);
  expect(sync.badBlocks.describe(first!)).toMatch(/is invalid/);
  expect(sync.badBlocks.describe(third!)).toMatch(/linked to a bad block \(caused by: /);
  expect(sync.badBlocks.has(second!)).toBe(true);
  expect(scores.score('peer-a')).toBeLessThanOrEqual(-100);
  expect(scores.isBanned('peer-a')).toBe(true);
  expect(sync.isSynced()).toBe(true);

  // The same chain from another peer is dropped without fetching anything.
  expect(sync.informNewHead('peer-b', head)).toBe(false);
  expect(scores.penalties('peer-b')[0]?.reason).toMatch(/linked to bad block/);
  expect(sync.state().ActiveSyncs).toHaveLength(1);
  await follower.chain.settled();
  await source.chain.settled();
  follower.db.close();
  source.db.close();
});
