/**
 * A fork between two partitioned miners (issue 9): a genesis with miners t01000 and t01001, each
 * with half the power; node A mines only with t01000 and node B only with t01001, unconnected, on
 * their own heads (real elections and winning PoSt), each spending the same sender's nonce 0
 * differently. Rejoined over libp2p, both converge on the heavier chain: the lighter node's head
 * changes report the revert of its own tipsets (newest first) and the apply of the winner's
 * (oldest first), its state becomes the winner's and its own spend leaves the chain; the winner's
 * head never moves back. A WebSocket client following the lighter node's ChainNotify (go-jsonrpc's
 * channel protocol, as a Lotus tool follows a node) sees the same revert/apply pair. A block mined
 * afterwards reaches the other node by gossip.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';

import { type HeadChange, tipSetWeight } from '../../src/chain/index.js';
import { blake2b256 } from '../../src/crypto/index.js';
import { generateJwtSecret, RpcServer, startingNodeInfo, TokenAuthority } from '../../src/rpc/index.js';
import { WebSocketRpcClient } from '../../src/rpc/ws-client.js';
import { SyncStage } from '../../src/sync/index.js';
import { type Address, type SignedMessage, signedMessageCid, type TipSet } from '../../src/types/index.js';
import { compareBytes } from '../../src/utils/bytes.js';
import { Keystore, Wallet } from '../../src/wallet/index.js';
import { FIL, MINER, PARAMS } from '../helpers/genesis.js';
import { alice, MINER2, type MiningChain, miningChain, signMessage } from '../helpers/mining-chain.js';
import { extend, mine, type SyncNode, SyncNodes, until } from '../helpers/sync-nodes.js';

const TIMEOUT_MS = 10 * 60_000;

let fixture: MiningChain | undefined;
let nodes: SyncNodes | undefined;

afterAll(async () => {
  await nodes?.close();
  await fixture?.remove();
});

/** `count` tipsets mined by `miner` alone on the node's own head; the first carries `spend`. */
async function mineAlone(node: SyncNode, miner: Address, count: number, spend: SignedMessage): Promise<TipSet[]> {
  const fork: TipSet[] = [];
  let base = node.chain.head();
  for (let i = 0; i < count; i++) {
    const { block } = await mine(fixture!, node, base, i === 0 ? [spend] : [], miner);
    base = await extend(node, block);
    fork.push(base);
  }
  expect(node.chain.head().key.equals(base.key)).toBe(true);
  return fork;
}

const keysOf = (tipSets: readonly TipSet[]) => tipSets.map((t) => t.key.toString());

