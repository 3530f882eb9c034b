/**
 * Chain sync between real nodes in one process: a producer mines a real chain (winning PoSt over
 * pre-sealed sectors, signed messages); a follower starting from the same genesis catches up over
 * libp2p (hello → chain exchange → full validation tipset by tipset), follows a gossiped block, and
 * refuses a peer that serves an invalid block (a forged signature, a forged winning PoSt, a wrong
 * parent state root) — caching it as bad, penalising and banning the peer, keeping its own head —
 * while a fresh node that met that peer first still completes its sync from the honest one.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { exportGenesisCar } from '../../src/chain/genesis/index.js';
import { ChainStore, TipSetStates } from '../../src/chain/index.js';
import { BlockValidator } from '../../src/consensus/index.js';
import { bls } from '../../src/crypto/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { importCar } from '../../src/ipld/index.js';
import { attemptElection, type BlockTemplate, createBlock } from '../../src/miner/index.js';
import { LedgerNetwork, loadOrCreatePeerKey } from '../../src/net/index.js';
import { connectSyncToNetwork, SyncManager, SyncStage } from '../../src/sync/index.js';
import {
  type BlockHeader,
  type BlockMsg,
  blockCid,
  blockSigningBytes,
  type FullBlock,
  SignatureType,
  type SignedMessage,
  signedMessageCid,
  TipSet,
} from '../../src/types/index.js';
import {
  alice,
  carol,
  fullBlock,
  MINER,
  type MiningChain,
  miningChain,
  sign,
  signMessage,
  worker,
} from '../consensus/mining-chain.js';
import { PARAMS } from '../vm/harness.js';

const logger = pino({ level: 'silent' });
const SETUP_TIMEOUT_MS = 10 * 60_000;
const CHAIN_LENGTH = 4;

let producer: MiningChain;
const cleanup: Array<() => Promise<void> | void> = [];

async function mine(base: TipSet, messages: SignedMessage[]): Promise<{ block: FullBlock; msg: BlockMsg }> {
  // Mining reads the producer node's own store, so every state it needs is executed there.
  const ctx = { ...producer.ctx, chain: producerNode.chain, states: producerNode.states };
  for (let round = base.height + 1n; round < base.height + 20n; round++) {
    const win = await attemptElection(ctx, MINER, base, round, sign);
    if (win === null) continue;
    const template: BlockTemplate = {
      miner: MINER,
      parents: base.key,
      ticket: win.ticket,
      eproof: win.electionProof,
      beaconValues: win.beaconEntries,
      messages,
      epoch: round,
      timestamp: base.timestamp + PARAMS.blockDelaySecs * (round - base.height),
      winningPoStProof: win.winPoStProof,
    };
    const msg = await createBlock(ctx, template, sign);
    return { block: fullBlock(msg, messages), msg };
  }
  throw new Error('the miner won no round in 20');
}

/** Validates a block on the node's chain, stores it and adds its tipset. */
async function extend(target: { chain: ChainStore; validator: BlockValidator }, block: FullBlock): Promise<TipSet> {
  const tipSet = await target.validator.validateTipSet([block]);
  target.chain.putBlock(block);
  target.chain.addTipSet(tipSet);
  return tipSet;
}

/** A node on the producer's genesis: its own SQLite chain store, validator and network. */
async function node(name: string) {
  const db = LedgerDatabase.open(':memory:');
  const car = new PassThrough();
  const exported = exportGenesisCar(producer.chain.blockstore, producer.chain.genesis.cids[0]!, car);
  await importCar(db.blockstore, car);
  await exported;
  const chain = ChainStore.initialize({ db, params: PARAMS }, producer.chain.genesis.cids[0]!);
  const states = new TipSetStates(chain, db);
  const validator = new BlockValidator({ chain, states, beacon: producer.beacon, params: PARAMS });
  const repo = mkdtempSync(join(tmpdir(), `ledger-sync-${name}-`));
  const network = await LedgerNetwork.create({
    chain,
    networkName: 'ledger-test',
    privateKey: await loadOrCreatePeerKey(repo),
    listen: ['/ip4/127.0.0.1/tcp/0'],
    logger,
  });
  const sync = new SyncManager({
    chain,
    validator,
    exchange: network.exchange,
    params: PARAMS,
    logger,
    penalizer: network.scores,
    connectedPeers: () => network.peers().map((p) => p.id),
  });
  connectSyncToNetwork({ network, sync, chain, states, params: PARAMS, logger });
  await network.start();
  cleanup.push(async () => {
    sync.stop();
    await network.stop();
    await chain.settled();
    db.close();
    rmSync(repo, { recursive: true, force: true });
  });
  return { db, chain, states, validator, network, sync };
}

