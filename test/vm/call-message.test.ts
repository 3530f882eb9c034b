/**
 * Single messages on a state that is not kept (StateCall, gas estimation), and the VM paths only a
 * single unsigned message reaches: an f410 placeholder's first send, and Init.Exec4's caller rule.
 */
import { ACTOR_CODES, StateTree } from '../../src/state/index.js';
import { Address, encodeCbor } from '../../src/types/index.js';
import { blsChainMessage, callMessage, ExitCode, InitMethod, keyAddressOf, Vm } from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { FIL, GENESIS_TIMESTAMP, PARAMS, standardGenesis } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';

const { alice, bob } = keys;
const options = { networkParams: PARAMS, epoch: 1n, timestamp: GENESIS_TIMESTAMP, baseFee: 100n };

describe('callMessage', () => {
  test('an implicit call runs without nonce or fees and changes nothing stored', () => {
    const chain = standardGenesis();
    const size = chain.store.size;
    const { invocResult, stateRoot } = callMessage(
      chain.store,
      chain.genesisRoot,
      message({ from: alice.address, to: bob.address, nonce: 99n, value: FIL }),
      {
        ...options,
        mode: { kind: 'implicit' },
      },
    );
    expect(invocResult.msgRct.exitCode).toBe(0n);
    expect(invocResult.gasCost.totalCost).toBe(0n);
    expect(stateRoot.equals(chain.genesisRoot)).toBe(false);
    expect(chain.store.size).toBe(size);
    expect(invocResult.executionTrace.msg.value).toBe(FIL);
  });

  test('an explicit call is pre-validated and charged like a chain message (gas estimation)', () => {
    const chain = standardGenesis();
    const estimate = callMessage(
      chain.store,
      chain.genesisRoot,
      message({
        from: alice.address,
        to: bob.address,
        value: FIL,
        gasLimit: PARAMS.blockGasLimit,
        gasFeeCap: 0n,
        gasPremium: 0n,
      }),
      {
        ...options,
        mode: { kind: 'explicit', chainLength: 150 },
      },
    );
    expect(estimate.invocResult.msgRct.gasUsed).toBe(1_041_663n + 1300n * 150n);
    const wrongNonce = callMessage(
      chain.store,
      chain.genesisRoot,
      message({ from: alice.address, to: bob.address, nonce: 3n }),
      { ...options, mode: { kind: 'explicit' } },
    );
    expect(wrongNonce.invocResult.msgRct.exitCode).toBe(BigInt(ExitCode.SysSenderStateInvalid));
  });
});

test('a placeholder’s first message turns it into an EthAccount, which may go on sending', async () => {
  const chain = standardGenesis();
  const eth = Address.newDelegated(10n, new Uint8Array(20).fill(0x42));
  const funded = await applyAt(chain, chain.genesisRoot, 1n, [
    block([signSecp(alice, message({ from: alice.address, to: eth, value: 5n * FIL }))]),
  ]);
  const tree = StateTree.load(chain.store, funded.stateRoot);
  const id = tree.lookupId(eth)!;
  expect(tree.getActor(id)!.code.equals(ACTOR_CODES.placeholder)).toBe(true);
  expect(keyAddressOf(tree, Address.newId(id)).equals(eth)).toBe(true);
  const vm = new Vm(tree, { ...options, epoch: 2n, circulatingSupply: 0n, tracing: false });
  const first = vm.applyMessage(blsChainMessage(message({ from: eth, to: bob.address, value: FIL })));
  const second = vm.applyMessage(
    blsChainMessage(message({ from: Address.newId(id), to: bob.address, nonce: 1n, value: FIL })),
  );
  expect([first.receipt.exitCode, second.receipt.exitCode]).toEqual([0n, 0n]);
  expect(tree.getActor(id)!.code.equals(ACTOR_CODES.ethaccount)).toBe(true);
  expect(tree.getActor(id)!.nonce).toBe(2n);
});

test('Init.Exec4 only takes calls from the Ethereum address manager', async () => {
  const chain = standardGenesis();
  const params = encodeCbor([ACTOR_CODES.multisig, new Uint8Array(0), new Uint8Array(20)]);
  const result = await applyAt(chain, chain.genesisRoot, 1n, [
    block([
      signSecp(
        alice,
        message({
          from: alice.address,
          to: Address.newId(1n),
          method: InitMethod.Exec4,
          params,
          gasLimit: 100_000_000n,
        }),
      ),
    ]),
  ]);
  expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.UsrForbidden));
});
