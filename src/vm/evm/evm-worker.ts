/**
 * The EVM worker thread: runs `@ethereumjs/evm` (asynchronous throughout) for `runEvm` on the main
 * thread (src/vm/evm/interpreter.ts), which blocks until the run's outcome. Each host request is
 * posted and its answer awaited with `Atomics.wait` + `receiveMessageOnPort`: ethereumjs's awaits
 * are all promise continuations, so a run never needs this thread's event loop either. When the
 * answer is a new run instead (the host's call ran `runEvm` again: a nested contract call), that
 * run executes to its end first; then the wait for the answer goes on.
 *
 * Idle, the worker waits for a run request as an ordinary `message` event.
 */
import { type MessagePort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVM, EVMError } from '@ethereumjs/evm';
import { Address, createZeroAddress } from '@ethereumjs/util';
import { ExitCode } from '../exit-code.js';
import { FEVM_BLOCK_GAS_LIMIT, type Frame, FrameAbort, type FrameBlock, fevmOpcodes } from './fevm-opcodes.js';
import {
  type Effect,
  type FromWorker,
  type HostRequest,
  Signal,
  STEP_REPORT_INTERVAL,
  type ToWorker,
} from './protocol.js';
import { FrameStateManager } from './state-manager.js';
import type { EvmContext, EvmOutcome } from './types.js';

const {
  port,
  signals: signalBuffer,
  maxStackMemory,
} = workerData as { port: MessagePort; signals: SharedArrayBuffer; maxStackMemory: number };
const signals = new Int32Array(signalBuffer);

/** The main thread ended the run (its host threw): unwinds ethereumjs without an outcome. */
class RunAborted extends Error {}

function post(message: FromWorker): void {
  port.postMessage(message);
  Atomics.add(signals, Signal.Main, 1);
  Atomics.notify(signals, Signal.Main);
}

/** Messages the event loop delivered while a run was in progress (see the `message` listener). */
const delivered: ToWorker[] = [];
/** Runs started and not finished (nested ones included). */
let activeRuns = 0;

/** The main thread's next message, waited for without the event loop. */
function receive(): ToWorker {
  const early = delivered.shift();
  if (early !== undefined) return early;
  for (;;) {
    const seen = Atomics.load(signals, Signal.Worker);
    const message = receiveMessageOnPort(port);
    if (message !== undefined) return message.message as ToWorker;
    Atomics.wait(signals, Signal.Worker, seen, 1000);
  }
}

/**
 * FEVM v18 is Cancun without blobs plus Osaka's CLZ and P256VERIFY (FIP-0054, FIP-0094, FIP-0113,
 * FIP-0114), and Prague's BLS12-381 precompiles (FIP-0105): Prague with EIP-7939 (CLZ) and EIP-7951
 * (P256VERIFY), the blob opcodes removed (fevm-opcodes.ts) and the KZG precompile deleted. Not Osaka:
 * its EIP-7823 caps MODEXP inputs at 1,024 bytes, which FEVM's MODEXP does not (builtin-actors
 * `precompiles/evm.rs`).
 */
function fevmCommon(chainId: bigint) {
  return createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: Hardfork.Prague, eips: [7939, 7951] });
}

/** One EVM per chain id, shared by every run: all per-run state is in the run's block object. */
const evms = new Map<bigint, Promise<EVM>>();
function evmFor(chainId: bigint): Promise<EVM> {
  let evm = evms.get(chainId);
  if (evm === undefined) {
    let created: EVM | undefined;
    evm = createEVM({
      common: fevmCommon(chainId),
      stateManager: new FrameStateManager(),
      customOpcodes: fevmOpcodes(() => created as EVM),
      customPrecompiles: [{ address: new Address(KZG_PRECOMPILE) }],
      allowUnlimitedInitCodeSize: true,
    }).then((built) => {
      created = built;
      countSteps(built);
      return built;
    });
    evms.set(chainId, evm);
  }
  return evm;
}
const KZG_PRECOMPILE = Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? 0x0a : 0));

/**
 * Ethereum gas means nothing in FEVM: a run gets this much, which bounds a frame's memory (~64 MiB,
 * quadratic cost) and is never reached by execution the FVM's gas allows.
 */
const RUN_GAS_LIMIT = 1n << 33n;

/** The run in progress innermost (runs nest), for the instruction counter. */
let current: RunFrame | undefined;
let heartbeat = 0;

