/**
 * The opcodes FEVM runs differently from Ethereum (builtin-actors `actors/evm/src/interpreter/
 * instructions/*.rs`, FIP-0054 §Opcode support), as `@ethereumjs/evm` custom opcodes. Everything
 * that reads or changes state outside the running contract's memory and stack goes to the host:
 * storage, balances, other contracts' code, calls and creates (each contract runs in its own actor
 * invocation, so ethereumjs's own call machinery is never used), events, block hashes, FVM gas.
 * CALLCODE, BLOBHASH and BLOBBASEFEE are absent in FEVM (exit 35).
 */
import type { Common } from '@ethereumjs/common';
import type { EVM, EVMOpts } from '@ethereumjs/evm';
import { Address, bigIntToBytes, bytesToBigInt, setLengthLeft } from '@ethereumjs/util';
import { ExitCode } from '../exit-code.js';
import type { Effect, HostRequest } from './protocol.js';
import type { EvmContext } from './types.js';

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];
type AddOpcode = Extract<CustomOpcode, { logicFunction: unknown }>;
export type RunState = Parameters<AddOpcode['logicFunction']>[0];

/** One run's link to its host, reached from the interpreter through the block object of the run. */
export interface Frame {
  readonly context: EvmContext;
  /** Sends a host request (with the effects so far) and waits for its answer. */
  request(request: HostRequest): Promise<unknown>;
  /** Queues an event or a storage write for the host (protocol.ts `Effect`). */
  effect(effect: Effect): void;
  /** A storage or transient slot of the running contract (the host's value, or the run's own write). */
  load(kind: 'storage' | 'transient', key: bigint): Promise<bigint>;
  /** The host meters instructions and enough ran since the last report. */
  readonly reportDue: boolean;
  /** The run's memory in bytes, noted before a call or create that may start a nested run. */
  memoryInUse: number;
}

/** The block object `runCode` gets: ethereumjs's header fields plus the run's frame. */
export interface FrameBlock {
  readonly header: {
    number: bigint;
    coinbase: Address;
    timestamp: bigint;
    difficulty: bigint;
    prevRandao: Uint8Array;
    gasLimit: bigint;
    baseFeePerGas: bigint;
    getBlobGasPrice(): bigint;
  };
  readonly frame: Frame;
}

/** A contract broke an FEVM rule the host does not see (a write in a read-only call): the run aborts with `exitCode`. */
export class FrameAbort extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

function frameOf(runState: RunState): Frame {
  return (runState.env.block as unknown as FrameBlock).frame;
}

const ADDRESS_MASK = (1n << 160n) - 1n;
const ZERO_WORD = 0n;

function wordToAddress(word: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(word & ADDRESS_MASK), 20);
}

function word32(word: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(word), 32);
}

/** builtin-actors refuses state changes in a read-only (STATICCALL) frame with USR_READ_ONLY. */
function refuseIfReadOnly(frame: Frame, what: string): void {
  if (frame.context.readOnly) throw new FrameAbort(ExitCode.UsrReadOnly, `${what} called while read-only`);
}

/**
 * Memory expansion as ethereumjs charges it (`opcodes/util.js` subMemUsage, not exported): the
 * run's large gas limit is what bounds a frame's memory, and an absurd offset runs out of it (exit 38).
 */
function memoryGas(runState: RunState, offset: bigint, length: bigint, common: Common): bigint {
  if (length === 0n) return 0n;
  const words = (offset + length + 31n) / 32n;
  if (words <= runState.memoryWordCount) return 0n;
  let cost = words * common.param('memoryGas') + (words * words) / common.param('quadCoefficientDivGas');
  if (cost > runState.highestMemCost) {
    const previous = runState.highestMemCost;
    runState.highestMemCost = cost;
    cost -= previous;
  }
  runState.memoryWordCount = words;
  return cost;
}

function readMemory(runState: RunState, offset: bigint, length: bigint): Uint8Array {
  return length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length), true).slice();
}

/** The callee's output into [offset, offset + min(length, output)) of memory, as CALL does. */
function writeCallOutput(runState: RunState, offset: bigint, length: bigint, output: Uint8Array): void {
  const size = Math.min(Number(length), output.length);
  if (size > 0) runState.memory.write(Number(offset), size, output.subarray(0, size));
}

/**
 * FEVM's stipend rule for CALL and STATICCALL (builtin-actors `instructions/call.rs`): Solidity's
 * fixed 2300 and value-only sends get 10M.
 */