test(
  'two partitioned miners rejoin and converge on the heavier chain; the lighter node reverts its fork',
  async () => {
    fixture = await miningChain({ miners: 2 });
    nodes = new SyncNodes(fixture);
    const a = await nodes.node('fork-a');
    const b = await nodes.node('fork-b');

    // The partition: A and B are not connected. The same nonce of alice is spent on each side.
    const spendA = await signMessage(alice.address, { nonce: 0n, value: 1n * FIL });
    const spendB = await signMessage(alice.address, { nonce: 0n, value: 2n * FIL });
    const forkA = await mineAlone(a, MINER, 3, spendA);
    const forkB = await mineAlone(b, MINER2, 2, spendB);
    expect(forkA.every((t) => t.blocks.every((h) => h.miner.equals(MINER)))).toBe(true);
    expect(forkB.every((t) => t.blocks.every((h) => h.miner.equals(MINER2)))).toBe(true);
    const [stateA, stateB] = await Promise.all([a.states.stateOf(a.chain.head()), b.states.stateOf(b.chain.head())]);
    expect(stateA.stateRoot.equals(stateB.stateRoot)).toBe(false);

    // The expected winner from the weights alone (filecoin-project/lotus
    // `chain/consensus/filcns/weight.go`), ties to the smaller ticket.
    const headA = a.chain.head();
    const headB = b.chain.head();
    const weightA = a.chain.headWeight();
    const weightB = b.chain.headWeight();
    expect(weightA).toBe(tipSetWeight(a.chain.blockstore, headA, PARAMS));
    expect(weightB).toBe(tipSetWeight(b.chain.blockstore, headB, PARAMS));
    const aWins =
      weightA !== weightB
        ? weightA > weightB
        : compareBytes(blake2b256(headA.minTicket.vrfProof), blake2b256(headB.minTicket.vrfProof)) < 0;
    const [winner, loser] = aWins ? [a, b] : [b, a];
    const [winnerFork, loserFork] = aWins ? [forkA, forkB] : [forkB, forkA];
    const [winnerSpend, loserSpend] = aWins ? [spendA, spendB] : [spendB, spendA];
    const winnerHead = winner.chain.head();
    console.info(
      `fork: A (t01000) ${forkA.length} tipsets to height ${headA.height}, weight ${weightA}; ` +
        `B (t01001) ${forkB.length} tipsets to height ${headB.height}, weight ${weightB}; ${aWins ? 'A' : 'B'} is heavier`,
    );

    const changes = new Map<SyncNode, HeadChange[]>([
      [a, []],
      [b, []],
    ]);
    for (const node of [a, b]) node.chain.subscribeHeadChanges((change) => void changes.get(node)!.push(change));
    // The lighter node's API, followed over WebSocket from here on.
    const keystore = mkdtempSync(join(tmpdir(), 'ledger-fork-keystore-'));
    const api = await RpcServer.start({
      context: {
        node: startingNodeInfo('0.1.0+devnet', 4),
        wallet: new Wallet(new Keystore(join(keystore, 'keystore'))),
        tokens: new TokenAuthority(generateJwtSecret()),
        chain: { store: loser.chain, states: loser.states, params: PARAMS, networkName: 'ledger-test' },
      },
      logger: pino({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
    });
    const client = await WebSocketRpcClient.connect(`ws://127.0.0.1:${api.port}/rpc/v1`);
    const notifications = (await client.subscribe('Filecoin.ChainNotify'))[Symbol.asyncIterator]();
    const notified = async () => (await notifications.next()).value as { Type: string; Val: { Cids: unknown[] } }[];
    expect((await notified()).map((c) => c.Type)).toEqual(['current']);

    // Rejoin: hello goes both ways; the lighter node syncs the heavier chain.
    const started = Date.now();
    await a.network.connect(b.network.listenAddresses()[0]!);
    await until(() => a.chain.head().key.equals(winnerHead.key) && b.chain.head().key.equals(winnerHead.key));
    await Promise.all([a.sync.idle(), b.sync.idle()]);
    await Promise.all([a.chain.settled(), b.chain.settled()]);
    console.info(`fork: converged in ${Date.now() - started} ms`);
    expect(a.chain.head().key.equals(b.chain.head().key)).toBe(true);
    expect(loser.chain.headWeight()).toBe(winner.chain.headWeight());
    const workers = loser.sync.state().ActiveSyncs;
    expect(workers[workers.length - 1]?.Stage).toBe(SyncStage.Complete);
    expect(workers[workers.length - 1]?.Target?.Height).toBe(Number(winnerHead.height));

    // The loser: one change takes its whole fork off, newest first; the winner's tipsets go on, oldest first.
    const loserChanges = changes.get(loser)!;
    console.info(
      `fork: loser's head changes ${JSON.stringify(
        loserChanges.map((c) => ({
          revert: c.revert.map((t) => Number(t.height)),
          apply: c.apply.map((t) => Number(t.height)),
        })),
      )}`,
    );
    expect(keysOf(loserChanges[0]!.revert)).toEqual(keysOf([...loserFork].reverse()));
    expect(loserChanges.slice(1).every((c) => c.revert.length === 0)).toBe(true);
    expect(keysOf(loserChanges.flatMap((c) => c.apply))).toEqual(keysOf(winnerFork));
    // The same changes over WebSocket, one notification per head change, tipsets as Lotus JSON.
    const cidsOf = (tipSets: readonly TipSet[]) => tipSets.map((t) => t.cids.map((cid) => ({ '/': cid.toString() })));
    const overWebSocket = [];
    for (const change of loserChanges) {
      overWebSocket.push(await notified());
      expect(overWebSocket.at(-1)!.map((c) => c.Type)).toEqual([
        ...change.revert.map(() => 'revert'),
        ...change.apply.map(() => 'apply'),
      ]);
    }
    expect(overWebSocket[0]!.filter((c) => c.Type === 'revert').map((c) => c.Val.Cids)).toEqual(
      cidsOf([...loserFork].reverse()),
    );
    expect(
      overWebSocket
        .flat()
        .filter((c) => c.Type === 'apply')
        .map((c) => c.Val.Cids),
    ).toEqual(cidsOf(winnerFork));
    await client.close();
    await api.close();
    rmSync(keystore, { recursive: true, force: true });
    // The winner's head never moved.
    expect(changes.get(winner)).toEqual([]);
    expect(winner.chain.head().key.equals(winnerHead.key)).toBe(true);

    // Same state; the loser's spend is gone from its chain, the winner's is on both.
    const [loserState, winnerState] = await Promise.all([
      loser.states.stateOf(loser.chain.head()),
      winner.states.stateOf(winnerHead),
    ]);
    expect(loserState.stateRoot.equals(winnerState.stateRoot)).toBe(true);
    expect(loser.chain.findMessageInclusion(signedMessageCid(loserSpend))).toBeUndefined();
    expect(winner.chain.findMessageInclusion(signedMessageCid(loserSpend))).toBeUndefined();
    const included = loser.chain.findMessageInclusion(signedMessageCid(winnerSpend));
    expect(included).toBeDefined();
    expect(winner.chain.findMessageInclusion(signedMessageCid(winnerSpend))).toEqual(included);

    // The joined network carries on: the loser's miner builds on the common head; gossip takes it over.
    const next = await mine(fixture, loser, loser.chain.head(), [], loser === a ? MINER : MINER2);
    const nextTipSet = await extend(loser, next.block);
    await until(() => loser.network.host.services.pubsub.getSubscribers(loser.network.blocksTopic).length > 0);
    await loser.network.publishBlock(next.msg);
    await until(() => winner.chain.head().key.equals(nextTipSet.key));
    await winner.chain.settled();
    expect(keysOf(changes.get(winner)!.flatMap((c) => c.apply))).toEqual(keysOf([nextTipSet]));
    expect(changes.get(winner)!.every((c) => c.revert.length === 0)).toBe(true);
  },
  TIMEOUT_MS,
);