async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let producerNode: Awaited<ReturnType<typeof node>>;
const produced: { block: FullBlock; msg: BlockMsg }[] = [];

beforeAll(async () => {
  producer = await miningChain();
  producerNode = await node('producer');
  let base = producerNode.chain.head();
  for (let i = 0; i < CHAIN_LENGTH; i++) {
    const messages = i % 2 === 0 ? [await signMessage(alice.address, { nonce: BigInt(i / 2) })] : [];
    const mined = await mine(base, messages);
    produced.push(mined);
    base = await extend(producerNode, mined.block);
  }
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
  await producer?.remove();
});

test(
  'a fresh follower catches up over libp2p with full validation, then follows a gossiped block',
  async () => {
    const follower = await node('follower');
    const target = producerNode.chain.head();
    expect(target.height).toBeGreaterThanOrEqual(BigInt(CHAIN_LENGTH));
    await follower.network.connect(producerNode.network.listenAddresses()[0]!);
    await until(() => follower.chain.head().key.equals(target.key));
    await follower.sync.idle();

    const state = follower.sync.state();
    const last = state.ActiveSyncs[state.ActiveSyncs.length - 1]!;
    expect(last.Stage).toBe(SyncStage.Complete);
    expect(last.Height).toBe(Number(target.height));
    expect(last.Target?.Height).toBe(Number(target.height));
    // Base moves up as tipsets are validated: a finished worker shows Height diff 0.
    expect(last.Base?.Height).toBe(Number(target.height));
    expect(state.VMApplied).toBe(Math.ceil(CHAIN_LENGTH / 2));
    // The message the producer mined is in the follower's chain, executed.
    const included = produced[0]!.block.secpkMessages[0]!;
    const cid = signedMessageCid(included);
    expect(follower.chain.findMessageInclusion(cid)).toBeDefined();
    expect(follower.sync.isSynced()).toBe(true);

    // A new block, gossiped: the follower checks it, fetches it whole and adds it.
    const next = await mine(producerNode.chain.head(), []);
    await extend(producerNode, next.block);
    await until(
      () => producerNode.network.host.services.pubsub.getSubscribers(producerNode.network.blocksTopic).length > 0,
    );
    await producerNode.network.publishBlock(next.msg);
    await until(() => follower.chain.head().key.equals(producerNode.chain.head().key));
    expect(follower.chain.head().cids[0]!.equals(blockCid(next.block.header))).toBe(true);
  },
  SETUP_TIMEOUT_MS,
);

/** A node holding the producer's chain plus one forged block on top of it (its head). */
async function evilPeer(forged: FullBlock) {
  const evil = await node('evil');
  let cursor = evil.chain.genesis;
  for (let h = 1n; h <= producerNode.chain.head().height; h++) {
    const tipSet = producerNode.chain.tipSetsAt(h).find((t) => t.parents.equals(cursor.key));
    if (tipSet === undefined) continue;
    for (const header of tipSet.blocks) {
      const { blsMessages, secpMessages } = producerNode.chain.blockMessages(header);
      evil.chain.putBlock({ header, blsMessages, secpkMessages: secpMessages });
    }
    await evil.states.stateOf(cursor); // the weight of a tipset is read from its executed parent state
    evil.chain.addTipSet(tipSet);
    cursor = tipSet;
  }
  evil.chain.putBlock(forged);
  await evil.states.stateOf(cursor);
  evil.chain.addTipSet(TipSet.fromHeaders([forged.header]));
  expect(evil.chain.head().cids[0]!.equals(blockCid(forged.header))).toBe(true);
  return evil;
}