const STIPEND_GAS = 10_000_000n;
function callGas(kind: CallKind, gas: bigint, value: bigint): bigint {
  if (kind === 'delegatecall') return gas;
  if ((gas === 0n && value > 0n) || (gas === 2300n && value === 0n)) return STIPEND_GAS;
  return gas;
}

/**
 * Reserved precompile addresses (builtin-actors `precompiles/mod.rs`): first byte 0x00 (Ethereum's) or
 * 0xfe (FEVM's), bytes 1..18 zero, last byte non-zero; plus 0x…0100 (P256VERIFY).
 */
function precompileKind(address: Uint8Array): 'ethereum' | 'fevm' | undefined {
  for (let i = 1; i < 18; i++) if (address[i] !== 0) return undefined;
  if (address[0] === 0x00 && address[18] === 0x01 && address[19] === 0x00) return 'ethereum';
  if (address[18] !== 0 || address[19] === 0) return undefined;
  if (address[0] === 0x00) return 'ethereum';
  if (address[0] === 0xfe) return 'fevm';
  return undefined;
}

type CallKind = 'call' | 'staticcall' | 'delegatecall';

/**
 * A call to a reserved address never reaches an actor: ethereumjs runs Ethereum's precompiles (an
 * unassigned one succeeds with no data), the host FEVM's. A failing precompile pushes 0 with no data.
 * Value sent with the call goes to the precompile's address afterwards (builtin-actors
 * `precompiles/mod.rs` call_precompile): the host's FEVM precompiles move it themselves; for the
 * others the bridge asks the host.
 */
async function callPrecompile(
  evm: EVM,
  frame: Frame,
  kind: CallKind,
  to: Uint8Array,
  value: bigint,
  input: Uint8Array,
): Promise<{ success: boolean; output: Uint8Array }> {
  let result: { success: boolean; output: Uint8Array } = { success: true, output: new Uint8Array(0) };
  const precompile = precompileKind(to) === 'fevm' ? undefined : evm.getPrecompile(new Address(to));
  if (precompileKind(to) === 'fevm') {
    const answer = (await frame.request({ op: 'precompile', args: [to, input, { kind, value }] })) as
      | { success: boolean; output: Uint8Array }
      | undefined;
    if (answer !== undefined) return answer;
  } else if (precompile !== undefined) {
    // `runPrecompile` is protected in the typings and public in the class (ethereumjs `evm.ts`).
    const run = await (evm as unknown as PrecompileRunner).runPrecompile(precompile, input, PRECOMPILE_GAS);
    result =
      run.exceptionError === undefined
        ? { success: true, output: run.returnValue }
        : { success: false, output: new Uint8Array(0) };
  }
  if (result.success && value > 0n) {
    const moved = (await frame.request({ op: 'transfer', args: [to, value] })) as boolean;
    if (!moved) return { success: false, output: new Uint8Array(0) };
  }
  return result;
}

interface PrecompileRunner {
  runPrecompile(
    precompile: NonNullable<ReturnType<EVM['getPrecompile']>>,
    input: Uint8Array,
    gasLimit: bigint,
  ): Promise<{ returnValue: Uint8Array; exceptionError?: unknown }>;
}

/**
 * Precompiles ignore the CALL's gas in FEVM, where the Wasm instructions they execute are what bounds
 * them. ethereumjs prices each call before doing the work; this bound (an Ethereum block's worth, about
 * the 10 billion FVM gas of a Filecoin block at FVM's ~444 gas per Ethereum gas) keeps a MODEXP with
 * a megabyte exponent from holding the node for minutes: above it the call fails.
 */
const PRECOMPILE_GAS = 30_000_000n;

function makeCall(
  evm: EVM,
  frame: Frame,
  request: { kind: CallKind; to: Uint8Array; value: bigint; input: Uint8Array; gas: bigint },
) {
  if (precompileKind(request.to) !== undefined) {
    return callPrecompile(evm, frame, request.kind, request.to, request.value, request.input);
  }
  return frame.request({ op: 'call', args: [request] }) as Promise<{ success: boolean; output: Uint8Array }>;
}

