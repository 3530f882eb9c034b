/**
 * The messages between `runEvm` (main thread, src/vm/evm/interpreter.ts) and the EVM worker
 * (src/vm/evm/evm-worker.ts). Both ends wait with `Atomics.wait` on their own slot of a shared
 * Int32Array and read with `receiveMessageOnPort`, so neither needs its event loop during a run;
 * a message is posted first and the receiver's slot bumped and notified after.
 */
import type { EvmContext, EvmOutcome } from './types.js';

/** Slots of the shared Int32Array. */
export const Signal = {
  /** Bumped by the worker after each message it posts; the main thread waits on it. */
  Main: 0,
  /** Bumped by the main thread after each message it posts; the worker waits on it in a run. */
  Worker: 1,
  /** The worker's executed-instruction count (mod 2^31), so a waiting main thread sees it progress. */
  Heartbeat: 2,
  /** Set to 1 by the worker when its thread ends. */
  Exited: 3,
  /** Set to 1 by the worker once its modules are loaded (before that, no heartbeat can come). */
  Ready: 4,
} as const;
export const SIGNAL_SLOTS = 5;

/** One host request: the `EvmHost` method and its arguments, in the interface's own order. */
export type HostRequest =
  | { readonly op: 'storageGet' | 'transientGet'; readonly args: [key: bigint] }
  | { readonly op: 'balance' | 'code' | 'codeHash' | 'selfDestruct'; readonly args: [address: Uint8Array] }
  | {
      readonly op: 'call';
      readonly args: [
        { kind: 'call' | 'staticcall' | 'delegatecall'; to: Uint8Array; value: bigint; input: Uint8Array; gas: bigint },
      ];
    }
  | {
      readonly op: 'create';
      readonly args: [{ kind: 'create' | 'create2'; value: bigint; initcode: Uint8Array; salt?: Uint8Array }];
    }
  | { readonly op: 'blockHash'; readonly args: [epoch: bigint] }
  | { readonly op: 'prevRandao'; readonly args: [] }
  | { readonly op: 'transfer'; readonly args: [to: Uint8Array, value: bigint] }
  | { readonly op: 'gasAvailable'; readonly args: [] }
  | {
      readonly op: 'precompile';
      readonly args: [
        address: Uint8Array,
        input: Uint8Array,
        call: { kind: 'call' | 'staticcall' | 'delegatecall'; value: bigint },
      ];
    }
  /** Only reports `steps` (sent every so many instructions when the host meters them). */
  | { readonly op: 'steps'; readonly args: [] };

/**
 * What a run did that needs no answer: events and storage writes. They travel with the run's next
 * message and the main thread applies them in order before serving it, which saves a round trip
 * each (the run cannot tell: it reads its own pending writes back, and anything that lets other
 * code run is a host request, so a nested call sees them). A run that does not succeed drops the
 * ones still pending; its actor aborts and the VM undoes what was applied.
 */
export type Effect =
  | { readonly kind: 'log'; readonly topics: Uint8Array[]; readonly data: Uint8Array }
  | { readonly kind: 'storageSet' | 'transientSet'; readonly key: bigint; readonly value: bigint };

/** Main thread → worker. */
export type ToWorker =
  | {
      readonly type: 'run';
      readonly run: number;
      readonly code: Uint8Array;
      readonly input: Uint8Array;
      readonly context: EvmContext;
      /** The host meters instructions (`chargeSteps`): report them every `STEP_REPORT_INTERVAL`. */
      readonly meterSteps: boolean;
    }
  | { readonly type: 'answer'; readonly run: number; readonly value: unknown }
  /** The host threw: end run `run` now, without an outcome (the worker acknowledges with `aborted`). */
  | { readonly type: 'abort'; readonly run: number };

/** Worker → main thread. `steps` and `effects` are what ran since the previous message of the same run. */
export type FromWorker =
  | {
      readonly type: 'host';
      readonly run: number;
      readonly request: HostRequest;
      readonly steps: number;
      readonly effects: Effect[];
    }
  | {
      readonly type: 'done';
      readonly run: number;
      readonly outcome: EvmOutcome;
      readonly steps: number;
      readonly effects: Effect[];
    }
  | { readonly type: 'aborted'; readonly run: number }
  /** The worker failed on its own (a bug, not the contract's fault). */
  | { readonly type: 'failed'; readonly run: number; readonly message: string };

/** How many instructions a metered run executes between two step reports. */
export const STEP_REPORT_INTERVAL = 10_000;