/** Counts every instruction a run executes (FVM gas is charged per instruction: EvmOutcome.steps). */
function countSteps(evm: EVM): void {
  const opcodeMap = (evm as unknown as { _opcodeMap: Array<{ opHandler: (...args: unknown[]) => unknown }> })
    ._opcodeMap;
  for (const entry of new Set(opcodeMap)) {
    const handler = entry.opHandler;
    entry.opHandler = (...args: unknown[]) => {
      if (current !== undefined) current.step();
      return handler(...args);
    };
  }
}

/** Host requests during which other code may run and change this contract's storage by re-entering it. */
const RUNS_OTHER_CODE: ReadonlySet<HostRequest['op']> = new Set([
  'call',
  'create',
  'precompile',
  'transfer',
  'selfDestruct',
]);

class RunFrame implements Frame {
  #effects: Effect[] = [];
  /**
   * Slots whose current value the run knows (it read or wrote them): reading them again needs no
   * round trip. Only this run changes its contract's slots until it lets other code run (a call, a
   * create, a precompile, SELFDESTRUCT), which may re-enter it: then it forgets them.
   */
  readonly #knownStorage = new Map<bigint, bigint>();
  readonly #knownTransient = new Map<bigint, bigint>();
  steps = 0;
  #unreported = 0;
  memoryInUse = 0;
  /** The memory of the runs this one is nested in (each waits for a call or create to end). */
  readonly stackMemory: number;

  constructor(
    readonly run: number,
    readonly context: EvmContext,
    readonly meterSteps: boolean,
    readonly parent: RunFrame | undefined,
  ) {
    this.stackMemory = parent === undefined ? 0 : parent.stackMemory + parent.memoryInUse;
  }

  step(): void {
    this.steps++;
    this.#unreported++;
    if ((++heartbeat & 1023) === 0) Atomics.store(signals, Signal.Heartbeat, heartbeat);
    if (this.meterSteps && this.#unreported >= STEP_REPORT_INTERVAL) this.#pendingReport = true;
  }

  #pendingReport = false;

  /** Whether the host wants a step report now (checked between instructions by the interpreter loop). */
  get reportDue(): boolean {
    return this.#pendingReport;
  }

  effect(effect: Effect): void {
    this.#effects.push(effect);
    if (effect.kind === 'storageSet') this.#knownStorage.set(effect.key, effect.value);
    else if (effect.kind === 'transientSet') this.#knownTransient.set(effect.key, effect.value);
  }

  async load(kind: 'storage' | 'transient', key: bigint): Promise<bigint> {
    const known = kind === 'storage' ? this.#knownStorage : this.#knownTransient;
    let value = known.get(key);
    if (value === undefined) {
      value = (await this.request({ op: kind === 'storage' ? 'storageGet' : 'transientGet', args: [key] })) as bigint;
      known.set(key, value);
    }
    return value;
  }

  #takeEffects(): Effect[] {
    const effects = this.#effects;
    this.#effects = [];
    return effects;
  }

  async request(request: HostRequest): Promise<unknown> {
    const effects = this.#takeEffects();
    const steps = this.#takeSteps();
    if (RUNS_OTHER_CODE.has(request.op)) {
      this.#knownStorage.clear();
      this.#knownTransient.clear();
    }
    post({ type: 'host', run: this.run, request, steps, effects });
    for (;;) {
      const message = receive();
      if (message.type === 'answer' && message.run === this.run) return message.value;
      if (message.type === 'abort' && message.run === this.run) throw new RunAborted();
      if (message.type === 'run') {
        current = undefined;
        await runFrame(message, this);
        current = this;
        continue;
      }
      throw new Error(`EVM worker: unexpected ${message.type} for run ${message.run} while run ${this.run} waits`);
    }
  }

  #takeSteps(): number {
    const steps = this.#unreported;
    this.#unreported = 0;
    this.#pendingReport = false;
    return steps;
  }

  finish(outcome: EvmOutcome): void {
    const effects = this.#takeEffects();
    post({
      type: 'done',
      run: this.run,
      outcome: { ...outcome, steps: this.steps },
      steps: this.#takeSteps(),
      effects: outcome.status === 'success' ? effects : [],
    });
  }
}