function callOpcode(evm: () => EVM, opcode: number, name: string, kind: CallKind): AddOpcode {
  const hasValue = kind === 'call';
  return {
    opcode,
    opcodeName: name,
    baseFee: 0,
    gasFunction(runState, gas, common) {
      const [inOffset, inLength, outOffset, outLength] = runState.stack.peek(hasValue ? 7 : 6).slice(hasValue ? 3 : 2);
      return (
        gas + memoryGas(runState, inOffset!, inLength!, common) + memoryGas(runState, outOffset!, outLength!, common)
      );
    },
    async logicFunction(runState) {
      const frame = frameOf(runState);
      const [gasArg, toWord] = runState.stack.popN(2) as [bigint, bigint];
      // DELEGATECALL sends no value: the callee's CALLVALUE is inherited (the host passes it on).
      const value = hasValue ? runState.stack.pop() : 0n;
      const [inOffset, inLength, outOffset, outLength] = runState.stack.popN(4) as [bigint, bigint, bigint, bigint];
      if (value > 0n) refuseIfReadOnly(frame, 'value transfer');
      const input = readMemory(runState, inOffset, inLength);
      const to = wordToAddress(toWord);
      frame.memoryInUse = Number(runState.memoryWordCount) * 32;
      const result = await makeCall(evm(), frame, { kind, to, value, input, gas: callGas(kind, gasArg, value) });
      runState.returnBytes = result.output;
      writeCallOutput(runState, outOffset, outLength, result.output);
      runState.stack.push(result.success ? 1n : 0n);
    },
  };
}

function createOpcode(opcode: number, name: string, kind: 'create' | 'create2'): AddOpcode {
  return {
    opcode,
    opcodeName: name,
    baseFee: 0,
    gasFunction(runState, gas, common) {
      const [, offset, length] = runState.stack.peek(3) as [bigint, bigint, bigint];
      return gas + memoryGas(runState, offset, length, common);
    },
    async logicFunction(runState) {
      const frame = frameOf(runState);
      refuseIfReadOnly(frame, kind);
      const [value, offset, length] = runState.stack.popN(3) as [bigint, bigint, bigint];
      const salt = kind === 'create2' ? word32(runState.stack.pop()) : undefined;
      const initcode = readMemory(runState, offset, length);
      const request = salt === undefined ? { kind, value, initcode } : { kind, value, initcode, salt };
      frame.memoryInUse = Number(runState.memoryWordCount) * 32;
      const result = (await frame.request({ op: 'create', args: [request] })) as {
        address: Uint8Array | null;
        output: Uint8Array;
      };
      runState.returnBytes = result.address === null ? result.output : new Uint8Array(0);
      runState.stack.push(result.address === null ? ZERO_WORD : bytesToBigInt(result.address));
    },
  };
}

function logOpcode(topicCount: number): AddOpcode {
  return {
    opcode: 0xa0 + topicCount,
    opcodeName: `LOG${topicCount}`,
    baseFee: 0,
    gasFunction(runState, gas, common) {
      const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
      return gas + memoryGas(runState, offset, length, common);
    },
    logicFunction(runState) {
      const frame = frameOf(runState);
      refuseIfReadOnly(frame, 'log');
      const [offset, length] = runState.stack.popN(2) as [bigint, bigint];
      const topics = runState.stack.popN(topicCount).map(word32);
      frame.effect({ kind: 'log', topics, data: readMemory(runState, offset, length) });
    },
  };
}

/** An opcode without memory expansion; its Ethereum gas is irrelevant (FEVM charges FVM gas). */
function simpleOpcode(opcode: number, opcodeName: string, logicFunction: AddOpcode['logicFunction']): AddOpcode {
  return { opcode, opcodeName, baseFee: 0, logicFunction };
}

/** One word from the host, pushed. */
function hostWordOpcode(
  opcode: number,
  name: string,
  request: (runState: RunState, frame: Frame) => HostRequest,
  toWord: (answer: unknown) => bigint = (answer) => answer as bigint,
): AddOpcode {
  return simpleOpcode(opcode, name, async (runState) => {
    const frame = frameOf(runState);
    runState.stack.push(toWord(await frame.request(request(runState, frame))));
  });
}

function loadOpcode(opcode: number, name: string, kind: 'storage' | 'transient'): AddOpcode {
  return simpleOpcode(opcode, name, async (runState) => {
    runState.stack.push(await frameOf(runState).load(kind, runState.stack.pop()));
  });
}

/** SSTORE, TSTORE: a write the host gets with the run's next message. */
function storeOpcode(opcode: number, name: string, kind: 'storage' | 'transient'): AddOpcode {
  const effect = kind === 'storage' ? 'storageSet' : 'transientSet';
  return simpleOpcode(opcode, name, (runState) => {
    const frame = frameOf(runState);
    refuseIfReadOnly(frame, kind === 'storage' ? 'store' : 'transient store');
    const [key, value] = runState.stack.popN(2) as [bigint, bigint];
    frame.effect({ kind: effect, key, value });
  });
}

