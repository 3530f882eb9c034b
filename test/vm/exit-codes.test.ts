/**
 * Every exit code a message can end with, each from a message built to cause it
 * (filecoin-project/ref-fvm `fvm/src/executor/default.rs`, `shared/src/error/mod.rs`):
 * pre-validation failures cost the sender nothing and leave its nonce; execution failures keep the
 * nonce increment and charge gas.
 */
import { CID } from 'multiformats/cid';
import { identity } from 'multiformats/hashes/identity';
import { putCbor } from '../../src/ipld/index.js';
import { StateTree } from '../../src/state/index.js';
import { Address, decodeCbor, encodeCbor } from '../../src/types/index.js';
import { AccountMethod, ExitCode, encodeProposeParams, encodeTxnIdParams, MultisigMethod } from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { FIL, PARAMS, standardGenesis } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { createMultisigMessage } from '../helpers/multisig-exec.js';
import { balanceOf, loadTree } from '../helpers/state.js';

const { alice, bob } = keys;

async function applyOne(signedMessages: Parameters<typeof block>[0], options: { trace?: boolean } = {}) {
  const chain = standardGenesis();
  const result = await applyAt(chain, chain.genesisRoot, 1n, [block(signedMessages)], { trace: options.trace ?? true });
  return { chain, result, before: loadTree(chain, chain.genesisRoot), after: loadTree(chain, result.stateRoot) };
}

describe('pre-validation failures', () => {
  test('SYS_SENDER_INVALID (1): the sender does not exist', async () => {
    const stranger = Address.newSecp256k1(new Uint8Array([4, ...new Uint8Array(64).fill(7)]));
    const { result } = await applyOne([signSecp(alice, message({ from: stranger, to: bob.address, value: 1n }))]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysSenderInvalid));
    expect(result.receipts[0]!.gasUsed).toBe(0n);
  });

  test('SYS_SENDER_INVALID (1): the sender is not an account (a miner actor)', async () => {
    const { result } = await applyOne([
      signSecp(alice, message({ from: Address.newId(1000n), to: bob.address, value: 1n })),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysSenderInvalid));
  });

  test('SYS_SENDER_STATE_INVALID (2): wrong nonce; nothing is paid and the nonce stays', async () => {
    const { result, before, after } = await applyOne([
      signSecp(alice, message({ from: alice.address, to: bob.address, nonce: 5n, value: FIL })),
    ]);
    const [receipt] = result.receipts;
    expect(receipt!.exitCode).toBe(BigInt(ExitCode.SysSenderStateInvalid));
    expect(receipt!.gasUsed).toBe(0n);
    const id = after.lookupId(alice.address)!;
    expect(after.getActor(id)!.nonce).toBe(0n);
    expect(after.getActor(id)!.balance).toBe(before.getActor(id)!.balance);
    expect(result.invocResults[0]!.gasCost.minerPenalty).toBe(PARAMS.minimumBaseFee * 10_000_000n);
  });

  test('SYS_SENDER_STATE_INVALID (2): the balance does not cover gasFeeCap × gasLimit (value is not counted)', async () => {
    const { result, before, after } = await applyOne([
      signSecp(
        bob,
        message({ from: bob.address, to: alice.address, value: 0n, gasLimit: 10_000_000n, gasFeeCap: 2n * FIL }),
      ),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysSenderStateInvalid));
    expect(balanceOf(after, bob.address)).toBe(balanceOf(before, bob.address));
  });

  test('SYS_OUT_OF_GAS (7) before execution: the limit does not cover inclusion', async () => {
    const { result, after } = await applyOne([
      signSecp(alice, message({ from: alice.address, to: bob.address, value: 1n, gasLimit: 100_000n })),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysOutOfGas));
    expect(result.receipts[0]!.gasUsed).toBe(0n);
    expect(after.getActor(after.lookupId(alice.address)!)!.nonce).toBe(0n);
  });
});

