/**
 * `runEvm`: EVM bytecode run synchronously for the (synchronous) VM. `@ethereumjs/evm` is
 * asynchronous throughout, so it runs in a worker thread (evm-worker.ts) while the calling thread
 * blocks in `Atomics.wait`, serving the worker's host requests (storage, calls, creates …) as they
 * come by calling the `EvmHost`. A host call may run `runEvm` again (a nested contract call, A→B→A
 * re-entrancy included): the worker starts that run while the outer one waits for its answer.
 *
 * If the host throws (an actor abort, out of gas), the run is ended in the worker and the error
 * rethrown here: a contract cannot catch it, as an FVM abort unwinds the actor invocation. A worker
 * that dies or stops making progress fails the run with `EvmBridgeError` and is replaced.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { LedgerError } from '../../utils/errors.js';
import { type Effect, type FromWorker, type HostRequest, SIGNAL_SLOTS, Signal, type ToWorker } from './protocol.js';
import type { EvmContext, EvmHost, EvmOutcome } from './types.js';

export type { EvmContext, EvmHost, EvmOutcome } from './types.js';

/** The bridge failed (the worker died, hung or hit a bug): not a contract outcome. */
export class EvmBridgeError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_EVM_BRIDGE', message, options);
  }
}

/**
 * The worker script: compiled (dist/, and dist/bundle where scripts/bundle.mjs builds it as an entry
 * of its own) it sits beside this module as `.js`; run from the sources (tests, benchmarks) the
 * `.ts` is loaded through tsx's loader, registered in the worker first.
 */
function startWorker(workerData: unknown, transferList: MessagePort[]): Worker {
  const compiled = fileURLToPath(new URL('./evm-worker.js', import.meta.url));
  if (existsSync(compiled)) return new Worker(compiled, { workerData, transferList });
  const source = pathToFileURL(fileURLToPath(new URL('./evm-worker.ts', import.meta.url))).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(boot, { eval: true, workerData, transferList });
}

export interface EvmBridgeOptions {
  /**
   * How much memory the runs a nested run starts under may hold together; beyond it the nested run
   * fails with exit 38 (its caller's CALL pushes 0). One run's memory is bounded by itself (~64 MiB).
   */
  readonly maxStackMemoryBytes?: number;
  /**
   * How long the worker may go without a message or an executed instruction before it counts as
   * hung (a long precompile, such as modexp on a large input, executes no instruction meanwhile).
   */
  readonly stallTimeoutMs?: number;
}

const DEFAULT_STALL_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_STACK_MEMORY_BYTES = 448 * 1024 * 1024;
/** A new worker loads its modules (ethereumjs, noble curves; through tsx from the sources) first. */
const STARTUP_TIMEOUT_MS = 60_000;
/** How often a waiting thread looks at the worker's heartbeat and exit flag. */
const POLL_MS = 100;

/** One worker and the runs in flight on it (innermost last). */
export class EvmBridge {
  readonly #stallTimeoutMs: number;
  readonly #maxStackMemoryBytes: number;
  #worker: Worker | undefined;
  #port: MessagePort | undefined;
  #signals = new Int32Array(new SharedArrayBuffer(SIGNAL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  #nextRun = 1;

  constructor(options: EvmBridgeOptions = {}) {
    this.#stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    this.#maxStackMemoryBytes = options.maxStackMemoryBytes ?? DEFAULT_MAX_STACK_MEMORY_BYTES;
  }

  /** The worker while it runs (tests end it to check that a dead worker fails the run). */
  get worker(): Worker | undefined {
    return this.#worker;
  }

  run(code: Uint8Array, input: Uint8Array, context: EvmContext, host: EvmHost): EvmOutcome {
    const port = this.#start();
    const run = this.#nextRun++;
    this.#post(port, { type: 'run', run, code, input, context, meterSteps: host.chargeSteps !== undefined });
    for (;;) {
      const message = this.#receive(port, run);
      if (message.run !== run) {
        this.#discard();
        throw new EvmBridgeError(`EVM worker answered for run ${message.run} while run ${run} waits`);
      }
      if (message.type === 'failed') throw new EvmBridgeError(`EVM worker failed: ${message.message}`);
      if (message.type === 'aborted') throw new EvmBridgeError(`EVM worker ended run ${run} unasked`);
      try {
        if (message.steps > 0) host.chargeSteps?.(message.steps);
        for (const effect of message.effects) apply(host, effect);
        if (message.type === 'done') return message.outcome;
        this.#post(port, { type: 'answer', run, value: serve(host, message.request) });
      } catch (error) {
        if (message.type === 'host') this.#abortQuietly(port, run);
        throw error;
      }
    }
  }

  /** Ends the worker; the next run starts a new one. */
  close(): void {
    this.#discard();
  }

