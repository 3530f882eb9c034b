/**
 * Transfers: auto-created recipients (accounts for f1/f3, placeholders for f410), exported-method
 * transfers, nonce rules, and the gas of a plain transfer against the FVM's formula.
 */
import { bls, secp256k1 } from '../../src/crypto/index.js';
import { getBlock } from '../../src/ipld/index.js';
import { ACTOR_CODES, actorNameOf } from '../../src/state/index.js';
import { Address, decodeCbor, encodeCbor, encodeSignedMessage } from '../../src/types/index.js';
import { AccountMethod, accountStateCodec, EVM_INVOKE_CONTRACT_METHOD, ExitCode, PRICES } from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { FIL, standardGenesis } from '../helpers/genesis.js';
import { blsKey, keys, secpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { balanceOf, loadTree } from '../helpers/state.js';

const { alice, bob, carol } = keys;
const ethAddress = (byte: number) => Address.newDelegated(10n, new Uint8Array(20).fill(byte));

describe('recipients created by a transfer', () => {
  test('a new f1 address becomes an account with the next ID, holding its key address', async () => {
    const chain = standardGenesis();
    const dave = secpKey('dave').address;
    const first = await applyAt(chain, chain.genesisRoot, 1n, [
      block([signSecp(alice, message({ from: alice.address, to: dave, value: 3n * FIL }))]),
    ]);
    expect(first.receipts[0]!.exitCode).toBe(0n);
    const tree = loadTree(chain, first.stateRoot);
    // Genesis used f0100–f0104 for its accounts and f01000 for the miner; the Init actor goes on from f01001.
    expect(tree.lookupId(dave)).toBe(1001n);
    const actor = tree.getActor(1001n)!;
    expect(actorNameOf(actor.code)).toBe('account');
    expect(actor.balance).toBe(3n * FIL);
    expect(accountStateCodec.decode(getBlock(chain.store, actor.head)).address.equals(dave)).toBe(true);

    const second = await applyAt(chain, first.stateRoot, 2n, [
      block([signSecp(alice, message({ from: alice.address, to: dave, nonce: 1n, value: FIL }))]),
    ]);
    const after = loadTree(chain, second.stateRoot);
    expect(after.lookupId(dave)).toBe(1001n);
    expect(balanceOf(after, dave)).toBe(4n * FIL);
  });

  test('a new f3 address becomes an account too; IDs keep counting', async () => {
    const chain = standardGenesis();
    const erin = blsKey('erin').address;
    const frank = secpKey('frank').address;
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([
        signSecp(alice, message({ from: alice.address, to: erin, value: FIL })),
        signSecp(alice, message({ from: alice.address, to: frank, nonce: 1n, value: FIL })),
      ]),
    ]);
    expect(result.receipts.map((r) => r.exitCode)).toEqual([0n, 0n]);
    const tree = loadTree(chain, result.stateRoot);
    expect(tree.lookupId(erin)).toBe(1001n);
    expect(tree.lookupId(frank)).toBe(1002n);
    expect(actorNameOf(tree.getActor(1001n)!.code)).toBe('account');
  });

  test('the BLS zero address cannot receive', async () => {
    const chain = standardGenesis();
    const zero = Address.newBls(Uint8Array.from([0xc0, ...new Uint8Array(47)]));
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([signSecp(alice, message({ from: alice.address, to: zero, value: 1n }))]),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.SysAssertionFailed));
    expect(loadTree(chain, result.stateRoot).lookupId(zero)).toBeUndefined();
  });

  test('a new f410f address becomes a placeholder holding the address; later transfers reach it', async () => {
    const chain = standardGenesis();
    const eth = ethAddress(0xab);
    const first = await applyAt(chain, chain.genesisRoot, 1n, [
      block([signSecp(alice, message({ from: alice.address, to: eth, value: 2n * FIL }))]),
    ]);
    expect(first.receipts[0]!.exitCode).toBe(0n);
    const tree = loadTree(chain, first.stateRoot);
    const id = tree.lookupId(eth)!;
    const placeholder = tree.getActor(id)!;
    expect(placeholder.code.equals(ACTOR_CODES.placeholder)).toBe(true);
    expect(placeholder.delegatedAddress?.equals(eth)).toBe(true);
    expect(placeholder.balance).toBe(2n * FIL);

    const second = await applyAt(chain, first.stateRoot, 2n, [
      block([
        signSecp(alice, message({ from: alice.address, to: eth, nonce: 1n, value: FIL })),
        signSecp(
          alice,
          message({ from: alice.address, to: eth, nonce: 2n, value: FIL, method: EVM_INVOKE_CONTRACT_METHOD }),
        ),
        signSecp(alice, message({ from: alice.address, to: Address.newId(id), nonce: 3n, value: FIL })),
      ]),
    ]);
    expect(second.receipts.map((r) => r.exitCode)).toEqual([0n, 0n, 0n]);
    const after = loadTree(chain, second.stateRoot);
    expect(after.lookupId(eth)).toBe(id);
    expect(balanceOf(after, eth)).toBe(5n * FIL);
  });

  test('a first transfer to an f410f address with method 3844450837 creates the placeholder as well', async () => {
    const chain = standardGenesis();
    const eth = ethAddress(0xcd);
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([
        signSecp(alice, message({ from: alice.address, to: eth, value: FIL, method: EVM_INVOKE_CONTRACT_METHOD })),
      ]),
    ]);
    expect(result.receipts[0]!.exitCode).toBe(0n);
    const tree = loadTree(chain, result.stateRoot);
    expect(tree.getActor(tree.lookupId(eth)!)!.code.equals(ACTOR_CODES.placeholder)).toBe(true);
  });
});

