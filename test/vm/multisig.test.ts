/**
 * Multisig: proposals, approvals and their traces (the approved transfer is a subcall of the
 * approving message), inner failures that do not fail the outer message, and signer management
 * through proposals the multisig sends to itself.
 */
import { blake2b256 } from '../../src/crypto/index.js';
import { getBlock } from '../../src/ipld/index.js';
import { Address, AddressProtocol, type CID, decodeCbor, encodeCbor } from '../../src/types/index.js';
import {
  ExitCode,
  encodeProposeParams,
  encodeTxnIdParams,
  executionTraceToLotusJson,
  getPendingTransaction,
  MultisigMethod,
  multisigStateCodec,
  proposalHashData,
} from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { FIL, type GenesisState, standardGenesis } from '../helpers/genesis.js';
import { type BlsKey, keys, type SecpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { createMultisigMessage } from '../helpers/multisig-exec.js';
import { balanceOf, loadTree } from '../helpers/state.js';

const { alice, bob, carol } = keys;
const none = new Uint8Array(0);

interface Setup {
  chain: GenesisState;
  root: CID;
  msig: Address;
  epoch: bigint;
  nonces: Map<string, bigint>;
}

async function createMultisig(signers: Address[], threshold: bigint, value: bigint): Promise<Setup> {
  const chain = standardGenesis();
  const create = signSecp(alice, createMultisigMessage(alice.address, signers, threshold, value));
  const result = await applyAt(chain, chain.genesisRoot, 1n, [block([create])]);
  expect(result.receipts[0]!.exitCode).toBe(0n);
  const [id] = decodeCbor(result.receipts[0]!.return) as [Uint8Array, Uint8Array];
  return {
    chain,
    root: result.stateRoot,
    msig: Address.fromBytes(id),
    epoch: 1n,
    nonces: new Map([[alice.address.toString(), 1n]]),
  };
}

/** Sends from a secp256k1 key as a signed message, from a BLS key as a block's BLS message. */
async function send(setup: Setup, from: SecpKey | BlsKey, method: bigint, params: Uint8Array, value = 0n) {
  const key = from.address.toString();
  const nonce = setup.nonces.get(key) ?? 0n;
  setup.nonces.set(key, nonce + 1n);
  setup.epoch += 1n;
  const unsigned = message({
    from: from.address,
    to: setup.msig,
    nonce,
    method,
    params,
    value,
    gasLimit: 200_000_000n,
  });
  const isBls = from.address.protocol === AddressProtocol.BLS;
  const messages = isBls ? block([], [unsigned]) : block([signSecp(from, unsigned)]);
  const result = await applyAt(setup.chain, setup.root, setup.epoch, [messages], { trace: true });
  setup.root = result.stateRoot;
  const invocation = result.invocResults.find((r) => r.msgCid.equals(result.executedMessages[0]!.cid))!;
  return { receipt: result.receipts[0]!, trace: invocation.executionTrace };
}

function state(setup: Setup) {
  const tree = loadTree(setup.chain, setup.root);
  return multisigStateCodec.decode(getBlock(setup.chain.store, tree.getActor(tree.lookupId(setup.msig)!)!.head));
}

describe('multisig', () => {
  test('2-of-2: the proposal waits; the approval runs the transfer, which its trace shows as a subcall', async () => {
    const setup = await createMultisig([alice.address, bob.address], 2n, 10n * FIL);
    const carolBefore = balanceOf(loadTree(setup.chain, setup.root), carol.address);

    const proposed = await send(
      setup,
      alice,
      MultisigMethod.Propose,
      encodeProposeParams(carol.address, FIL, 0n, none),
    );
    expect(proposed.receipt.exitCode).toBe(0n);
    expect(decodeCbor(proposed.receipt.return)).toEqual([0, false, 0, new Uint8Array(0)]);
    expect(proposed.trace.subcalls).toHaveLength(0);

    const pending = getPendingTransaction(setup.chain.store, state(setup).pendingTxs, 0n)!;
    const hash = blake2b256(proposalHashData(pending));
    const approved = await send(setup, bob, MultisigMethod.Approve, encodeTxnIdParams(0n, hash));
    expect(approved.receipt.exitCode).toBe(0n);
    expect(decodeCbor(approved.receipt.return)).toEqual([true, 0, new Uint8Array(0)]);

    const tree = loadTree(setup.chain, setup.root);
    const msigId = tree.lookupId(setup.msig)!;
    expect(approved.trace.msg.method).toBe(MultisigMethod.Approve);
    expect(approved.trace.msg.from.equals(Address.newId(tree.lookupId(bob.address)!))).toBe(true);
    const transfer = approved.trace.subcalls[0]!;
    expect(transfer.msg.from.equals(Address.newId(msigId))).toBe(true);
    expect(transfer.msg.to.equals(carol.address)).toBe(true);
    expect(transfer.msg.value).toBe(FIL);
    expect(transfer.msg.method).toBe(0n);
    expect(transfer.msgRct.exitCode).toBe(0);
    expect(balanceOf(tree, carol.address)).toBe(carolBefore + FIL);
    expect(balanceOf(tree, setup.msig)).toBe(9n * FIL);
    expect(getPendingTransaction(setup.chain.store, state(setup).pendingTxs, 0n)).toBeUndefined();

    const json = executionTraceToLotusJson(approved.trace);
    expect(json.Msg.Method).toBe(3);
    expect(json.Subcalls![0]!.Msg).toMatchObject({
      To: carol.address.toString(),
      Value: FIL.toString(),
      Method: 0,
      Params: null,
    });
    expect(json.Subcalls![0]!.MsgRct).toEqual({ ExitCode: 0, Return: null, ReturnCodec: 0 });
  });

  test('1-of-1: the proposal executes at once', async () => {
    const setup = await createMultisig([alice.address], 1n, 10n * FIL);
    const proposed = await send(
      setup,
      alice,
      MultisigMethod.Propose,
      encodeProposeParams(bob.address, 2n * FIL, 0n, none),
    );
    expect(decodeCbor(proposed.receipt.return)).toEqual([0, true, 0, new Uint8Array(0)]);
    expect(proposed.trace.subcalls[0]!.msg.to.equals(bob.address)).toBe(true);
    expect(proposed.trace.subcalls[0]!.msg.value).toBe(2n * FIL);
    expect(balanceOf(loadTree(setup.chain, setup.root), bob.address)).toBe(12n * FIL);
  });

  test('an inner failure does not fail the message: the return carries the inner exit code', async () => {
    const setup = await createMultisig([alice.address], 1n, 10n * FIL);
    const unknown = await send(
      setup,
      alice,
      MultisigMethod.Propose,
      encodeProposeParams(Address.newId(987654n), FIL, 0n, none),
    );
    expect(unknown.receipt.exitCode).toBe(0n);
    // The VM refuses the send (no such actor); builtin-actors reports that as USR_UNSPECIFIED.
    expect(decodeCbor(unknown.receipt.return)).toEqual([0, true, ExitCode.UsrUnspecified, new Uint8Array(0)]);
    expect(unknown.trace.subcalls[0]!.msgRct.exitCode).toBe(ExitCode.SysInvalidReceiver);

    const unhandled = await send(setup, alice, MultisigMethod.Propose, encodeProposeParams(bob.address, 0n, 3n, none));
    expect(unhandled.receipt.exitCode).toBe(0n);
    expect(decodeCbor(unhandled.receipt.return)).toEqual([1, true, ExitCode.UsrUnhandledMessage, new Uint8Array(0)]);
    expect(balanceOf(loadTree(setup.chain, setup.root), setup.msig)).toBe(10n * FIL);
  });

  test('a wrong proposal hash is refused; only the proposer may cancel', async () => {
    const setup = await createMultisig([alice.address, bob.address, carol.address], 2n, 10n * FIL);
    await send(setup, alice, MultisigMethod.Propose, encodeProposeParams(carol.address, FIL, 0n, none));
    const wrongHash = await send(setup, bob, MultisigMethod.Approve, encodeTxnIdParams(0n, new Uint8Array(32)));
    expect(wrongHash.receipt.exitCode).toBe(BigInt(ExitCode.UsrIllegalArgument));
    const notProposer = await send(setup, bob, MultisigMethod.Cancel, encodeTxnIdParams(0n, none));
    expect(notProposer.receipt.exitCode).toBe(BigInt(ExitCode.UsrForbidden));
    const cancelled = await send(setup, alice, MultisigMethod.Cancel, encodeTxnIdParams(0n, none));
    expect(cancelled.receipt.exitCode).toBe(0n);
    expect(getPendingTransaction(setup.chain.store, state(setup).pendingTxs, 0n)).toBeUndefined();
  });

  test('signers and threshold change only through the multisig’s own approved proposals', async () => {
    const setup = await createMultisig([alice.address], 1n, 10n * FIL);
    const direct = await send(setup, alice, MultisigMethod.AddSigner, encodeCbor([bob.address.bytes, true]));
    expect(direct.receipt.exitCode).toBe(BigInt(ExitCode.UsrForbidden));

    const self = (method: bigint, params: Uint8Array) =>
      send(setup, alice, MultisigMethod.Propose, encodeProposeParams(setup.msig, 0n, method, params));
    const added = await self(MultisigMethod.AddSigner, encodeCbor([bob.address.bytes, true]));
    expect(decodeCbor(added.receipt.return)).toEqual([0, true, 0, new Uint8Array(0)]);
    const tree = loadTree(setup.chain, setup.root);
    const [aliceId, bobId, carolId] = [alice, bob, carol].map((k) => Address.newId(tree.lookupId(k.address)!));
    expect(state(setup).signers.map(String)).toEqual([aliceId, bobId].map(String));
    expect(state(setup).numApprovalsThreshold).toBe(2n);

    // Now 2-of-2: alice's proposal waits for bob.
    const swap = await self(MultisigMethod.SwapSigner, encodeCbor([bob.address.bytes, carol.address.bytes]));
    expect(decodeCbor(swap.receipt.return)).toEqual([1, false, 0, new Uint8Array(0)]);
    const swapped = await send(setup, bob, MultisigMethod.Approve, encodeTxnIdParams(1n, none));
    expect(decodeCbor(swapped.receipt.return)).toEqual([true, 0, new Uint8Array(0)]);
    expect(state(setup).signers.map(String)).toEqual([aliceId, carolId].map(String));

    // Removing carol (and the second approval) takes alice's proposal and carol's approval.
    const remove = await self(MultisigMethod.RemoveSigner, encodeCbor([carol.address.bytes, true]));
    expect(decodeCbor(remove.receipt.return)).toEqual([2, false, 0, new Uint8Array(0)]);
    const removed = await send(setup, carol, MultisigMethod.Approve, encodeTxnIdParams(2n, none));
    expect(decodeCbor(removed.receipt.return)).toEqual([true, 0, new Uint8Array(0)]);
    expect(state(setup).signers.map(String)).toEqual([aliceId].map(String));
    expect(state(setup).numApprovalsThreshold).toBe(1n);

    const threshold = await self(MultisigMethod.ChangeNumApprovalsThreshold, encodeCbor([2n]));
    // Two approvals from one signer are impossible: the inner call fails, the proposal is spent.
    expect(decodeCbor(threshold.receipt.return)).toEqual([3, true, ExitCode.UsrIllegalArgument, new Uint8Array(0)]);
    expect(state(setup).numApprovalsThreshold).toBe(1n);
  });
});
