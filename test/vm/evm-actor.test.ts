/**
 * The EAM, Init Exec4 and the EVM actor on the VM: solc-compiled Solidity deployed by an f1 account
 * (EAM CreateExternal) and by an Ethereum account, invoked with InvokeContract (3844450837), events
 * in the receipt's EventsRoot, reverts with their data, calls between contracts, a value transfer
 * from a contract to an f1 address, CREATE2 through the EAM, and the EAM's address rules
 * (builtin-actors `actors/eam/src/lib.rs` test vectors).
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { getCreate2Address, getCreateAddress, Interface } from 'ethers';
import type { CID } from 'multiformats/cid';
import { keccak256 } from '../../src/crypto/index.js';
import { Amt, getBlock } from '../../src/ipld/index.js';
import { ACTOR_CODES, actorNameOf, EMPTY_STATE_HEAD } from '../../src/state/index.js';
import {
  Address,
  decodeCbor,
  encodeCbor,
  ethAddressBytesFromAddress,
  eventStruct,
  type MessageReceipt,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';
import { create2Address, createAddress, eamReturn, isReservedEthAddress } from '../../src/vm/actors/eam.js';
import { evmStateStruct } from '../../src/vm/actors/evm/state.js';
import { closeEvmWorker } from '../../src/vm/evm/interpreter.js';
import { callMessage, decodeU256, EVM_INVOKE_CONTRACT_METHOD, ExitCode, encodeU256 } from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { ethKey, signEth } from '../helpers/eth-keys.js';
import { accountOf, FIL, fundedTemplate, GENESIS_TIMESTAMP, genesisState, PARAMS } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { balanceOf, loadTree } from '../helpers/state.js';
import { COUNTER_CONTRACT, compileSolidity, ERC20_CONTRACT, SOLIDITY_HEADER } from './evm/solidity.js';

afterAll(() => closeEvmWorker());

const SOURCE = `${SOLIDITY_HEADER}${COUNTER_CONTRACT}${ERC20_CONTRACT}
contract Caller {
  function bump(Counter counter) external returns (uint256) { return counter.increment(); }
  function bumpThenFail(Counter counter) external { counter.increment(); revert("caller: undo"); }
  function pay(address payable to) external payable {
    (bool ok, ) = to.call{value: msg.value}("");
    require(ok, "pay failed");
  }
  function deploy(bytes32 salt) external returns (address) { return address(new Counter{salt: salt}()); }
  function tryBurn(address burner) external returns (bool ok) {
    (ok, ) = burner.call{gas: 200000000}(abi.encodeWithSignature("burn()"));
  }
  function staticIncrement(address counter) external view returns (bool ok) {
    (ok, ) = counter.staticcall(abi.encodeWithSignature("increment()"));
  }
}

contract Edges {
  event Big(bytes data);
  function bigLog() external { emit Big(new bytes(9000)); }
  function die(address payable to) external { selfdestruct(to); }
  function handle_filecoin_method(uint64 method, uint64 codec, bytes calldata params)
      external pure returns (uint32, uint64, bytes memory) {
    require(method == 1025 && codec == 0x51, "unexpected method");
    return (0, 0x51, params);
  }
  receive() external payable {}
}

contract Transient {
  uint256 transient counter;
  function bump() external returns (uint256) { counter += 1; return this.peek(); }
  function peek() external view returns (uint256) { return counter; }
}

contract Burner {
  function burn() external pure { while (true) {} }
}

contract Fevm {
  address constant RESOLVE = address(uint160(0xfe) << 152 | uint160(1));
  address constant LOOKUP = address(uint160(0xfe) << 152 | uint160(2));
  address constant CALL_ACTOR_ID = address(uint160(0xfe) << 152 | uint160(5));
  function resolve(bytes calldata filAddress) external view returns (bool ok, bytes memory out) {
    (ok, out) = RESOLVE.staticcall(filAddress);
  }
  function lookup(uint64 id) external view returns (bool ok, bytes memory out) {
    (ok, out) = LOOKUP.staticcall(abi.encode(uint256(id)));
  }
  function sendById(uint64 id) external payable returns (bool ok, bytes memory out) {
    (ok, out) = CALL_ACTOR_ID.delegatecall(abi.encode(uint64(0), msg.value, uint64(0), uint64(0), bytes(""), id));
  }
}
`;

const contracts = compileSolidity(SOURCE);
const counterAbi = new Interface(contracts.Counter!.abi as never);
const tokenAbi = new Interface(contracts.Token!.abi as never);
const callerAbi = new Interface(contracts.Caller!.abi as never);
const edgesAbi = new Interface(contracts.Edges!.abi as never);
const fevmAbi = new Interface(contracts.Fevm!.abi as never);

const { alice } = keys;
const eth = ethKey('deployer');
const GAS = 3_000_000_000n;

interface Chain {
  store: ReturnType<typeof genesisState>['store'];
  root: CID;
  epoch: bigint;
  aliceNonce: bigint;
}

function newChain(): Chain {
  const { store, genesisRoot } = genesisState(fundedTemplate([accountOf(eth.address, 1000n * FIL)]));
  return { store, root: genesisRoot, epoch: 0n, aliceNonce: 0n };
}

/** Applies one message from alice in its own tipset; returns its receipt. */
async function send(
  chain: Chain,
  to: Address,
  method: bigint,
  params: Uint8Array,
  value = 0n,
  trace = false,
): Promise<{ receipt: MessageReceipt; trace: unknown }> {
  chain.epoch++;
  const signed = signSecp(
    alice,
    message({ from: alice.address, to, method, params, value, nonce: chain.aliceNonce++, gasLimit: GAS }),
  );
  const applied = await applyAt(chain, chain.root, chain.epoch, [block([signed])], { trace });
  chain.root = applied.stateRoot;
  const ours = applied.invocResults.find((result) => result.msg.from.equals(alice.address));
  return { receipt: applied.receipts[0]!, trace: ours?.executionTrace };
}