describe('accounts', () => {
  test('accept any exported method (≥ 2^24) as a plain transfer, refuse other unknown methods', async () => {
    const chain = standardGenesis();
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([
        signSecp(
          alice,
          message({ from: alice.address, to: bob.address, value: FIL, method: EVM_INVOKE_CONTRACT_METHOD }),
        ),
        signSecp(alice, message({ from: alice.address, to: bob.address, nonce: 1n, value: FIL, method: 1n << 24n })),
        signSecp(
          alice,
          message({ from: alice.address, to: bob.address, nonce: 2n, value: FIL, method: (1n << 24n) - 1n }),
        ),
      ]),
    ]);
    expect(result.receipts.map((r) => r.exitCode)).toEqual([0n, 0n, BigInt(ExitCode.UsrUnhandledMessage)]);
    expect(balanceOf(loadTree(chain, result.stateRoot), bob.address)).toBe(12n * FIL);
  });

  test('PubkeyAddress returns the key address', async () => {
    const chain = standardGenesis();
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([
        signSecp(alice, message({ from: alice.address, to: carol.address, method: AccountMethod.PubkeyAddress })),
      ]),
    ]);
    expect(Address.fromBytes(decodeCbor(result.receipts[0]!.return) as Uint8Array).equals(carol.address)).toBe(true);
  });

  test('AuthenticateMessage verifies real secp256k1 and BLS signatures', async () => {
    const chain = standardGenesis();
    const plaintext = new TextEncoder().encode('a deal proposal');
    const auth = (to: Address, signature: Uint8Array, nonce: bigint) =>
      signSecp(
        alice,
        message({
          from: alice.address,
          to,
          nonce,
          method: AccountMethod.AuthenticateMessage,
          params: encodeCbor([signature, plaintext]),
          gasLimit: 50_000_000n,
        }),
      );
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([
        auth(bob.address, secp256k1.sign(bob.privateKey, plaintext), 0n),
        auth(carol.address, bls.sign(carol.privateKey, plaintext), 1n),
        auth(carol.address, bls.sign(keys.worker.privateKey, plaintext), 2n),
        auth(bob.address, secp256k1.sign(alice.privateKey, plaintext), 3n),
      ]),
    ]);
    expect(result.receipts.map((r) => r.exitCode)).toEqual([0n, 0n, 16n, 16n]);
    expect(decodeCbor(result.receipts[0]!.return)).toBe(true);
    expect(result.receipts[1]!.gasUsed - result.receipts[0]!.gasUsed).toBeGreaterThan(10_000_000n);
  });
});

describe('nonces', () => {
  test('consecutive nonces in one tipset all apply; the sender ends at the next nonce', async () => {
    const chain = standardGenesis();
    const messages = [0n, 1n, 2n].map((nonce) =>
      signSecp(alice, message({ from: alice.address, to: bob.address, nonce, value: FIL })),
    );
    const result = await applyAt(chain, chain.genesisRoot, 1n, [block(messages)]);
    expect(result.receipts.map((r) => r.exitCode)).toEqual([0n, 0n, 0n]);
    const tree = loadTree(chain, result.stateRoot);
    expect(tree.getActor(tree.lookupId(alice.address)!)!.nonce).toBe(3n);
  });

  test('a nonce gap is not executed at all; a wrong first nonce fails pre-validation', async () => {
    const chain = standardGenesis();
    const gap = await applyAt(chain, chain.genesisRoot, 1n, [
      block(
        [0n, 2n].map((nonce) => signSecp(alice, message({ from: alice.address, to: bob.address, nonce, value: FIL }))),
      ),
    ]);
    expect(gap.receipts.map((r) => r.exitCode)).toEqual([0n]);
    const wrong = await applyAt(chain, chain.genesisRoot, 1n, [
      block([signSecp(alice, message({ from: alice.address, to: bob.address, nonce: 1n }))]),
    ]);
    expect(wrong.receipts.map((r) => r.exitCode)).toEqual([BigInt(ExitCode.SysSenderStateInvalid)]);
  });

  test('a failed execution still uses the nonce', async () => {
    const chain = standardGenesis();
    const result = await applyAt(chain, chain.genesisRoot, 1n, [
      block([
        signSecp(alice, message({ from: alice.address, to: Address.newId(777777n), value: FIL })),
        signSecp(alice, message({ from: alice.address, to: bob.address, nonce: 1n, value: FIL })),
      ]),
    ]);
    expect(result.receipts.map((r) => r.exitCode)).toEqual([BigInt(ExitCode.SysInvalidReceiver), 0n]);
  });
});

describe('gas of a plain transfer', () => {
  test('equals the FVM formula: OnChainMessage + OnValueTransfer + the receiver’s update', async () => {
    const chain = standardGenesis();
    const signed = signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }));
    const result = await applyAt(chain, chain.genesisRoot, 1n, [block([signed])]);
    const length = BigInt(encodeSignedMessage(signed).length);
    const expected =
      BigInt(PRICES.onChainMessageCompute + PRICES.actorUpdate) +
      BigInt(PRICES.onChainMessageStoragePerByte) * (36n + length) +
      BigInt(PRICES.sendTransferFunds + PRICES.actorUpdate);
    expect(result.receipts[0]!.gasUsed).toBe(expected);
    expect(expected).toBe(1_041_663n + 1300n * length);
  });
});
