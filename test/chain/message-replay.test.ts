import { computeState, replayMessage } from '../../src/chain/message-replay.js';
import { LOOKBACK_NO_LIMIT, MessageSearch } from '../../src/chain/message-search.js';
import { StateTree } from '../../src/state/index.js';
import { Address, messageCid, signedMessageCid, type TipSet } from '../../src/types/index.js';
import {
  EVM_INVOKE_CONTRACT_METHOD,
  type ExecutionTrace,
  encodeProposeParams,
  MultisigMethod,
} from '../../src/vm/index.js';
import { FIL, multisigTemplate } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { balanceOf, firstMultisig } from '../helpers/state.js';
import { TestChain } from '../helpers/test-chain.js';

const { alice, bob } = keys;

function newChain(): TestChain {
  return TestChain.create({ template: multisigTemplate() });
}

function multisigOf(t: TestChain): Address {
  return firstMultisig(StateTree.load(t.chain.blockstore, t.chain.head().parentStateRoot));
}

/** Every trace node that moved value and succeeded, with all its ancestors (the exchange rule). */
function transfers(trace: ExecutionTrace, okAbove = true): { to: string; value: bigint }[] {
  const ok = okAbove && trace.msgRct.exitCode === 0;
  const here = ok && trace.msg.value !== 0n ? [{ to: trace.msg.to.toString(), value: trace.msg.value }] : [];
  return [...here, ...trace.subcalls.flatMap((sub) => transfers(sub, ok))];
}

function balanceAt(t: TestChain, tipSet: TipSet, address: Address): bigint {
  return balanceOf(StateTree.load(t.chain.blockstore, tipSet.parentStateRoot), address);
}

describe('replayMessage', () => {
  let t: TestChain;
  beforeEach(() => {
    t = newChain();
  });
  afterEach(() => t.close());

  test('returns the receipt on chain, a GasCost that adds up to what the sender paid, and the trace', async () => {
    const signed = signSecp(alice, message({ from: alice.address, to: bob.address, value: 3n * FIL }));
    const cid = signedMessageCid(signed);
    const before = await t.mine([{ secp: [signed] }]);
    const after = await t.mine();
    const result = await replayMessage(t.chain, before, cid);
    const lookup = await new MessageSearch({ chain: t.chain }).search(after, cid, LOOKBACK_NO_LIMIT, false);
    expect(result.msgCid.toString()).toBe(cid.toString());
    expect(result.msgRct).toEqual(lookup?.receipt);
    expect(result.error).toBe('');
    const cost = result.gasCost;
    expect(cost.message?.toString()).toBe(messageCid(signed.message).toString());
    expect(cost.gasUsed).toBe(result.msgRct.gasUsed);
    expect(cost.baseFeeBurn + cost.overEstimationBurn + cost.minerTip).toBe(cost.totalCost);
    expect(cost.totalCost + cost.refund).toBe(signed.message.gasFeeCap * signed.message.gasLimit);
    const paid = balanceAt(t, before, alice.address) - balanceAt(t, after, alice.address);
    expect(paid).toBe(3n * FIL + cost.totalCost);
    expect(transfers(result.executionTrace)).toEqual([{ to: bob.address.toString(), value: 3n * FIL }]);
  });

  test('a message the tipset did not include is refused like Lotus', async () => {
    const signed = signSecp(alice, message({ from: alice.address, to: bob.address }));
    const tipSet = await t.mine();
    await t.mine();
    await expect(replayMessage(t.chain, tipSet, signedMessageCid(signed))).rejects.toThrow(
      'given message not found in tipset',
    );
  });

  test('multisig and new 0x recipients show as value-carrying trace entries in replay and compute', async () => {
    const msig = multisigOf(t);
    const evmRecipient = Address.newDelegated(10n, new Uint8Array(20).fill(0xab));
    const propose = signSecp(
      alice,
      message({
        from: alice.address,
        to: msig,
        method: MultisigMethod.Propose,
        params: encodeProposeParams(bob.address, 7n * FIL, 0n, new Uint8Array(0)),
        gasLimit: 100_000_000n,
      }),
    );
    const toEvm = signSecp(
      alice,
      message({
        from: alice.address,
        to: evmRecipient,
        nonce: 1n,
        value: 2n * FIL,
        method: EVM_INVOKE_CONTRACT_METHOD,
        gasLimit: 100_000_000n,
      }),
    );
    const included = await t.mine([{ secp: [propose, toEvm] }]);
    const after = await t.mine();
    expect(t.chain.readReceipts(after.parentMessageReceipts).map((r) => r.exitCode)).toEqual([0n, 0n]);

    const replayedMsig = await replayMessage(t.chain, included, signedMessageCid(propose));
    expect(transfers(replayedMsig.executionTrace)).toEqual([{ to: bob.address.toString(), value: 7n * FIL }]);
    const replayedEvm = await replayMessage(t.chain, included, signedMessageCid(toEvm));
    expect(transfers(replayedEvm.executionTrace)).toEqual([{ to: evmRecipient.toString(), value: 2n * FIL }]);

    const computed = await computeState(t.chain, included, included.height, []);
    expect(computed.root.toString()).toBe((await t.states.stateOf(included)).stateRoot.toString());
    const explicit = computed.trace.filter((r) => r.gasCost.message !== null);
    expect(explicit.map((r) => r.msgCid.toString())).toEqual([
      signedMessageCid(propose).toString(),
      signedMessageCid(toEvm).toString(),
    ]);
    expect(explicit.flatMap((r) => transfers(r.executionTrace))).toEqual([
      { to: bob.address.toString(), value: 7n * FIL },
      { to: evmRecipient.toString(), value: 2n * FIL },
    ]);
    // The implicit block reward and cron calls come with a zero GasCost, as in Lotus.
    const implicit = computed.trace.filter((r) => r.gasCost.message === null);
    expect(implicit.length).toBe(2);
    expect(implicit.every((r) => r.gasCost.totalCost === 0n)).toBe(true);
  });

  test('StateCompute applies extra messages at the given height on top of the tipset', async () => {
    const tipSet = await t.mine();
    const extra = message({ from: bob.address, to: alice.address, value: FIL });
    const computed = await computeState(t.chain, tipSet, tipSet.height + 2n, [extra]);
    const last = computed.trace[computed.trace.length - 1]!;
    expect(last.msgCid.toString()).toBe(messageCid(extra).toString());
    expect(last.msgRct.exitCode).toBe(0n);
    expect(transfers(last.executionTrace)).toEqual([{ to: alice.address.toString(), value: FIL }]);
    const tree = StateTree.load(t.chain.blockstore, (await t.states.stateOf(tipSet)).stateRoot);
    expect(computed.root.toString()).not.toBe((await t.states.stateOf(tipSet)).stateRoot.toString());
    expect(balanceOf(tree, bob.address)).toBe(10n * FIL);
    await expect(computeState(t.chain, tipSet, tipSet.height - 1n, [])).rejects.toThrow('below the tipset');
  });
});