const EAM = Address.newId(10n);

async function deployExternal(chain: Chain, initcode: Uint8Array, value = 0n) {
  const { receipt } = await send(chain, EAM, 4n, encodeCbor(initcode), value);
  expect(receipt.exitCode).toBe(0n);
  const created = eamReturn.decode(receipt.return);
  return { ...created, address: Address.newDelegated(10n, created.ethAddress) };
}

function invoke(chain: Chain, to: Address, calldata: string, value = 0n, trace = false) {
  return send(chain, to, EVM_INVOKE_CONTRACT_METHOD, encodeCbor(fromHex(calldata.slice(2))), value, trace);
}

/** The bytes of the CBOR byte string an InvokeContract returns. */
function returned(receipt: MessageReceipt): string {
  return `0x${toHex(decodeCbor(receipt.return) as Uint8Array)}`;
}

function eventsOf(chain: Chain, receipt: MessageReceipt) {
  expect(receipt.eventsRoot).not.toBeNull();
  return [...Amt.load(chain.store, receipt.eventsRoot!).entries()].map(([, value]) =>
    eventStruct.fromCborNode(value as never, 'event'),
  );
}

describe('EAM address rules (builtin-actors eam tests)', () => {
  test('CREATE and CREATE2 addresses match builtin-actors and ethers', () => {
    const vectors: Array<[number, bigint, string]> = [
      [0, 0n, 'bd770416a3345f91e4b34576cb804a576fa48eb1'],
      [0, 200n, 'a6b14387c1356b443061155e9c3e17f72c1777e5'],
      [123, 12345n, '809a9ab0471e78ee5100e96ca4d0828d1b97e2ba'],
    ];
    for (const [fill, nonce, expected] of vectors) {
      const from = new Uint8Array(20).fill(fill);
      expect(toHex(createAddress(keccak256, from, nonce))).toBe(expected);
      expect(getCreateAddress({ from: `0x${toHex(from)}`, nonce }).toLowerCase()).toBe(`0x${expected}`);
    }
    expect(toHex(create2Address(keccak256, new Uint8Array(20), new Uint8Array(32), new Uint8Array(0)))).toBe(
      'e33c0c7f7df4809055c3eba6c09cfe4baf1bd9e0',
    );
    const foobar = new TextEncoder().encode('foobar');
    const salt = new Uint8Array(32).fill(0x42);
    const from = new Uint8Array(20).fill(0x99);
    expect(toHex(create2Address(keccak256, from, salt, foobar))).toBe('64425c93a90901271fa355c2bc462190803b97d4');
    expect(
      getCreate2Address(`0x${toHex(from)}`, `0x${toHex(salt)}`, `0x${toHex(keccak256(foobar))}`).toLowerCase(),
    ).toBe('0x64425c93a90901271fa355c2bc462190803b97d4');
  });

  test('reserved addresses: null, masked IDs and the precompile ranges', () => {
    const at = (hex: string) => fromHex(hex);
    expect(isReservedEthAddress(new Uint8Array(20))).toBe(true);
    expect(isReservedEthAddress(at('ff00000000000000000000000000000000002020'))).toBe(true);
    expect(isReservedEthAddress(at('0000000000000000000000000000000000000020'))).toBe(true);
    expect(isReservedEthAddress(at('fe00000000000000000000000000000000000020'))).toBe(true);
    expect(isReservedEthAddress(at('0100000000000000000000000000000000000020'))).toBe(false);
  });
});

