/**
 * The EVM bridge (src/vm/evm/interpreter.ts): solc-compiled Solidity run through `runEvm` in the
 * worker over a Map-backed host, FEVM's opcode differences and exit codes (builtin-actors
 * `actors/evm/src/lib.rs`: 33 reverted … 39 bad jump), and a dead worker failing the run.
 */

import { generateAddress2 } from '@ethereumjs/util';
import { afterAll, describe, expect, test } from '@jest/globals';
import { Interface } from 'ethers';
import { keccak256 } from '../../../src/crypto/index.js';
import { toHex } from '../../../src/utils/bytes.js';
import { ActorError, OutOfGasError } from '../../../src/vm/errors.js';
import { EvmBridge, EvmBridgeError, runEvm } from '../../../src/vm/evm/interpreter.js';
import type { EvmOutcome } from '../../../src/vm/evm/types.js';
import { address, CHAIN_ID, MapWorld } from './map-host.js';
import { COUNTER_CONTRACT, compileSolidity, ERC20_CONTRACT, SOLIDITY_HEADER } from './solidity.js';

const SOURCE = `
${SOLIDITY_HEADER}
${COUNTER_CONTRACT}
${ERC20_CONTRACT}
contract Caller {
  event Before();
  event After(uint256 count);
  function bump(Counter counter) external returns (uint256) {
    emit Before();
    uint256 count = counter.increment();
    emit After(count);
    return count;
  }
  function bumpThenFail(Counter counter) external {
    counter.increment();
    revert("caller: undo");
  }
  function pay(address payable to) external payable { to.transfer(msg.value); }
  function hash(bytes calldata data) external pure returns (bytes32) { return sha256(data); }
}

contract A {
  uint256 public pongs;
  function start(B b) external returns (uint256 before, uint256 later) {
    before = pongs;
    b.ping();
    later = pongs;
  }
  function pong() external { pongs += 1; }
}
contract B {
  function ping() external { A(msg.sender).pong(); }
}

contract Factory {
  function deploy(bytes32 salt) external returns (address) { return address(new Counter{salt: salt}()); }
}

contract Raw {
  function callRaw(address target, bytes calldata input) external returns (bool ok, bytes memory out) {
    (ok, out) = target.call(input);
  }
  function callRawValue(address target, bytes calldata input) external payable returns (bool ok, bytes memory out) {
    (ok, out) = target.call{value: msg.value}(input);
  }
  function delegateRaw(address target, bytes calldata input) external returns (bool ok, bytes memory out) {
    (ok, out) = target.delegatecall(input);
  }
  function inspect(address a) external view returns (uint256 size, bytes32 hash, uint256 bal, uint256 selfBalance,
      bytes32 parentHash, uint256 gasLeft) {
    return (a.code.length, a.codehash, a.balance, address(this).balance, blockhash(block.number - 1), gasleft());
  }
  function destroy(address payable to) external returns (uint256) {
    selfdestruct(to);
    return 1;
  }
}

contract Deep {
  function dive(uint256 depth) external returns (uint256 levels) {
    bytes memory big = new bytes(1_000_000);
    big[0] = 0x01;
    if (depth == 0) return 1;
    (bool ok, bytes memory ret) = address(this).call(abi.encodeCall(this.dive, (depth - 1)));
    return ok ? 1 + abi.decode(ret, (uint256)) : 1;
  }
}

contract Transient {
  function roundTrip(uint256 value) external returns (uint256 read) {
    assembly { tstore(7, value) read := tload(7) }
  }
}
`;

const contracts = compileSolidity(SOURCE);
const abi = (name: string) => new Interface(contracts[name]!.abi as never);
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
const encode = (name: string, fn: string, args: unknown[] = []) => bytes(abi(name).encodeFunctionData(fn, args));
const decode = (name: string, fn: string, outcome: EvmOutcome) => {
  if (outcome.status !== 'success') throw new Error(`${fn}: ${JSON.stringify(outcome)}`);
  return abi(name).decodeFunctionResult(fn, outcome.output);
};
const hex0x = (at: Uint8Array) => `0x${toHex(at)}`;

