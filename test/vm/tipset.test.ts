/**
 * Tipset application (filecoin-project/lotus `chain/consensus/compute_state.go`): duplicates across
 * blocks, block rewards for every block, cron for null rounds, the receipts AMT, deterministic
 * roots, and a single write per tipset.
 */
import { type Block, type Blockstore, buildAmt, getBlock, MemoryBlockstore } from '../../src/ipld/index.js';
import { CRON_ACTOR_ID, REWARD_ACTOR_ID } from '../../src/state/index.js';
import { Address, type CID, decodeCbor, messageReceiptToCborNode } from '../../src/types/index.js';
import {
  CronMethod,
  RewardMethod,
  rewardStateCodec,
  selectTipsetMessages,
  TipsetExecutor,
  VmErrorCode,
} from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { FIL, GENESIS_TIMESTAMP, MINER, PARAMS, standardGenesis } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { balanceOf, loadTree } from '../helpers/state.js';

const { alice, bob, carol } = keys;

/** Counts write calls, to show a tipset reaches the store in one putMany. */
class WriteCounter implements Blockstore {
  putManyCalls = 0;
  putCalls = 0;
  constructor(readonly inner: MemoryBlockstore) {}
  get(cid: CID) {
    return this.inner.get(cid);
  }
  has(cid: CID) {
    return this.inner.has(cid);
  }
  put(cid: CID, bytes: Uint8Array) {
    this.putCalls++;
    this.inner.put(cid, bytes);
  }
  putMany(blocks: Iterable<Block>) {
    this.putManyCalls++;
    this.inner.putMany(blocks);
  }
}