describe('contracts on the VM', () => {
  test('genesis holds the EAM at f010 with empty state', () => {
    const chain = newChain();
    const eam = loadTree(chain, chain.root).getActor(10n)!;
    expect(eam.code.equals(ACTOR_CODES.eam)).toBe(true);
    expect(eam.head.equals(EMPTY_STATE_HEAD)).toBe(true);
  });

  test('an f1 account deploys a counter (CreateExternal), invokes it, and reads its events', async () => {
    const chain = newChain();
    const counter = await deployExternal(chain, contracts.Counter!.bytecode);
    const tree = loadTree(chain, chain.root);
    const actor = tree.getActor(counter.actorId)!;
    expect(actorNameOf(actor.code)).toBe('evm');
    expect(actor.delegatedAddress?.equals(counter.address)).toBe(true);
    expect(tree.lookupId(counter.robustAddress!)).toBe(counter.actorId);
    // CreateExternal from an f1: keccak(rlp([keccak(f1 bytes)[12:], nonce 0]))[12:].
    const stable = keccak256(alice.address.bytes).subarray(12);
    expect(toHex(counter.ethAddress)).toBe(toHex(createAddress(keccak256, stable, 0n)));

    const stateBytes = getBlock(chain.store, actor.head);
    const state = evmStateStruct.decode(stateBytes);
    expect(Buffer.from(evmStateStruct.encode(state)).equals(Buffer.from(stateBytes))).toBe(true);
    expect(state.nonce).toBe(1n);
    expect(state.tombstone).toBeNull();
    const code = getBlock(chain.store, state.bytecode);
    expect(toHex(state.bytecodeHash)).toBe(toHex(keccak256(code)));

    const first = await invoke(chain, counter.address, counterAbi.encodeFunctionData('increment'));
    expect(first.receipt.exitCode).toBe(0n);
    expect(counterAbi.decodeFunctionResult('increment', returned(first.receipt))[0]).toBe(1n);
    const second = await invoke(chain, counter.address, counterAbi.encodeFunctionData('increment'));
    expect(counterAbi.decodeFunctionResult('increment', returned(second.receipt))[0]).toBe(2n);

    const [event] = eventsOf(chain, second.receipt);
    expect(event!.emitter).toBe(counter.actorId);
    expect(event!.entries.map((entry) => [entry.key, entry.flags, entry.codec])).toEqual([
      ['t1', 3n, 0x55n],
      ['t2', 3n, 0x55n],
      ['d', 3n, 0x55n],
    ]);
    const log = counterAbi.parseLog({
      topics: event!.entries.filter((e) => e.key !== 'd').map((e) => `0x${toHex(e.value)}`),
      data: `0x${toHex(event!.entries.find((e) => e.key === 'd')!.value)}`,
    });
    expect(log?.name).toBe('Incremented');
    // msg.sender of an f1 account is its masked ID.
    const aliceId = tree.lookupId(alice.address)!;
    expect(log?.args[0].toLowerCase()).toBe(`0x${toHex(ethAddressBytesFromAddress(Address.newId(aliceId)))}`);
    expect(log?.args[1]).toBe(2n);

    const count = await invoke(chain, counter.address, counterAbi.encodeFunctionData('count'));
    expect(count.receipt.eventsRoot).toBeNull();
    expect(counterAbi.decodeFunctionResult('count', returned(count.receipt))[0]).toBe(2n);
  });

  test('a revert exits 33 with the revert data; its events and writes are dropped', async () => {
    const chain = newChain();
    const counter = await deployExternal(chain, contracts.Counter!.bytecode);
    const caller = await deployExternal(chain, contracts.Caller!.bytecode);
    const failed = await invoke(chain, counter.address, counterAbi.encodeFunctionData('fail'));
    expect(failed.receipt.exitCode).toBe(33n);
    expect(counterAbi.parseError(returned(failed.receipt))?.args[0]).toBe('counter: nope');
    expect(failed.receipt.eventsRoot).toBeNull();

    const undone = await invoke(
      chain,
      caller.address,
      callerAbi.encodeFunctionData('bumpThenFail', [`0x${toHex(counter.ethAddress)}`]),
    );
    expect(undone.receipt.exitCode).toBe(33n);
    expect(undone.receipt.eventsRoot).toBeNull();
    const count = await invoke(chain, counter.address, counterAbi.encodeFunctionData('count'));
    expect(counterAbi.decodeFunctionResult('count', returned(count.receipt))[0]).toBe(0n);
  });

  test('a contract calls another; an ERC-20 from an Ethereum account moves balances and logs Transfer', async () => {
    const chain = newChain();
    const counter = await deployExternal(chain, contracts.Counter!.bytecode);
    const caller = await deployExternal(chain, contracts.Caller!.bytecode);
    const bumped = await invoke(
      chain,
      caller.address,
      callerAbi.encodeFunctionData('bump', [`0x${toHex(counter.ethAddress)}`]),
    );
    expect(bumped.receipt.exitCode).toBe(0n);
    expect(callerAbi.decodeFunctionResult('bump', returned(bumped.receipt))[0]).toBe(1n);
    const [event] = eventsOf(chain, bumped.receipt);
    expect(event!.emitter).toBe(counter.actorId);

    // The Ethereum account deploys the token: CreateExternal signed as an EIP-1559 contract creation.
    const initcode = new Uint8Array([
      ...contracts.Token!.bytecode,
      ...fromHex(tokenAbi.encodeDeploy([1000n]).slice(2)),
    ]);
    chain.epoch++;
    const deploy = signEth(eth, {
      from: eth.address,
      to: EAM,
      nonce: 0n,
      value: 0n,
      gasLimit: GAS,
      gasFeeCap: 1_000_000_000n,
      gasPremium: 100_000n,
      method: 4n,
      params: encodeCbor(initcode),
    });
    const applied = await applyAt(chain, chain.root, chain.epoch, [block([deploy])]);
    chain.root = applied.stateRoot;
    expect(applied.receipts[0]!.exitCode).toBe(0n);
    const token = eamReturn.decode(applied.receipts[0]!.return);
    const ethHex = `0x${toHex(eth.address.delegated().subaddress)}`;
    expect(`0x${toHex(token.ethAddress)}`).toBe(getCreateAddress({ from: ethHex, nonce: 0n }).toLowerCase());

    chain.epoch++;
    const recipient = `0x${'42'.repeat(20)}`;
    const transfer = signEth(eth, {
      from: eth.address,
      to: Address.newDelegated(10n, token.ethAddress),
      nonce: 1n,
      value: 0n,
      gasLimit: GAS,
      gasFeeCap: 1_000_000_000n,
      gasPremium: 100_000n,
      method: EVM_INVOKE_CONTRACT_METHOD,
      params: encodeCbor(fromHex(tokenAbi.encodeFunctionData('transfer', [recipient, 250n]).slice(2))),
    });
    const moved = await applyAt(chain, chain.root, chain.epoch, [block([transfer])]);
    chain.root = moved.stateRoot;
    expect(moved.receipts[0]!.exitCode).toBe(0n);
    const [log] = eventsOf(chain, moved.receipts[0]!);
    const parsed = tokenAbi.parseLog({
      topics: log!.entries.filter((e) => e.key !== 'd').map((e) => `0x${toHex(e.value)}`),
      data: `0x${toHex(log!.entries.find((e) => e.key === 'd')!.value)}`,
    });
    expect([parsed?.name, parsed?.args[0].toLowerCase(), parsed?.args[1].toLowerCase(), parsed?.args[2]]).toEqual([
      'Transfer',
      ethHex,
      recipient,
      250n,
    ]);
    const balance = await invoke(
      chain,
      Address.newDelegated(10n, token.ethAddress),
      tokenAbi.encodeFunctionData('balanceOf', [recipient]),
    );
    expect(tokenAbi.decodeFunctionResult('balanceOf', returned(balance.receipt))[0]).toBe(250n);
  });

  test('a contract pays an f1 address: the transfer is a value-carrying trace entry', async () => {
    const chain = newChain();
    const caller = await deployExternal(chain, contracts.Caller!.bytecode);
    const bob = keys.bob.address;
    const bobId = loadTree(chain, chain.root).lookupId(bob)!;
    const before = balanceOf(loadTree(chain, chain.root), bob);
    const masked = `0x${toHex(ethAddressBytesFromAddress(Address.newId(bobId)))}`;
    const paid = await invoke(chain, caller.address, callerAbi.encodeFunctionData('pay', [masked]), 5n * FIL, true);
    expect(paid.receipt.exitCode).toBe(0n);
    expect(balanceOf(loadTree(chain, chain.root), bob) - before).toBe(5n * FIL);
    const trace = paid.trace as { subcalls: Array<{ msg: { to: Address; value: bigint; method: bigint } }> };
    const toBob = trace.subcalls.find((sub) => sub.msg.to.equals(Address.newId(bobId)));
    expect(toBob?.msg.value).toBe(5n * FIL);
    expect(toBob?.msg.method).toBe(EVM_INVOKE_CONTRACT_METHOD);
  });

  test('CREATE2 through the EAM gives the address Ethereum computes', async () => {
    const chain = newChain();
    const caller = await deployExternal(chain, contracts.Caller!.bytecode);
    const salt = `0x${'07'.repeat(32)}`;
    const made = await invoke(chain, caller.address, callerAbi.encodeFunctionData('deploy', [salt]));
    expect(made.receipt.exitCode).toBe(0n);
    const child = callerAbi.decodeFunctionResult('deploy', returned(made.receipt))[0] as string;
    const expected = getCreate2Address(
      `0x${toHex(caller.ethAddress)}`,
      salt,
      `0x${toHex(keccak256(contracts.Counter!.bytecode))}`,
    );
    expect(child.toLowerCase()).toBe(expected.toLowerCase());
    const tree = loadTree(chain, chain.root);
    const id = tree.lookupId(Address.newDelegated(10n, fromHex(child.slice(2))))!;
    expect(actorNameOf(tree.getActor(id)!.code)).toBe('evm');
    const parent = evmStateStruct.decode(getBlock(chain.store, tree.getActor(caller.actorId)!.head));
    expect(parent.nonce).toBe(2n);
  });

  test('deploying to a pre-funded placeholder keeps its funds and ID', async () => {
    const chain = newChain();
    const stable = keccak256(alice.address.bytes).subarray(12);
    // Alice's next message has nonce 1: that deployment's address, funded first by nonce 0.
    const future = Address.newDelegated(10n, createAddress(keccak256, stable, 1n));
    const funded = await send(chain, future, 0n, new Uint8Array(0), 7n * FIL);
    expect(funded.receipt.exitCode).toBe(0n);
    const placeholderId = loadTree(chain, chain.root).lookupId(future)!;
    const counter = await deployExternal(chain, contracts.Counter!.bytecode);
    expect(counter.actorId).toBe(placeholderId);
    const actor = loadTree(chain, chain.root).getActor(placeholderId)!;
    expect(actorNameOf(actor.code)).toBe('evm');
    expect(actor.balance).toBe(7n * FIL);
  });

  test('methods: GetStorageAt only for the system actor, reserved numbers unhandled', async () => {
    const chain = newChain();
    const counter = await deployExternal(chain, contracts.Counter!.bytecode);
    const storage = await send(chain, counter.address, 5n, encodeCbor([new Uint8Array(0)]));
    expect(storage.receipt.exitCode).toBe(BigInt(ExitCode.UsrForbidden));
    const reserved = await send(chain, counter.address, 100n, new Uint8Array(0));
    expect(reserved.receipt.exitCode).toBe(BigInt(ExitCode.UsrUnhandledMessage));
    const hash = await send(chain, counter.address, 4n, new Uint8Array(0));
    expect(hash.receipt.exitCode).toBe(0n);
    const code = await send(chain, counter.address, 3n, new Uint8Array(0));
    const codeCid = decodeCbor(code.receipt.return) as CID;
    expect(toHex(decodeCbor(hash.receipt.return) as Uint8Array)).toBe(toHex(keccak256(getBlock(chain.store, codeCid))));
  });

  test('a STATICCALL cannot write: the callee fails read-only and the caller sees false', async () => {
    const chain = newChain();
    const counter = await deployExternal(chain, contracts.Counter!.bytecode);
    const caller = await deployExternal(chain, contracts.Caller!.bytecode);
    const target = `0x${toHex(counter.ethAddress)}`;
    const result = await invoke(
      chain,
      caller.address,
      callerAbi.encodeFunctionData('staticIncrement', [target]),
      0n,
      true,
    );
    expect(result.receipt.exitCode).toBe(0n);
    expect(callerAbi.decodeFunctionResult('staticIncrement', returned(result.receipt))[0]).toBe(false);
    const trace = result.trace as { subcalls: Array<{ msg: { readOnly: boolean }; msgRct: { exitCode: number } }> };
    const readOnly = trace.subcalls.find((sub) => sub.msg.readOnly);
    expect(readOnly?.msgRct.exitCode).toBe(ExitCode.UsrReadOnly);
  });

  test('an event over the FVM limits (8 KiB of values) fails the call with USR_ASSERTION_FAILED', async () => {
    const chain = newChain();
    const edges = await deployExternal(chain, contracts.Edges!.bytecode);
    const result = await invoke(chain, edges.address, edgesAbi.encodeFunctionData('bigLog'));
    expect(result.receipt.exitCode).toBe(BigInt(ExitCode.UsrAssertionFailed));
    expect(result.receipt.eventsRoot).toBeNull();
  });

  test('SELFDESTRUCT pays the beneficiary and leaves a dead contract after the message', async () => {
    const chain = newChain();
    const edges = await deployExternal(chain, contracts.Edges!.bytecode);
    expect((await invoke(chain, edges.address, '0x', 3n * FIL)).receipt.exitCode).toBe(0n);
    const bobId = loadTree(chain, chain.root).lookupId(keys.bob.address)!;
    const before = balanceOf(loadTree(chain, chain.root), keys.bob.address);
    const masked = `0x${toHex(ethAddressBytesFromAddress(Address.newId(bobId)))}`;
    const died = await invoke(chain, edges.address, edgesAbi.encodeFunctionData('die', [masked]));
    expect(died.receipt.exitCode).toBe(0n);
    expect(balanceOf(loadTree(chain, chain.root), keys.bob.address) - before).toBe(3n * FIL);
    const code = await send(chain, edges.address, 3n, new Uint8Array(0));
    expect(decodeCbor(code.receipt.return)).toBeNull();
    const hash = await send(chain, edges.address, 4n, new Uint8Array(0));
    expect(toHex(decodeCbor(hash.receipt.return) as Uint8Array)).toBe(toHex(keccak256(new Uint8Array(0))));
  });

  test('a Filecoin method (≥ 1024) runs handle_filecoin_method with the CBOR params', async () => {
    const chain = newChain();
    const edges = await deployExternal(chain, contracts.Edges!.bytecode);
    const params = encodeCbor(['hello', 42n]);
    const result = await send(chain, edges.address, 1025n, params);
    expect(result.receipt.exitCode).toBe(0n);
    expect(toHex(result.receipt.return)).toBe(toHex(params));
    const refused = await send(chain, edges.address, 1026n, params);
    expect(refused.receipt.exitCode).toBe(33n);
  });

  test('the FEVM precompiles: resolve an address, look up an f4 address, call an actor by ID', async () => {
    const chain = newChain();
    const fevm = await deployExternal(chain, contracts.Fevm!.bytecode);
    const tree = loadTree(chain, chain.root);
    const aliceId = tree.lookupId(alice.address)!;
    const bobId = tree.lookupId(keys.bob.address)!;

    const resolved = await invoke(chain, fevm.address, fevmAbi.encodeFunctionData('resolve', [alice.address.bytes]));
    const [ok, out] = fevmAbi.decodeFunctionResult('resolve', returned(resolved.receipt));
    expect([ok, BigInt(out)]).toEqual([true, aliceId]);

    const looked = await invoke(chain, fevm.address, fevmAbi.encodeFunctionData('lookup', [fevm.actorId]));
    const [found, f4] = fevmAbi.decodeFunctionResult('lookup', returned(looked.receipt));
    expect(found).toBe(true);
    expect(f4).toBe(`0x${toHex(fevm.address.bytes)}`);

    const before = balanceOf(loadTree(chain, chain.root), keys.bob.address);
    const sent = await invoke(chain, fevm.address, fevmAbi.encodeFunctionData('sendById', [bobId]), 2n * FIL);
    expect(sent.receipt.exitCode).toBe(0n);
    const [called, answer] = fevmAbi.decodeFunctionResult('sendById', returned(sent.receipt));
    expect(called).toBe(true);
    // (int256 exit, uint64 codec, bytes data): exit 0, no data.
    expect(BigInt(answer.slice(0, 66))).toBe(0n);
    expect(balanceOf(loadTree(chain, chain.root), keys.bob.address) - before).toBe(2n * FIL);
  });

  test('GetStorageAt answers the system actor, as Lotus asks it (a call from f00)', async () => {
    const chain = newChain();
    const counter = await deployExternal(chain, contracts.Counter!.bytecode);
    await invoke(chain, counter.address, counterAbi.encodeFunctionData('increment'));
    const ask = (key: bigint) =>
      callMessage(
        chain.store,
        chain.root,
        message({
          from: Address.newId(0n),
          to: counter.address,
          method: 5n,
          params: encodeCbor([encodeU256Bytes(key)]),
        }),
        {
          networkParams: PARAMS,
          epoch: chain.epoch,
          timestamp: GENESIS_TIMESTAMP,
          baseFee: PARAMS.minimumBaseFee,
          mode: { kind: 'implicit' },
        },
      ).invocResult.msgRct;
    const slot0 = ask(0n);
    expect(slot0.exitCode).toBe(0n);
    expect(decodeU256(slot0.return)).toBe(1n);
    expect(decodeU256(ask(1n).return)).toBe(0n);
  });

  test('a call out of its own gas fails alone (SYS_OUT_OF_GAS); the caller goes on', async () => {
    const chain = newChain();
    const burner = await deployExternal(chain, contracts.Burner!.bytecode);
    const caller = await deployExternal(chain, contracts.Caller!.bytecode);
    const target = `0x${toHex(burner.ethAddress)}`;
    const result = await invoke(chain, caller.address, callerAbi.encodeFunctionData('tryBurn', [target]), 0n, true);
    expect(result.receipt.exitCode).toBe(0n);
    expect(callerAbi.decodeFunctionResult('tryBurn', returned(result.receipt))[0]).toBe(false);
    expect(result.receipt.gasUsed).toBeGreaterThan(200_000_000n);
    expect(result.receipt.gasUsed).toBeLessThan(GAS / 2n);
    const trace = result.trace as { subcalls: Array<{ msg: { to: Address }; msgRct: { exitCode: number } }> };
    const burned = trace.subcalls.find((sub) => sub.msg.to.equals(burner.address));
    expect(burned?.msgRct.exitCode).toBe(ExitCode.SysOutOfGas);
  });

  test('transient storage lives for the message: a re-entrant call sees it, the next message does not', async () => {
    const chain = newChain();
    const transient = await deployExternal(chain, contracts.Transient!.bytecode);
    const abi = new Interface(contracts.Transient!.abi as never);
    for (let i = 0; i < 2; i++) {
      const bumped = await invoke(chain, transient.address, abi.encodeFunctionData('bump'));
      expect(bumped.receipt.exitCode).toBe(0n);
      expect(abi.decodeFunctionResult('bump', returned(bumped.receipt))[0]).toBe(1n);
    }
  });
});

/** A U256 key as GetStorageAtParams holds it: its minimal big-endian bytes. */
function encodeU256Bytes(value: bigint): Uint8Array {
  return decodeCbor(encodeU256(value)) as Uint8Array;
}