describe('execution failures (the nonce advances and gas is paid)', () => {
  test('SYS_INSUFFICIENT_FUNDS (6): the value exceeds the balance left after gas', async () => {
    const { result, before, after } = await applyOne([
      signSecp(bob, message({ from: bob.address, to: alice.address, value: 10n * FIL })),
    ]);
    const [receipt] = result.receipts;
    expect(receipt!.exitCode).toBe(BigInt(ExitCode.SysInsufficientFunds));
    expect(receipt!.gasUsed).toBeGreaterThan(0n);
    const id = after.lookupId(bob.address)!;
    expect(after.getActor(id)!.nonce).toBe(1n);
    const cost = result.invocResults[0]!.gasCost.totalCost;
    expect(after.getActor(id)!.balance).toBe(before.getActor(id)!.balance - cost);
  });

  test('SYS_INVALID_RECEIVER (5): an ID address nobody has', async () => {
    const { result } = await applyOne([
      signSecp(alice, message({ from: alice.address, to: Address.newId(424242n), value: 1n })),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysInvalidReceiver));
  });

  test('SYS_INVALID_RECEIVER (5): an f4 address outside the Ethereum namespace cannot be created', async () => {
    const f4 = Address.newDelegated(32n, new Uint8Array(20).fill(1));
    const { result } = await applyOne([signSecp(alice, message({ from: alice.address, to: f4, value: 1n }))]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysInvalidReceiver));
  });

  test('SYS_OUT_OF_GAS (7) during execution: the limit covers inclusion but not account creation', async () => {
    const newcomer = Address.newSecp256k1(new Uint8Array([4, ...new Uint8Array(64).fill(9)]));
    const { result, after } = await applyOne([
      signSecp(alice, message({ from: alice.address, to: newcomer, value: FIL, gasLimit: 2_000_000n })),
    ]);
    const [receipt] = result.receipts;
    expect(receipt!.exitCode).toBe(BigInt(ExitCode.SysOutOfGas));
    expect(receipt!.gasUsed).toBe(2_000_000n);
    expect(after.lookupId(newcomer)).toBeUndefined();
    expect(after.getActor(after.lookupId(alice.address)!)!.nonce).toBe(1n);
  });

  test('USR_UNHANDLED_MESSAGE (22): a method an account does not have', async () => {
    const { result } = await applyOne([signSecp(alice, message({ from: alice.address, to: bob.address, method: 3n }))]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.UsrUnhandledMessage));
  });

  test('USR_ILLEGAL_ARGUMENT (16): AuthenticateMessage with a signature that is not the key’s', async () => {
    const params = encodeCbor([new Uint8Array(65).fill(1), new Uint8Array([1, 2, 3])]);
    const { result } = await applyOne([
      signSecp(
        alice,
        message({ from: alice.address, to: bob.address, method: AccountMethod.AuthenticateMessage, params }),
      ),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.UsrIllegalArgument));
  });

  test('USR_SERIALIZATION (21): params that do not decode', async () => {
    const params = encodeCbor(['not', 'a', 'tuple']);
    const { result } = await applyOne([
      signSecp(
        alice,
        message({ from: alice.address, to: bob.address, method: AccountMethod.AuthenticateMessage, params }),
      ),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.UsrSerialization));
  });

  test('USR_FORBIDDEN (18), USR_NOT_FOUND (17) and USR_INSUFFICIENT_FUNDS (19) from a multisig', async () => {
    const chain = standardGenesis();
    const create = signSecp(alice, createMultisigMessage(alice.address, [alice.address], 1n));
    const first = await applyAt(chain, chain.genesisRoot, 1n, [block([create])]);
    expect(first.receipts[0]!.exitCode).toBe(0n);
    const [idBytes] = decodeCbor(first.receipts[0]!.return) as [Uint8Array, Uint8Array];
    const msig = Address.fromBytes(idBytes);
    const none = new Uint8Array(0);
    const call = (from: typeof alice, nonce: bigint, method: bigint, params: Uint8Array) =>
      signSecp(from, message({ from: from.address, to: msig, nonce, method, params, gasLimit: 100_000_000n }));
    const second = await applyAt(chain, first.stateRoot, 2n, [
      block([
        call(bob, 0n, MultisigMethod.Propose, encodeProposeParams(alice.address, 1n, 0n, none)),
        call(alice, 1n, MultisigMethod.Approve, encodeTxnIdParams(7n, none)),
        call(alice, 2n, MultisigMethod.Propose, encodeProposeParams(bob.address, 5n * FIL, 0n, none)),
      ]),
    ]);
    expect(second.receipts.map((r) => r.exitCode)).toEqual([
      BigInt(ExitCode.UsrForbidden),
      BigInt(ExitCode.UsrNotFound),
      BigInt(ExitCode.UsrInsufficientFunds),
    ]);
  });

  test('SYS_ASSERTION_FAILED (10): calling an actor whose code this VM does not run; all gas is used', async () => {
    const chain = standardGenesis();
    const tree = StateTree.load(chain.store, chain.genesisRoot);
    const foreign = CID.createV1(0x55, identity.digest(new TextEncoder().encode('fil/2/storagemarket')));
    tree.setActor(5n, {
      code: foreign,
      head: putCbor(chain.store, []),
      nonce: 0n,
      balance: 0n,
      delegatedAddress: null,
    });
    const root = tree.flush();
    const result = await applyAt(chain, root, 1n, [
      block([signSecp(alice, message({ from: alice.address, to: Address.newId(5n), method: 2n }))]),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysAssertionFailed));
    expect(result.receipts[0]!.gasUsed).toBe(10_000_000n);
  });
});

test('a message no valid block can carry (negative fee cap) is refused with an error, not a receipt', async () => {
  const chain = standardGenesis();
  const invalid = signSecp(alice, message({ from: alice.address, to: bob.address, gasFeeCap: -1n, gasPremium: -1n }));
  await expect(applyAt(chain, chain.genesisRoot, 1n, [block([invalid])])).rejects.toMatchObject({
    code: 'ERR_VM_INVALID_INPUT',
  });
});