describe('applyTipset', () => {
  test('two blocks sharing a message execute it once; receipts follow execution order', async () => {
    const chain = standardGenesis();
    const shared = signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }));
    const next = signSecp(alice, message({ from: alice.address, to: bob.address, nonce: 1n, value: FIL }));
    const fromBob = message({ from: bob.address, to: carol.address, value: FIL });
    const result = await applyAt(
      chain,
      chain.genesisRoot,
      1n,
      [block([shared]), block([shared, next, signSecp(bob, fromBob)])],
      {
        trace: true,
      },
    );
    expect(result.receipts.map((r) => r.exitCode)).toEqual([0n, 0n, 0n]);
    expect(result.executedMessages.map((m) => m.message.nonce)).toEqual([0n, 1n, 0n]);
    const tree = loadTree(chain, result.stateRoot);
    const bobsFee = result.invocResults.find((r) => r.msg.from.equals(bob.address))!.gasCost.totalCost;
    expect(balanceOf(tree, bob.address)).toBe(10n * FIL + 2n * FIL - FIL - bobsFee);
    expect(tree.getActor(tree.lookupId(alice.address)!)!.nonce).toBe(2n);
  });

  test('the selection drops a message whose nonce repeats one already selected from another block', () => {
    const chain = standardGenesis();
    const first = signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }));
    const rival = signSecp(alice, message({ from: alice.address, to: carol.address, value: 2n * FIL }));
    const selected = selectTipsetMessages(loadTree(chain, chain.genesisRoot), [
      { blsMessages: [], secpMessages: [first] },
      { blsMessages: [], secpMessages: [rival] },
    ]);
    expect(selected.map((messages) => messages.length)).toEqual([1, 0]);
  });

  test('the receipts root is the legacy v0 AMT of the explicit receipts', async () => {
    const chain = standardGenesis();
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }))]),
    ]);
    const expected = buildAmt(new MemoryBlockstore(), result.receipts.map(messageReceiptToCborNode), { version: 'v0' });
    expect(result.receiptsRoot.equals(expected)).toBe(true);
    const [height, count] = decodeCbor(getBlock(chain.store, result.receiptsRoot)) as [number, number];
    expect([height, count]).toEqual([0, 1]);
  });

  test('every block is rewarded, messages or not; tips go to the block’s miner', async () => {
    const chain = standardGenesis();
    const before = loadTree(chain, chain.genesisRoot);
    const reward = rewardStateCodec.decode(getBlock(chain.store, before.getActor(REWARD_ACTOR_ID)!.head));
    const perBlock = reward.thisEpochReward / PARAMS.blocksPerEpoch;
    const signed = signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }));
    const result = await applyAt(chain, chain.genesisRoot, 1n, [block([signed]), block([])], { trace: true });
    const awards = result.invocResults.filter(
      (r) => r.msg.method === RewardMethod.AwardBlockReward && r.msg.to.equals(Address.newId(REWARD_ACTOR_ID)),
    );
    expect(awards).toHaveLength(2);
    const tip = result.invocResults[0]!.gasCost.minerTip;
    expect(tip).toBeGreaterThan(0n);
    const after = loadTree(chain, result.stateRoot);
    expect(balanceOf(after, MINER) - balanceOf(before, MINER)).toBe(2n * perBlock + tip);
    const rewardAfter = rewardStateCodec.decode(getBlock(chain.store, after.getActor(REWARD_ACTOR_ID)!.head));
    expect(rewardAfter.totalStoragePowerReward - reward.totalStoragePowerReward).toBe(2n * perBlock);
    // The award's trace shows the payment to the miner.
    const payment = awards[0]!.executionTrace.subcalls[0]!;
    expect(payment.msg.to.equals(Address.newId(1000n))).toBe(true);
    expect(payment.msg.value).toBe(perBlock + tip);
    expect(awards[0]!.gasCost.message).toBeNull();
  });

  test('cron runs once for every null round and once for the tipset', async () => {
    const chain = standardGenesis();
    const result = await applyAt(chain, chain.genesisRoot, 4n, [block([])], { parentEpoch: 1n, trace: true });
    const crons = result.invocResults.filter(
      (r) => r.msg.to.equals(Address.newId(CRON_ACTOR_ID)) && r.msg.method === CronMethod.EpochTick,
    );
    expect(crons.map((r) => r.msg.nonce)).toEqual([2n, 3n, 4n]);
    for (const cron of crons) {
      // Cron → power OnEpochTickEnd → (reward ThisEpochReward, the miners' callbacks, then) reward UpdateNetworkKPI.
      expect(cron.executionTrace.subcalls[0]!.subcalls.at(-1)!.msg.method).toBe(RewardMethod.UpdateNetworkKPI);
    }
    const reward = rewardStateCodec.decode(
      getBlock(chain.store, loadTree(chain, result.stateRoot).getActor(REWARD_ACTOR_ID)!.head),
    );
    expect(reward.epoch).toBe(5n);
  });

  test('the same input always gives the same state and receipts roots', async () => {
    const run = async () => {
      const chain = standardGenesis();
      const messages = [0n, 1n].map((nonce) =>
        signSecp(alice, message({ from: alice.address, to: keys.carol.address, nonce, value: FIL })),
      );
      const result = await applyAt(chain, chain.genesisRoot, 1n, [block(messages)]);
      return [result.stateRoot.toString(), result.receiptsRoot.toString()];
    };
    expect(await run()).toEqual(await run());
  });

  test('a tipset reaches the store in one putMany; a failing one writes nothing', async () => {
    const chain = standardGenesis();
    const counter = new WriteCounter(chain.store);
    const signed = signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }));
    await applyAt({ store: counter as unknown as MemoryBlockstore }, chain.genesisRoot, 1n, [block([signed])]);
    expect([counter.putManyCalls, counter.putCalls]).toEqual([1, 0]);

    const blocksBefore = chain.store.size;
    const zeroWins = { ...block([signed]), winCount: 0n };
    await expect(applyAt(chain, chain.genesisRoot, 1n, [zeroWins])).rejects.toMatchObject({
      code: VmErrorCode.ImplicitMessageFailed,
    });
    expect(chain.store.size).toBe(blocksBefore);
  });

  test('the next base fee falls by 1/8 after an empty tipset', async () => {
    const chain = standardGenesis();
    const result = await applyAt(chain, chain.genesisRoot, 1n, [block([])], { baseFee: 1_000_000n });
    expect(result.nextBaseFee).toBe(875_000n);
  });

  test('an executor reusing the previous tipset’s state gives the roots fresh applications give, and survives failures', async () => {
    const chain = standardGenesis();
    const executor = new TipsetExecutor(chain.store);
    const input = (epoch: bigint, blocks: ReturnType<typeof block>[]) => ({
      epoch,
      parentEpoch: epoch - 1n,
      baseFee: PARAMS.minimumBaseFee,
      timestamp: GENESIS_TIMESTAMP + epoch * PARAMS.blockDelaySecs,
      genesisTimestamp: GENESIS_TIMESTAMP,
      blocks,
    });
    const transfer = (nonce: bigint) =>
      signSecp(alice, message({ from: alice.address, to: keys.carol.address, nonce, value: FIL }));
    let reused = chain.genesisRoot;
    let fresh = chain.genesisRoot;
    for (const epoch of [1n, 2n, 3n]) {
      const blocks = [block([transfer(epoch - 1n)])];
      if (epoch === 2n) {
        await expect(
          executor.apply(reused, input(epoch, [{ ...blocks[0]!, winCount: 0n }]), { networkParams: PARAMS }),
        ).rejects.toThrow();
      }
      reused = (await executor.apply(reused, input(epoch, blocks), { networkParams: PARAMS })).stateRoot;
      fresh = (await applyAt(chain, fresh, epoch, blocks)).stateRoot;
      expect(reused.toString()).toBe(fresh.toString());
    }
  });
});