function blockOf(context: EvmContext, frame: Frame): FrameBlock {
  return {
    header: {
      number: context.epoch,
      coinbase: createZeroAddress(),
      timestamp: context.timestamp,
      difficulty: 0n,
      // PREVRANDAO asks the host (fevm-opcodes.ts); the header's value is never read.
      prevRandao: new Uint8Array(32),
      gasLimit: FEVM_BLOCK_GAS_LIMIT,
      baseFeePerGas: context.baseFee,
      getBlobGasPrice: () => 0n,
    },
    frame,
  };
}

/** builtin-actors' exit code for an ethereumjs exception (`actors/evm/src/interpreter/{execution,stack,memory}.rs`). */
function errorExitCode(error: EVMError, opcode: number): number {
  const messages = EVMError.errorMessages;
  // Some messages carry where they happened ("invalid JUMP at …").
  const is = (message: string) => error.error === message || error.error.startsWith(`${message} `);
  // 0xfe is the designated INVALID instruction; every undefined byte lands on the same entry.
  if (is(messages.INVALID_OPCODE)) return opcode === 0xfe ? 34 : 35;
  if (is(messages.STACK_UNDERFLOW)) return 36;
  if (is(messages.STACK_OVERFLOW)) return 37;
  if (is(messages.INVALID_JUMP)) return 39;
  if (is(messages.OUT_OF_GAS) || is(messages.OUT_OF_RANGE)) return 38;
  if (is(messages.STATIC_STATE_CHANGE)) return ExitCode.UsrReadOnly;
  return 34;
}

async function runFrame(request: Extract<ToWorker, { type: 'run' }>, parent: RunFrame | undefined): Promise<void> {
  activeRuns++;
  const frame = new RunFrame(request.run, request.context, request.meterSteps, parent);
  try {
    frame.finish(await execute(request, frame));
  } catch (error) {
    current = parent;
    if (error instanceof RunAborted) post({ type: 'aborted', run: request.run });
    else if (error instanceof FrameAbort)
      frame.finish({ status: 'error', exitCode: error.exitCode, message: error.message });
    else {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      post({ type: 'failed', run: request.run, message });
    }
  } finally {
    current = parent;
    activeRuns--;
  }
}

/** Runs the code of `request` in `frame`; a host abort or an FEVM rule the bridge enforces throws. */
async function execute(request: Extract<ToWorker, { type: 'run' }>, frame: RunFrame): Promise<EvmOutcome> {
  const { context } = request;
  if (frame.stackMemory > maxStackMemory) {
    // Each run's memory is bounded by its gas (RUN_GAS_LIMIT), not their sum: a contract that grows its
    // memory and calls itself would otherwise take the machine's. The FVM bounds it too (ref-fvm
    // `NetworkConfig::max_memory_bytes`, over the whole call stack).
    return { status: 'error', exitCode: 38, message: `EVM memory of the call stack exceeds ${maxStackMemory} bytes` };
  }
  const evm = await evmFor(context.chainId);
  current = frame;
  const result = await evm.runCode({
    code: request.code,
    data: request.input,
    gasLimit: RUN_GAS_LIMIT,
    to: new Address(context.address),
    caller: new Address(context.caller),
    origin: new Address(context.origin),
    value: context.value,
    isStatic: context.readOnly,
    gasPrice: context.gasPrice,
    block: blockOf(context, frame) as never,
  });
  current = frame.parent;
  const error = result.exceptionError;
  if (error === undefined) return { status: 'success', output: result.returnValue };
  if (error.error === EVMError.errorMessages.REVERT) return { status: 'revert', output: result.returnValue };
  return { status: 'error', exitCode: errorExitCode(error, result.runState?.opCode ?? 0), message: error.error };
}

// Idle, a run request arrives here. During a run every message is read by `receive`, unless the run
// awaited something the event loop settles (ethereumjs does not today): then it waits in `delivered`.
port.on('message', (message: ToWorker) => {
  if (activeRuns > 0) delivered.push(message);
  else if (message.type === 'run') void runFrame(message, undefined);
});
// The first EVM takes long to build (module initialisation, JIT); build one before counting as ready,
// so that a run's wait for progress starts with a warm worker.
await createEVM({ common: fevmCommon(1n) });
Atomics.store(signals, Signal.Ready, 1);
process.on('exit', () => {
  Atomics.store(signals, Signal.Exited, 1);
  Atomics.notify(signals, Signal.Main);
});