  /**
   * Tells the worker to end run `run` and waits until it has, so the worker is ready for the next.
   * The host's error is what the caller must see: a worker that fails to end the run is replaced.
   */
  #abortQuietly(port: MessagePort, run: number): void {
    try {
      this.#post(port, { type: 'abort', run });
      const message = this.#receive(port, run);
      if (message.type !== 'aborted' || message.run !== run) this.#discard();
    } catch {
      this.#discard();
    }
  }

  #start(): MessagePort {
    if (this.#port !== undefined) return this.#port;
    const channel = new MessageChannel();
    this.#signals = new Int32Array(new SharedArrayBuffer(SIGNAL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
    const workerData = {
      port: channel.port2,
      signals: this.#signals.buffer,
      maxStackMemory: this.#maxStackMemoryBytes,
    };
    const worker = startWorker(workerData, [channel.port2]);
    // Idle, the worker must not keep the process alive; its errors surface through the exit flag.
    worker.unref();
    worker.on('error', () => {});
    channel.port1.unref();
    this.#worker = worker;
    this.#port = channel.port1;
    return channel.port1;
  }

  #post(port: MessagePort, message: ToWorker): void {
    port.postMessage(message);
    Atomics.add(this.#signals, Signal.Worker, 1);
    Atomics.notify(this.#signals, Signal.Worker);
  }

  /** The worker's next message, blocking; a dead or stalled worker fails the run. */
  #receive(port: MessagePort, run: number): FromWorker {
    const signals = this.#signals;
    let heartbeat = Atomics.load(signals, Signal.Heartbeat);
    let progressAt = performance.now();
    for (;;) {
      const seen = Atomics.load(signals, Signal.Main);
      const message = receiveMessageOnPort(port);
      if (message !== undefined) return message.message as FromWorker;
      if (this.#port !== port) throw new EvmBridgeError(`EVM worker was replaced during run ${run}`);
      if (Atomics.load(signals, Signal.Exited) === 1) {
        this.#discard();
        throw new EvmBridgeError(`EVM worker exited during run ${run}`);
      }
      const beat = Atomics.load(signals, Signal.Heartbeat);
      const now = performance.now();
      if (beat !== heartbeat) {
        heartbeat = beat;
        progressAt = now;
      } else {
        const timeout = Atomics.load(signals, Signal.Ready) === 1 ? this.#stallTimeoutMs : STARTUP_TIMEOUT_MS;
        if (now - progressAt > timeout) {
          this.#discard();
          throw new EvmBridgeError(`EVM worker made no progress for ${timeout} ms during run ${run}`);
        }
      }
      Atomics.wait(signals, Signal.Main, seen, POLL_MS);
    }
  }

  #discard(): void {
    void this.#worker?.terminate();
    this.#port?.close();
    this.#worker = undefined;
    this.#port = undefined;
  }
}

function apply(host: EvmHost, effect: Effect): void {
  if (effect.kind === 'log') host.log(effect.topics, effect.data);
  else if (effect.kind === 'storageSet') host.storageSet(effect.key, effect.value);
  else host.transientSet(effect.key, effect.value);
}

function transfer(host: EvmHost, to: Uint8Array, value: bigint): boolean {
  if (host.transfer !== undefined) return host.transfer(to, value);
  return host.call({ kind: 'call', to, value, input: new Uint8Array(0), gas: 0n }).success;
}

/** One host request served: the `EvmHost` method of the same name. */
function serve(host: EvmHost, request: HostRequest): unknown {
  switch (request.op) {
    case 'storageGet':
      return host.storageGet(...request.args);
    case 'transientGet':
      return host.transientGet(...request.args);
    case 'balance':
      return host.balance(...request.args);
    case 'code':
      return host.code(...request.args);
    case 'codeHash':
      return host.codeHash(...request.args);
    case 'selfDestruct':
      return host.selfDestruct(...request.args);
    case 'call':
      return host.call(...request.args);
    case 'create':
      return host.create(...request.args);
    case 'blockHash':
      return host.blockHash(...request.args);
    case 'prevRandao':
      return host.prevRandao();
    case 'gasAvailable':
      return host.gasAvailable();
    case 'precompile':
      return host.precompile(...request.args);
    case 'transfer':
      return transfer(host, ...request.args);
    case 'steps':
      return undefined;
  }
}

let shared: EvmBridge | undefined;

/**
 * Runs `code` with `input` (calldata, or nothing for initcode) in `context` over `host`. Re-entrant:
 * host.call may run runEvm again (a nested contract call) before this one returns.
 */
export function runEvm(code: Uint8Array, input: Uint8Array, context: EvmContext, host: EvmHost): EvmOutcome {
  shared ??= new EvmBridge();
  return shared.run(code, input, context, host);
}

/** Ends the shared worker (it is unref'd, so a process exits without this). */
export function closeEvmWorker(): void {
  shared?.close();
  shared = undefined;
}