/** FEVM's GASLIMIT (builtin-actors `instructions/context.rs`). */
export const FEVM_BLOCK_GAS_LIMIT = 10_000_000_000n;

/** The custom opcode list; `evm` gives the EVM they run in (for Ethereum's precompiles). */
export function fevmOpcodes(evm: () => EVM): CustomOpcode[] {
  return [
    // Absent in FEVM: they fall to ethereumjs's INVALID entry with their own byte (exit 35).
    { opcode: 0xf2 },
    { opcode: 0x49 },
    { opcode: 0x4a },
    // Every loop passes a JUMPDEST: there a metered run reports its instructions, so the host can
    // stop an endless loop by running out of FVM gas.
    simpleOpcode(0x5b, 'JUMPDEST', async (runState) => {
      const frame = frameOf(runState);
      if (frame.reportDue) await frame.request({ op: 'steps', args: [] });
    }),
    hostWordOpcode(0x31, 'BALANCE', (rs) => ({ op: 'balance', args: [wordToAddress(rs.stack.pop())] })),
    hostWordOpcode(0x47, 'SELFBALANCE', (_rs, frame) => ({ op: 'balance', args: [frame.context.address] })),
    hostWordOpcode(
      0x3b,
      'EXTCODESIZE',
      (rs) => ({ op: 'code', args: [wordToAddress(rs.stack.pop())] }),
      (code) => BigInt((code as Uint8Array).length),
    ),
    hostWordOpcode(
      0x3f,
      'EXTCODEHASH',
      (rs) => ({ op: 'codeHash', args: [wordToAddress(rs.stack.pop())] }),
      (hash) => (hash === null ? ZERO_WORD : bytesToBigInt(hash as Uint8Array)),
    ),
    hostWordOpcode(
      0x40,
      'BLOCKHASH',
      (rs) => ({ op: 'blockHash', args: [rs.stack.pop()] }),
      (hash) => bytesToBigInt(hash as Uint8Array),
    ),
    hostWordOpcode(
      0x44,
      'PREVRANDAO',
      () => ({ op: 'prevRandao', args: [] }),
      (randomness) => bytesToBigInt(randomness as Uint8Array),
    ),
    hostWordOpcode(0x5a, 'GAS', () => ({ op: 'gasAvailable', args: [] })),
    loadOpcode(0x54, 'SLOAD', 'storage'),
    loadOpcode(0x5c, 'TLOAD', 'transient'),
    {
      opcode: 0x3c,
      opcodeName: 'EXTCODECOPY',
      baseFee: 0,
      gasFunction(runState, gas, common) {
        const [, memOffset, , length] = runState.stack.peek(4) as [bigint, bigint, bigint, bigint];
        return gas + memoryGas(runState, memOffset, length, common);
      },
      async logicFunction(runState) {
        const [addressWord, memOffset, codeOffset, length] = runState.stack.popN(4) as [bigint, bigint, bigint, bigint];
        if (length === 0n) return;
        const code = (await frameOf(runState).request({
          op: 'code',
          args: [wordToAddress(addressWord)],
        })) as Uint8Array;
        // Bytes past the end of the code read as zeros.
        const slice = new Uint8Array(Number(length));
        if (codeOffset < BigInt(code.length)) slice.set(code.subarray(Number(codeOffset), Number(codeOffset + length)));
        runState.memory.write(Number(memOffset), slice.length, slice);
      },
    },
    storeOpcode(0x55, 'SSTORE', 'storage'),
    storeOpcode(0x5d, 'TSTORE', 'transient'),
    ...[0, 1, 2, 3, 4].map(logOpcode),
    callOpcode(evm, 0xf1, 'CALL', 'call'),
    callOpcode(evm, 0xfa, 'STATICCALL', 'staticcall'),
    callOpcode(evm, 0xf4, 'DELEGATECALL', 'delegatecall'),
    createOpcode(0xf0, 'CREATE', 'create'),
    createOpcode(0xf5, 'CREATE2', 'create2'),
    // FEVM's SELFDESTRUCT is not EIP-6780's: the host moves the balance and tombstones the actor,
    // and the run ends with empty success (builtin-actors `instructions/lifecycle.rs`).
    simpleOpcode(0xff, 'SELFDESTRUCT', async (runState) => {
      const frame = frameOf(runState);
      refuseIfReadOnly(frame, 'selfdestruct');
      await frame.request({ op: 'selfDestruct', args: [wordToAddress(runState.stack.pop())] });
      runState.interpreter.finish(new Uint8Array(0));
    }),
  ];
}