/** The header signed again with the miner's own worker key: only the forged field is wrong. */
async function resigned(header: BlockHeader): Promise<BlockHeader> {
  const unsigned = { ...header, blockSig: null };
  return { ...unsigned, blockSig: await sign(worker.address, blockSigningBytes(unsigned)) };
}

const forgeries: Array<[string, (header: BlockHeader) => Promise<BlockHeader>, RegExp]> = [
  [
    'a block signed with another key',
    async (header) => {
      const unsigned = { ...header, blockSig: null };
      return {
        ...unsigned,
        blockSig: { type: SignatureType.BLS, data: bls.sign(carol.privateKey, blockSigningBytes(unsigned)) },
      };
    },
    /signature does not verify/,
  ],
  [
    'a block with a forged winning PoSt',
    (header) => {
      const [proof] = header.winPoStProof;
      const proofBytes = Uint8Array.from(proof!.proofBytes);
      // Another valid proof's bytes would do too; a bit flipped in the last point is the cheapest forgery.
      proofBytes[proofBytes.length - 1]! ^= 0x01;
      return resigned({ ...header, winPoStProof: [{ ...proof!, proofBytes }] });
    },
    /winning PoSt/,
  ],
  [
    'a block claiming a wrong parent state root',
    // The genesis state: a real state tree, not the one executing the parent gives.
    (header) => resigned({ ...header, parentStateRoot: producerNode.chain.genesis.parentStateRoot }),
    /parent state root did not match/,
  ],
];

describe('a peer serving an invalid block', () => {
  let real: FullBlock;
  beforeAll(async () => {
    real = (await mine(producerNode.chain.head(), [])).block;
  }, SETUP_TIMEOUT_MS);

  test.each(forgeries)(
    '%s: refused, cached as bad, its peer penalised and banned; nodes sync from the honest peer',
    async (_name, forge, reason) => {
      const honestHead = producerNode.chain.head();
      const forged: FullBlock = { ...real, header: await forge(real.header) };
      const forgedCid = blockCid(forged.header);
      const evil = await evilPeer(forged);

      // A synced node keeps its head when the evil peer offers the heavier, invalid chain.
      const synced = await node('synced');
      await synced.network.connect(producerNode.network.listenAddresses()[0]!);
      await until(() => synced.chain.head().key.equals(honestHead.key));
      await synced.sync.idle();
      await synced.network.connect(evil.network.listenAddresses()[0]!);
      await until(() => synced.sync.badBlocks.has(forgedCid));
      await synced.sync.idle();
      expect(synced.sync.badBlocks.describe(forgedCid)).toMatch(reason);
      expect(synced.chain.head().key.equals(honestHead.key)).toBe(true);
      expect(
        synced.network.scores
          .penalties(evil.network.peerId)
          .map((p) => p.reason)
          .join('\n'),
      ).toMatch(/served invalid block/);
      expect(synced.network.scores.isBanned(evil.network.peerId)).toBe(true);
      await until(() => !synced.network.peers().some((p) => p.id === evil.network.peerId));
      const errored = synced.sync.state().ActiveSyncs.find((w) => w.Stage === SyncStage.Errored);
      expect(errored?.Message).toMatch(/invalid/);

      // A fresh node that meets the evil peer first refuses its chain and completes sync from the honest one.
      const fresh = await node('fresh');
      await fresh.network.connect(evil.network.listenAddresses()[0]!);
      await until(() => fresh.sync.badBlocks.has(forgedCid));
      await fresh.network.connect(producerNode.network.listenAddresses()[0]!);
      await until(() => fresh.chain.head().key.equals(honestHead.key));
      await fresh.sync.idle();
      expect(fresh.sync.badBlocks.describe(forgedCid)).toMatch(reason);
      expect(fresh.network.scores.isBanned(evil.network.peerId)).toBe(true);
      const [freshState, honestState] = await Promise.all([
        fresh.states.stateOf(fresh.chain.head()),
        producerNode.states.stateOf(honestHead),
      ]);
      expect(freshState.stateRoot.equals(honestState.stateRoot)).toBe(true);
    },
    SETUP_TIMEOUT_MS,
  );
});