const bridge = new EvmBridge();
afterAll(() => bridge.close());

function world(): MapWorld {
  return new MapWorld(bridge);
}

function deploy(w: MapWorld, name: string, args: unknown[] = []): Uint8Array {
  const constructorArgs = bytes(abi(name).encodeDeploy(args));
  return w.deploy(Uint8Array.from([...contracts[name]!.bytecode, ...constructorArgs]));
}

describe('runEvm with solc-compiled contracts', () => {
  test('a counter keeps its count in storage (SLOAD/SSTORE) and emits events through host.log', () => {
    const w = world();
    const counter = deploy(w, 'Counter');
    expect(decode('Counter', 'increment', w.call(counter, encode('Counter', 'increment')))[0]).toBe(1n);
    expect(decode('Counter', 'increment', w.call(counter, encode('Counter', 'increment')))[0]).toBe(2n);
    expect(w.contract(counter)!.storage.get(0n)).toBe(2n);
    expect(decode('Counter', 'count', w.call(counter, encode('Counter', 'count')))[0]).toBe(2n);
    expect(w.events).toHaveLength(2);
    const parsed = abi('Counter').parseLog({
      topics: w.events[1]!.topics.map((t) => `0x${t}`),
      data: hex0x(w.events[1]!.data),
    });
    expect(parsed?.name).toBe('Incremented');
    expect(String(parsed?.args[0]).toLowerCase()).toBe(hex0x(address(0xee)));
    expect(parsed?.args[1]).toBe(2n);
  });

  test('an ERC-20 transfer moves balances and emits Transfer; an overdraft reverts with its reason', () => {
    const w = world();
    const token = deploy(w, 'Token', [1000n]);
    const alice = address(0xee);
    const bob = address(0xb0);
    const ok = w.call(token, encode('Token', 'transfer', [hex0x(bob), 300n]), { from: alice });
    expect(decode('Token', 'transfer', ok)[0]).toBe(true);
    expect(decode('Token', 'balanceOf', w.call(token, encode('Token', 'balanceOf', [hex0x(alice)])))[0]).toBe(700n);
    expect(decode('Token', 'balanceOf', w.call(token, encode('Token', 'balanceOf', [hex0x(bob)])))[0]).toBe(300n);
    expect(
      w.events.map((e) => abi('Token').parseLog({ topics: e.topics.map((t) => `0x${t}`), data: hex0x(e.data) })?.name),
    ).toEqual(['Transfer']);

    const overdraft = w.call(token, encode('Token', 'transfer', [hex0x(alice), 301n]), { from: bob });
    expect(overdraft.status).toBe('revert');
    expect(abi('Token').parseError(hex0x((overdraft as { output: Uint8Array }).output))?.args[0]).toBe(
      'insufficient balance',
    );
    expect(w.events).toHaveLength(1);
  });

  test('revert("reason") is status revert with the ABI Error(string) data, and no events', () => {
    const w = world();
    const counter = deploy(w, 'Counter');
    const outcome = w.call(counter, encode('Counter', 'fail'));
    expect(outcome.status).toBe('revert');
    const output = (outcome as { output: Uint8Array }).output;
    expect(toHex(output.subarray(0, 4))).toBe('08c379a0');
    expect(abi('Counter').parseError(hex0x(output))?.args[0]).toBe('counter: nope');
  });

  test('a contract calls another through host.call, which runs runEvm recursively; events keep their order', () => {
    const w = world();
    const counter = deploy(w, 'Counter');
    const caller = deploy(w, 'Caller');
    expect(decode('Caller', 'bump', w.call(caller, encode('Caller', 'bump', [hex0x(counter)])))[0]).toBe(1n);
    expect(w.contract(counter)!.storage.get(0n)).toBe(1n);
    // Before (caller), Incremented (counter, during the nested call), After (caller).
    expect(w.events.map((e) => e.address)).toEqual([toHex(caller), toHex(counter), toHex(caller)]);
    expect(w.calls.map((c) => c.kind)).toEqual(['call']);

    // The caller reverting after a successful nested call undoes it (the host's transaction).
    const failed = w.call(caller, encode('Caller', 'bumpThenFail', [hex0x(counter)]));
    expect(failed.status).toBe('revert');
    expect(w.contract(counter)!.storage.get(0n)).toBe(1n);
    expect(w.events).toHaveLength(3);
  });

  test('re-entrancy A → B → A: the inner run of A starts while the outer run of A waits', () => {
    const w = world();
    const a = deploy(w, 'A');
    const b = deploy(w, 'B');
    // A reads its slot, B re-enters A and changes it, A reads it again: it sees the new value.
    expect([...decode('A', 'start', w.call(a, encode('A', 'start', [hex0x(b)])))]).toEqual([0n, 1n]);
    expect([...decode('A', 'start', w.call(a, encode('A', 'start', [hex0x(b)])))]).toEqual([1n, 2n]);
    expect(w.contract(a)!.storage.get(0n)).toBe(2n);
  });

  test('CREATE2 goes through host.create with the salt; the new contract runs', () => {
    const w = world();
    const factory = deploy(w, 'Factory');
    const salt = `0x${'ab'.repeat(32)}`;
    const created = decode('Factory', 'deploy', w.call(factory, encode('Factory', 'deploy', [salt])))[0] as string;
    const expected = `0x${toHex(generateAddress2(factory, bytes(salt), contracts.Counter!.bytecode))}`;
    expect(created.toLowerCase()).toBe(expected);
    const counter = bytes(created);
    expect(decode('Counter', 'increment', w.call(counter, encode('Counter', 'increment')))[0]).toBe(1n);
  });

  test('TSTORE/TLOAD go to host.transient*', () => {
    const w = world();
    const transient = deploy(w, 'Transient');
    expect(decode('Transient', 'roundTrip', w.call(transient, encode('Transient', 'roundTrip', [99n])))[0]).toBe(99n);
    expect(w.transient.get(toHex(transient))?.get(7n)).toBe(99n);
  });

  test('block properties come from the context: CHAINID, NUMBER, TIMESTAMP, COINBASE 0, GASLIMIT 10e9 …', () => {
    const w = world();
    const counter = deploy(w, 'Counter');
    const env = decode('Counter', 'env', w.call(counter, encode('Counter', 'env')));
    expect([...env]).toEqual([
      CHAIN_ID,
      1000n,
      1_700_000_000n,
      '0x0000000000000000000000000000000000000000',
      10_000_000_000n,
      100n,
      150n,
      BigInt(`0x${'42'.repeat(32)}`),
    ]);
  });

  test("FEVM's stipend rule: transfer's gas 0 with value becomes 10,000,000; sha256 runs as a precompile", () => {
    const w = world();
    const caller = deploy(w, 'Caller');
    w.call(caller, encode('Caller', 'pay', [hex0x(address(0xb0))]), { value: 5n });
    expect(w.calls).toEqual([
      expect.objectContaining({ kind: 'call', to: address(0xb0), value: 5n, gas: 10_000_000n }),
    ]);
    const digest = decode('Caller', 'hash', w.call(caller, encode('Caller', 'hash', ['0x616263'])))[0];
    expect(digest).toBe('0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('a write in a read-only call aborts with USR_READ_ONLY (25)', () => {
    const w = world();
    const counter = deploy(w, 'Counter');
    const outcome = w.call(counter, encode('Counter', 'increment'), { readOnly: true });
    expect(outcome).toMatchObject({ status: 'error', exitCode: 25 });
  });
});

describe('precompiles, account queries, SELFDESTRUCT', () => {
  const FEVM_RESOLVE_ADDRESS = `0xfe${'00'.repeat(18)}01`;
  const precompileAt = (last: number) => `0x${'00'.repeat(19)}${last.toString(16).padStart(2, '0')}`;
  const raw = (w: MapWorld, at: Uint8Array, fn: string, args: unknown[]) =>
    decode('Raw', fn, w.call(at, encode('Raw', fn, args)));

  test("FEVM's 0xfe… precompiles go to host.precompile with the call kind; unassigned ones succeed empty", () => {
    const w = world();
    const rawAt = deploy(w, 'Raw');
    const seen: unknown[] = [];
    w.hooks = {
      precompile: (at, input, call) => {
        seen.push([toHex(at), toHex(input), call]);
        return at[19] === 1 ? { success: true, output: Uint8Array.of(1, 2, 3) } : undefined;
      },
    };
    expect([...raw(w, rawAt, 'callRaw', [FEVM_RESOLVE_ADDRESS, '0xabcd'])]).toEqual([true, '0x010203']);
    expect([...raw(w, rawAt, 'delegateRaw', [FEVM_RESOLVE_ADDRESS, '0x01'])]).toEqual([true, '0x010203']);
    expect([...raw(w, rawAt, 'callRaw', [`0xfe${'00'.repeat(18)}04`, '0x'])]).toEqual([true, '0x']);
    expect(seen).toEqual([
      [FEVM_RESOLVE_ADDRESS.slice(2), 'abcd', { kind: 'call', value: 0n }],
      [FEVM_RESOLVE_ADDRESS.slice(2), '01', { kind: 'delegatecall', value: 0n }],
      [`fe${'00'.repeat(18)}04`, '', { kind: 'call', value: 0n }],
    ]);
    // KZG (0x0a) is not a precompile in FEVM, and 0x20 was never one: reserved, so empty success.
    expect([...raw(w, rawAt, 'callRaw', [precompileAt(0x0a), '0x1234'])]).toEqual([true, '0x']);
    expect([...raw(w, rawAt, 'callRaw', [precompileAt(0x20), '0x1234'])]).toEqual([true, '0x']);
    // Identity (0x04) runs in ethereumjs.
    expect([...raw(w, rawAt, 'callRaw', [precompileAt(0x04), '0x1234'])]).toEqual([true, '0x1234']);
    // MODEXP takes a 1,100-byte base, as FEVM's does (Osaka's EIP-7823 would refuse it): 3^1 mod 7.
    const word = (n: number) => n.toString(16).padStart(64, '0');
    // base (1,099 zero bytes then 3), exponent 1, modulus 7.
    const modexp = `0x${word(1100)}${word(1)}${word(1)}${'00'.repeat(1099)}03${'01'}${'07'}`;
    expect([...raw(w, rawAt, 'callRaw', [precompileAt(0x05), modexp])]).toEqual([true, '0x03']);
    // A MODEXP priced past an Ethereum block's gas fails at once instead of computing.
    const costly = `0x${word(1)}${word(4096)}${word(512)}03${'ff'.repeat(4096)}${'ff'.repeat(512)}`;
    expect([...raw(w, rawAt, 'callRaw', [precompileAt(0x05), costly])]).toEqual([false, '0x']);
    expect(w.calls).toEqual([]);
  });

  test('value sent to a precompile the host does not run moves with host.transfer after it succeeds', () => {
    const w = world();
    const rawAt = deploy(w, 'Raw');
    const transfers: unknown[] = [];
    let accept = true;
    w.hooks = {
      transfer: (to, value) => {
        transfers.push([toHex(to), value]);
        return accept;
      },
      precompile: () => undefined,
    };
    const callWithValue = (target: string) =>
      decode('Raw', 'callRawValue', w.call(rawAt, encode('Raw', 'callRawValue', [target, '0x1234']), { value: 3n }));
    expect([...callWithValue(precompileAt(0x04))]).toEqual([true, '0x1234']);
    expect([...callWithValue(`0xfe${'00'.repeat(18)}04`)]).toEqual([true, '0x']);
    accept = false;
    expect([...callWithValue(precompileAt(0x04))]).toEqual([false, '0x']);
    expect(transfers).toEqual([
      [toHex(bytes(precompileAt(0x04))), 3n],
      [`fe${'00'.repeat(18)}04`, 3n],
      [toHex(bytes(precompileAt(0x04))), 3n],
    ]);
    expect(w.calls).toEqual([]);
  });

  test('EXTCODESIZE, EXTCODEHASH, BALANCE, SELFBALANCE, BLOCKHASH and GAS ask the host', () => {
    const w = world();
    const rawAt = deploy(w, 'Raw');
    const counter = deploy(w, 'Counter');
    w.contract(rawAt)!.balance = 77n;
    w.contract(counter)!.balance = 5n;
    const [size, hash, balance, selfBalance, parentHash, gasLeft] = raw(w, rawAt, 'inspect', [hex0x(counter)]);
    expect(size).toBe(BigInt(w.contract(counter)!.code.length));
    expect(hash).toBe(hex0x(keccak256(w.contract(counter)!.code)));
    expect([balance, selfBalance]).toEqual([5n, 77n]);
    expect(parentHash).toBe(`0x${'e7'.repeat(32)}`); // the Map host's hash of epoch 999
    expect(gasLeft).toBe(5_000_000_000n);
    // A missing actor: size 0, hash 0 (codeHash null).
    const [missingSize, missingHash] = raw(w, rawAt, 'inspect', [hex0x(address(0x99))]);
    expect([missingSize, missingHash]).toEqual([0n, `0x${'00'.repeat(32)}`]);
  });

  test('SELFDESTRUCT asks the host to move the balance and ends the run with empty success', () => {
    const w = world();
    const rawAt = deploy(w, 'Raw');
    const beneficiaries: string[] = [];
    w.hooks = { selfDestruct: (to) => void beneficiaries.push(toHex(to)) };
    const outcome = w.call(rawAt, encode('Raw', 'destroy', [hex0x(address(0xb0))]));
    expect(outcome).toMatchObject({ status: 'success', output: new Uint8Array(0) });
    expect(beneficiaries).toEqual([toHex(address(0xb0))]);
    w.hooks = {
      selfDestruct: () => {
        throw new ActorError(40, 'selfdestruct failed');
      },
    };
    expect(() => w.call(rawAt, encode('Raw', 'destroy', [hex0x(address(0xb0))]))).toThrow(ActorError);
  });
});

describe('exit codes as builtin-actors maps them', () => {
  const w = world();
  const run = (code: string) =>
    runEvm(bytes(code), new Uint8Array(0), contextAt(address(1)), w.host(contextAt(address(1))));
  test.each([
    ['CALLCODE (absent in FEVM)', 35, '6000600060006000600060006000f2'],
    ['BLOBHASH (absent)', 35, '600049'],
    ['an undefined byte', 35, '0c'],
    ['the designated INVALID 0xfe', 34, 'fe'],
    ['stack underflow', 36, '01'],
    ['stack overflow (1025 PUSH0)', 37, '5f'.repeat(1025)],
    ['bad jump destination', 39, '600556'],
    ['CLZ (0x1e, FIP-0114) runs: CLZ(1) = 255', 0, '60011e5f5260205ff3'],
    ['an absurd memory offset', 38, '7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff51'],
  ])('%s → exit %i', (_what, exitCode, code) => {
    const outcome = run(code);
    if (exitCode === 0)
      expect(outcome).toMatchObject({ status: 'success', output: Uint8Array.of(...new Uint8Array(31), 255) });
    else expect(outcome).toMatchObject({ status: 'error', exitCode });
  });
});

describe('host errors and worker failures', () => {
  test('a host that throws ends the run with its error, and the worker serves the next run', () => {
    const w = world();
    const counter = deploy(w, 'Counter');
    w.hooks = {
      storageSet: () => {
        throw new ActorError(25, 'read-only');
      },
    };
    expect(() => w.call(counter, encode('Counter', 'increment'))).toThrow(ActorError);
    w.hooks = {};
    expect(decode('Counter', 'increment', w.call(counter, encode('Counter', 'increment')))[0]).toBe(1n);
  });

  test('a nested run whose host throws unwinds the outer run too', () => {
    const w = world();
    const counter = deploy(w, 'Counter');
    const caller = deploy(w, 'Caller');
    w.hooks = {
      storageSet: () => {
        throw new OutOfGasError('out of gas in the callee');
      },
    };
    expect(() => w.call(caller, encode('Caller', 'bump', [hex0x(counter)]))).toThrow(OutOfGasError);
    w.hooks = {};
    expect(decode('Caller', 'bump', w.call(caller, encode('Caller', 'bump', [hex0x(counter)])))[0]).toBe(1n);
  });

  test('a metered host is charged the instructions as they run, and can stop an endless loop', () => {
    const w = world();
    let charged = 0;
    w.hooks = {
      chargeSteps: (steps) => {
        charged += steps;
        if (charged > 100_000) throw new OutOfGasError(`out of gas after ${charged} instructions`);
      },
    };
    // JUMPDEST; PUSH0; JUMP: forever.
    expect(() =>
      runEvm(bytes('5b5f56'), new Uint8Array(0), contextAt(address(3)), w.host(contextAt(address(3)))),
    ).toThrow(OutOfGasError);
    expect(charged).toBeGreaterThan(100_000);
    expect(charged).toBeLessThan(100_000 + 20_000);
    charged = 0;
    const counter = deploy(w, 'Counter');
    charged = 0;
    const outcome = w.call(counter, encode('Counter', 'increment'));
    expect(charged).toBe(outcome.steps);
    expect(outcome.steps).toBeGreaterThan(50);
  });

  test('the memory of nested runs is bounded: past the bound a nested run fails with exit 38', () => {
    const w = world();
    const deep = deploy(w, 'Deep');
    // 1 MB of memory per level, 11 levels: well within the default bound.
    expect(decode('Deep', 'dive', w.call(deep, encode('Deep', 'dive', [10n])))[0]).toBe(11n);
    const small = new EvmBridge({ maxStackMemoryBytes: 4 * 1024 * 1024 });
    try {
      const bounded = new MapWorld(small);
      const at = deploy(bounded, 'Deep');
      // Levels 1-5 run; the sixth would start under 5 MB of waiting runs and fails, so the fifth returns 1.
      expect(decode('Deep', 'dive', bounded.call(at, encode('Deep', 'dive', [10n])))[0]).toBe(5n);
    } finally {
      small.close();
    }
  });

  test('a worker that dies mid-run fails the run with EvmBridgeError, not a hang; a new worker takes over', () => {
    const own = new EvmBridge({ stallTimeoutMs: 2000 });
    try {
      const w = new MapWorld(own);
      const counter = deploy(w, 'Counter');
      w.hooks = {
        storageGet: () => {
          void own.worker?.terminate();
          return 0n;
        },
      };
      const started = performance.now();
      expect(() => w.call(counter, encode('Counter', 'increment'))).toThrow(EvmBridgeError);
      expect(performance.now() - started).toBeLessThan(10_000);
      w.hooks = {};
      const again = new MapWorld(own);
      const fresh = deploy(again, 'Counter');
      expect(decode('Counter', 'increment', again.call(fresh, encode('Counter', 'increment')))[0]).toBe(1n);
    } finally {
      own.close();
    }
  });
});

function contextAt(at: Uint8Array) {
  return {
    address: at,
    caller: address(2),
    origin: address(2),
    value: 0n,
    readOnly: false,
    chainId: CHAIN_ID,
    epoch: 1n,
    timestamp: 1n,
    baseFee: 1n,
    gasPrice: 1n,
  };
}
