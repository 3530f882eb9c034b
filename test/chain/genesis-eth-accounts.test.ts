/**
 * Genesis accounts owned by f410 (Ethereum) addresses: each becomes an EthAccount holding its f410
 * as delegated address and its balance, mapped by Init's address map so the f410 resolves to its ID
 * (as Lotus places its genesis EthAccount, filecoin-project/lotus `chain/gen/genesis/genesis_eth.go`),
 * beside the f1 accounts, which stay accounts.
 */
import { buildGenesis } from '../../src/chain/genesis/index.js';
import { MemoryBlockstore } from '../../src/ipld/index.js';
import { ACTOR_CODES, actorNameOf, EMPTY_STATE_HEAD, StateTree } from '../../src/state/index.js';
import { Address, ETHEREUM_ADDRESS_MANAGER_ACTOR_ID, isEthAddress } from '../../src/types/index.js';
import { fromHex } from '../../src/utils/bytes.js';
import { accountOf, devnetTemplate, FIL, genesisMiner, PARAMS } from '../helpers/genesis.js';
import { blsKey, secpKey } from '../helpers/keys.js';

const alice = secpKey('alice');
const worker = blsKey('worker');
/** Hardhat's first default account, and one more Ethereum address. */
const ETH_A = Address.newDelegated(
  ETHEREUM_ADDRESS_MANAGER_ACTOR_ID,
  fromHex('f39fd6e51aad88f6f4ce6ab8827279cfffb92266'),
);
const ETH_B = Address.newDelegated(
  ETHEREUM_ADDRESS_MANAGER_ACTOR_ID,
  fromHex('70997970c51812dc3a010c7d01b50e0d17dc79c8'),
);

test('f410 owners get EthAccounts with their balances, resolvable through Init', () => {
  const store = new MemoryBlockstore();
  const template = devnetTemplate({
    accounts: [
      accountOf(alice.address, 100n * FIL),
      accountOf(ETH_A, 10_000n * FIL),
      accountOf(ETH_B, 7n * FIL),
      accountOf(worker.address, 1000n * FIL),
    ],
    miners: [genesisMiner(0, worker.address, worker.address, 2)],
  });
  const genesis = buildGenesis(store, template, PARAMS);
  const tree = StateTree.load(store, genesis.stateRoot);

  for (const [address, balance] of [
    [ETH_A, 10_000n * FIL],
    [ETH_B, 7n * FIL],
  ] as const) {
    expect(isEthAddress(address)).toBe(true);
    // A freshly loaded tree resolves through Init's address map.
    const id = tree.lookupId(address);
    expect(id).toBeDefined();
    expect(id!).toBeLessThan(1000n);
    const actor = tree.getActor(id!)!;
    expect(actor.code.equals(ACTOR_CODES.ethaccount)).toBe(true);
    expect(actorNameOf(actor.code)).toBe('ethaccount');
    expect(actor.delegatedAddress?.equals(address)).toBe(true);
    expect(actor.balance).toBe(balance);
    expect(actor.nonce).toBe(0n);
    expect(actor.head.equals(EMPTY_STATE_HEAD)).toBe(true);
  }
  // Template order gives IDs from f0100, Ethereum accounts included.
  expect([alice.address, ETH_A, ETH_B, worker.address].map((a) => tree.lookupId(a))).toEqual([100n, 101n, 102n, 103n]);
  expect(actorNameOf(tree.getActor(100n)!.code)).toBe('account');
});
