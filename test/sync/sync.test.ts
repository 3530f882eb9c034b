/**
 * Chain sync between real nodes in one process: a producer mines a real chain (winning PoSt over
 * pre-sealed sectors, signed messages); a follower starting from the same genesis catches up over
 * libp2p (hello → chain exchange → full validation tipset by tipset), follows a gossiped block, and
 * refuses a peer that serves an invalid block (a forged signature, a forged winning PoSt, a wrong
 * parent state root) — caching it as bad, penalising and banning the peer, keeping its own head —
 * while a fresh node that met that peer first still completes its sync from the honest one.
 */

import { bls } from '../../src/crypto/index.js';
import { SyncStage } from '../../src/sync/index.js';
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
import { alice, carol, type MiningChain, miningChain, sign, signMessage, worker } from '../helpers/mining-chain.js';
import { extend, mine as mineOn, type SyncNode, SyncNodes, until } from '../helpers/sync-nodes.js';

const SETUP_TIMEOUT_MS = 10 * 60_000;
const CHAIN_LENGTH = 4;

let producer: MiningChain;
let nodes: SyncNodes;

/** A block the producer's miner wins on `base`, mined on the producer node's own store. */
function mine(base: TipSet, messages: SignedMessage[]): Promise<{ block: FullBlock; msg: BlockMsg }> {
  return mineOn(producer, producerNode, base, messages);
}

const node = (name: string): Promise<SyncNode> => nodes.node(name);

let producerNode: SyncNode;
const produced: { block: FullBlock; msg: BlockMsg }[] = [];

beforeAll(async () => {
  producer = await miningChain();
  nodes = new SyncNodes(producer);
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
  await nodes?.close();
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
