/**
 * Runs one message's calls (ref-fvm `call_manager/default.rs`): resolves or auto-creates the
 * recipient, moves value, invokes actor code, charges gas for each step and records the execution
 * trace. Every call is a state transaction: a call that fails (non-zero exit code or a refused
 * send) leaves no change behind, and a nested call fails on its own without failing its caller.
 */
import {
  ACTOR_CODES,
  type ActorName,
  actorNameOf,
  EAM_ACTOR_ID,
  EMPTY_STATE_HEAD,
  type StateTree,
  SYSTEM_ACTOR_ID,
} from '../state/index.js';
import { type Actor, Address, AddressProtocol, type Event, type EventEntry, encodeCbor } from '../types/index.js';
import { invokeMethod } from './actors/actor.js';
import { actorImplementation } from './actors/registry.js';
import { ActorError, OutOfGasError, VmError, VmErrorCode } from './errors.js';
import type { ActorTrace, ExecutionTrace, GasTrace, MessageTrace } from './execution-trace.js';
import { IpldCodec } from './execution-trace.js';
import { ExitCode, FIRST_USER_EXIT_CODE } from './exit-code.js';
import type { GasTracker } from './gas/gas-tracker.js';
import {
  type GasCharge,
  onActorEvent,
  onActorLookup,
  onActorUpdate,
  onChainReturnValue,
  onCreateActor,
  onMethodInvocation,
  onValueTransfer,
  PRELOADED_ACTORS,
} from './gas/price-list.js';
import { InvocationRuntime } from './invocation-runtime.js';
import { METHOD_CONSTRUCTOR, METHOD_SEND } from './methods.js';
import type { SendRefusal } from './runtime.js';
import { ActorAccess, StateAccessTracker } from './state-access-tracker.js';
import type { VmContext } from './vm-context.js';

/** The FVM's call depth limit. */
const MAX_CALL_DEPTH = 1025;

/** ref-fvm kernel `emit_event` limits. */
const MAX_EVENT_ENTRIES = 255;
const MAX_EVENT_KEY_LENGTH = 31;
const MAX_EVENT_VALUES_LENGTH = 8 << 10;

/** Why the VM refused a send before the callee ran (the FVM's syscall error numbers). */
export type SendFailure = SendRefusal;

class SendRefused extends Error {
  constructor(
    readonly failure: SendFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface CallResult {
  readonly exitCode: ExitCode;
  readonly returnData: Uint8Array | null;
  /**
   * Set when the VM refused the send. `exitCode` is then what a message failing this way reports
   * (ref-fvm executor) and what its trace shows; an actor's send sees builtin-actors' user code.
   */
  readonly failure: SendFailure | null;
  /** Why the call failed, for receipts' error strings; "" on success. */
  readonly error: string;
}

/** One send: who calls whom, how, with what. */
interface CallRequest {
  readonly from: bigint;
  readonly to: Address;
  readonly method: bigint;
  readonly params: Uint8Array | null;
  readonly value: bigint;
  readonly readOnly: boolean;
}

interface TraceFrame {
  msg: MessageTrace;
  invokedActor: ActorTrace | null;
  gasCharges: GasTrace[];
  subcalls: ExecutionTrace[];
}

/** The exit code a refused send gives a message when it happens at the top level (ref-fvm executor). */
function topLevelExitCode(failure: SendFailure): ExitCode {
  if (failure === 'insufficient-funds') return ExitCode.SysInsufficientFunds;
  if (failure === 'not-found') return ExitCode.SysInvalidReceiver;
  return ExitCode.SysAssertionFailed;
}

function toGasTrace(charge: GasCharge): GasTrace {
  return {
    name: charge.name,
    totalGas: BigInt(Math.ceil((charge.compute + charge.storage) / 1000)),
    computeGas: BigInt(Math.ceil(charge.compute / 1000)),
    storageGas: BigInt(Math.ceil(charge.storage / 1000)),
  };
}

/** The compressed BLS identity point: an f3 address no key can sign for. */
function isBlsZeroAddress(address: Address): boolean {
  if (address.protocol !== AddressProtocol.BLS) return false;
  const payload = address.payload;
  return payload[0] === 0xc0 && payload.subarray(1).every((byte) => byte === 0);
}

export class CallManager {
  readonly context: VmContext;
  readonly tree: StateTree;
  readonly gas: GasTracker;
  /** The message sender's ID, address and nonce (for new actor addresses). */
  readonly origin: bigint;
  readonly #originAddress: Address;
  readonly #nonce: bigint;
  /** The message's effective gas premium (EVM GASPRICE is the base fee plus it). */
  readonly gasPremium: bigint;
  /** Events emitted so far by calls that have not failed (ref-fvm's event accumulator). */
  readonly #events: Event[] = [];
  readonly #access = new StateAccessTracker(PRELOADED_ACTORS);
  #actorsCreated = 0n;
  #depth = 0;
  readonly #frames: TraceFrame[] = [];
  /** Charges made outside any call (message inclusion), which belong to the top-level trace. */
  readonly #outerCharges: GasTrace[] = [];
  #rootTrace: ExecutionTrace | null = null;

  constructor(
    context: VmContext,
    tree: StateTree,
    gas: GasTracker,
    origin: { id: bigint; address: Address; nonce: bigint; gasPremium?: bigint },
    receiverId: bigint | undefined,
  ) {
    this.context = context;
    this.tree = tree;
    this.gas = gas;
    this.origin = origin.id;
    this.#originAddress = origin.address;
    this.#nonce = origin.nonce;
    this.gasPremium = origin.gasPremium ?? 0n;
    // The sender was read and updated in preflight (paid by OnChainMessage); the receiver counts as read.
    this.#access.recordUpdate(origin.id);
    if (receiverId !== undefined) this.#access.recordRead(receiverId);
    if (context.tracing) {
      gas.onCharge = (charge) => (this.#frames.at(-1)?.gasCharges ?? this.#outerCharges).push(toGasTrace(charge));
    }
  }

  charge(charge: GasCharge): void {
    this.gas.charge(charge);
  }

  /** The top-level message's nonce. */
  get originNonce(): bigint {
    return this.#nonce;
  }

  /** The events of the calls that succeeded, in emission order. */
  get events(): readonly Event[] {
    return this.#events;
  }

  /**
   * Records an event from `emitter` (ref-fvm kernel `emit_event`: the same limits, then the
   * OnActorEvent charge); a call that fails later drops it. A refused event aborts the actor with
   * USR_ASSERTION_FAILED, as builtin-actors' runtime turns every emit_event error into.
   */
  emitEvent(emitter: bigint, entries: readonly EventEntry[]): void {
    let keyBytes = 0;
    let valueBytes = 0;
    for (const entry of entries) {
      const keyLength = new TextEncoder().encode(entry.key).length;
      if (keyLength > MAX_EVENT_KEY_LENGTH) {
        throw new ActorError(
          ExitCode.UsrAssertionFailed,
          `event key exceeds ${MAX_EVENT_KEY_LENGTH} bytes: ${entry.key}`,
        );
      }
      if (entry.codec !== BigInt(IpldCodec.Raw) && entry.codec !== BigInt(IpldCodec.Cbor)) {
        throw new ActorError(ExitCode.UsrAssertionFailed, `event codec must be IPLD_RAW or CBOR, was ${entry.codec}`);
      }
      keyBytes += keyLength;
      valueBytes += entry.value.length;
    }
    this.charge(onActorEvent(entries.length, keyBytes, valueBytes));
    if (entries.length > MAX_EVENT_ENTRIES) {
      throw new ActorError(ExitCode.UsrAssertionFailed, `event exceeded max entries: ${entries.length} > 255`);
    }
    if (valueBytes > MAX_EVENT_VALUES_LENGTH) {
      throw new ActorError(ExitCode.UsrAssertionFailed, `event values exceed ${MAX_EVENT_VALUES_LENGTH} bytes in all`);
    }
    this.#events.push({ emitter, entries: [...entries] });
  }

  /** The message's trace: the top-level call with the charges made around it. */
  executionTrace(): ExecutionTrace | null {
    if (this.#rootTrace === null) return null;
    return { ...this.#rootTrace, gasCharges: [...this.#outerCharges, ...this.#rootTrace.gasCharges] };
  }

  /**
   * Calls `method` of `to` from actor `from`, in its own transaction: undone unless it succeeds.
   * Out-of-gas and fatal errors propagate (after the undo) and fail the whole message.
   */
  call(
    from: bigint,
    to: Address,
    method: bigint,
    params: Uint8Array | null,
    value: bigint,
    readOnly = false,
    gasLimit?: bigint,
  ): CallResult {
    const request: CallRequest = { from, to, method, params, value, readOnly };
    if (gasLimit === undefined) return this.#transactionalCall(request);
    this.gas.pushLimit(gasLimit);
    let result: CallResult;
    try {
      result = this.#transactionalCall(request);
    } catch (error) {
      this.gas.popLimit();
      // Out of the call's own gas, not the message's: only the call fails (ref-fvm call_manager `send`).
      if (error instanceof OutOfGasError && this.gas.gasAvailable > 0n) {
        return { exitCode: ExitCode.SysOutOfGas, returnData: null, failure: null, error: error.message };
      }
      throw error;
    }
    this.gas.popLimit();
    return result;
  }

  #transactionalCall(request: CallRequest): CallResult {
    this.tree.beginTransaction();
    this.#access.beginTransaction();
    const eventCount = this.#events.length;
    let result: CallResult;
    try {
      result = this.#tracedCall(request);
    } catch (error) {
      this.tree.endTransaction(true);
      this.#access.endTransaction(true);
      this.#events.length = eventCount;
      throw error;
    }
    const revert = result.exitCode !== ExitCode.Ok;
    this.tree.endTransaction(revert);
    this.#access.endTransaction(revert);
    if (revert) this.#events.length = eventCount;
    return result;
  }

  resolveAddress(address: Address): bigint | undefined {
    return this.tree.lookupId(address);
  }

  /** Reads an actor, charging OnActorLookup the first time this message touches it. */
  getActor(id: bigint): Actor | undefined {
    if (this.#access.access(id) === ActorAccess.None) this.charge(onActorLookup());
    const actor = this.tree.getActor(id);
    this.#access.recordRead(id);
    return actor;
  }

  /** Writes an actor, charging its lookup and OnActorUpdate if this message has not paid them yet. */
  setActor(id: bigint, actor: Actor): void {
    const access = this.#access.access(id);
    if (access === ActorAccess.None) this.charge(onActorLookup());
    if (access !== ActorAccess.Updated) this.charge(onActorUpdate());
    this.tree.setActor(id, actor);
    this.#access.recordUpdate(id);
  }

  /** Init's `create_actor`: a new actor at a freshly allocated ID, or code for a placeholder. */
  createActor(type: ActorName, id: bigint, delegatedAddress: Address | null): void {
    if (type === 'placeholder')
      throw new ActorError(ExitCode.UsrForbidden, 'cannot explicitly construct a placeholder actor');
    const existing = this.getActor(id);
    let actor: Actor;
    if (existing !== undefined) {
      const isPlaceholder = actorNameOf(existing.code) === 'placeholder';
      if (!isPlaceholder) throw new ActorError(ExitCode.UsrForbidden, `actor f0${id} already exists`);
      const sameAddress =
        existing.delegatedAddress !== null &&
        delegatedAddress !== null &&
        existing.delegatedAddress.equals(delegatedAddress);
      if (!sameAddress) throw new ActorError(ExitCode.UsrForbidden, 'placeholder has a different delegated address');
      actor = { ...existing, code: ACTOR_CODES[type] };
    } else {
      this.charge(onCreateActor(false));
      actor = { code: ACTOR_CODES[type], head: EMPTY_STATE_HEAD, nonce: 0n, balance: 0n, delegatedAddress };
    }
    this.setActor(id, actor);
    this.#actorsCreated++;
  }

  /** f2 of blake2b-160(CBOR(origin address) ‖ u64be(nonce) ‖ u64be(actors created so far)). */
  nextActorAddress(): Address {
    const suffix = new Uint8Array(16);
    const view = new DataView(suffix.buffer);
    view.setBigUint64(0, this.#nonce);
    view.setBigUint64(8, this.#actorsCreated);
    const origin = encodeCbor(this.#originAddress.bytes);
    const data = new Uint8Array(origin.length + suffix.length);
    data.set(origin);
    data.set(suffix, origin.length);
    return Address.newActor(data);
  }

  #tracedCall(request: CallRequest): CallResult {
    const frame = this.context.tracing ? this.#openFrame(request) : undefined;
    let result: CallResult | undefined;
    this.#depth++;
    try {
      result = this.#refusalsAsResults(() => {
        if (this.#depth > MAX_CALL_DEPTH) throw new SendRefused('limit-exceeded', 'call depth limit exceeded');
        return this.#callUnresolved(request);
      });
      return result;
    } catch (error) {
      const exitCode = error instanceof OutOfGasError ? ExitCode.SysOutOfGas : ExitCode.SysAssertionFailed;
      result = { exitCode, returnData: null, failure: null, error: (error as Error).message };
      throw error;
    } finally {
      this.#depth--;
      if (frame !== undefined && result !== undefined) this.#closeFrame(frame, result);
    }
  }

  #refusalsAsResults(call: () => CallResult): CallResult {
    try {
      return call();
    } catch (error) {
      if (!(error instanceof SendRefused)) throw error;
      return {
        exitCode: topLevelExitCode(error.failure),
        returnData: null,
        failure: error.failure,
        error: error.message,
      };
    }
  }

  #callUnresolved(request: CallRequest): CallResult {
    const { from, to, method, params, value, readOnly } = request;
    let toId = this.resolveAddress(to);
    if (toId === undefined) {
      const isKey = to.protocol === AddressProtocol.Secp256k1 || to.protocol === AddressProtocol.BLS;
      const isEth = to.protocol === AddressProtocol.Delegated && to.delegated().namespace === EAM_ACTOR_ID;
      if ((isKey || isEth) && readOnly) {
        throw new SendRefused('read-only', `cannot auto-create ${to} in a read-only call`);
      }
      if (isKey) {
        toId = this.#createAccountFromSend(to);
      } else if (isEth) {
        toId = this.#createPlaceholderFromSend(to);
      } else {
        throw new SendRefused('not-found', `actor does not exist or cannot be created: ${to}`);
      }
    }
    return this.#callResolved(from, toId, method, params, value, true, readOnly);
  }

  /** An f1/f3 recipient becomes an account: a new ID, then its constructor run by the system actor. */
  #createAccountFromSend(address: Address): bigint {
    if (isBlsZeroAddress(address)) {
      throw new SendRefused('illegal-argument', 'cannot create the bls zero address actor');
    }
    const id = this.#createActorFromSend(address, ACTOR_CODES.account, null);
    const constructed = this.#callResolved(
      SYSTEM_ACTOR_ID,
      id,
      METHOD_CONSTRUCTOR,
      encodeCbor(address.bytes),
      0n,
      false,
      false,
    );
    if (constructed.exitCode !== ExitCode.Ok) {
      throw new VmError(VmErrorCode.Fatal, `account constructor for ${address} failed: ${constructed.error}`);
    }
    return id;
  }

  /** An f410 recipient becomes a placeholder holding its delegated address; no constructor runs. */
  #createPlaceholderFromSend(address: Address): bigint {
    return this.#createActorFromSend(address, ACTOR_CODES.placeholder, address);
  }

  #createActorFromSend(address: Address, code: Actor['code'], delegatedAddress: Address | null): bigint {
    this.charge(onCreateActor(true));
    const id = this.tree.registerNewAddress(address);
    this.setActor(id, { code, head: EMPTY_STATE_HEAD, nonce: 0n, balance: 0n, delegatedAddress });
    return id;
  }

  #callResolved(
    from: bigint,
    to: bigint,
    method: bigint,
    params: Uint8Array | null,
    value: bigint,
    traced: boolean,
    readOnly: boolean,
  ): CallResult {
    const actor = this.getActor(to);
    if (actor === undefined) throw new SendRefused('not-found', `actor does not exist: f0${to}`);
    const frame = this.#frames.at(-1);
    if (traced && frame !== undefined) frame.invokedActor = { id: to, state: actor };
    if (value !== 0n) {
      if (readOnly) throw new SendRefused('read-only', 'cannot transfer value in a read-only call');
      this.charge(onValueTransfer());
      this.#transfer(from, to, value);
    }
    const ok: CallResult = { exitCode: ExitCode.Ok, returnData: null, failure: null, error: '' };
    if (traced && method === METHOD_SEND) return ok;

    this.charge(onMethodInvocation());
    const type = actorNameOf(actor.code);
    if (type === undefined) {
      throw new VmError(VmErrorCode.Fatal, `actor f0${to} has code ${actor.code}, which this VM does not run`);
    }
    const runtime = new InvocationRuntime(this, { from, to, method, value, type, readOnly });
    let result: CallResult;
    try {
      result = { ...ok, returnData: invokeMethod(actorImplementation(type), runtime, method, params) };
    } catch (error) {
      if (!(error instanceof ActorError)) throw error;
      const exitCode =
        error.exitCode < FIRST_USER_EXIT_CODE && error.exitCode !== 0 ? ExitCode.SysIllegalExitCode : error.exitCode;
      result = { exitCode, returnData: error.returnData, failure: null, error: error.message };
    }
    if (result.returnData !== null && this.#depth === 1) this.charge(onChainReturnValue(result.returnData.length));
    return result;
  }

  #transfer(from: bigint, to: bigint, value: bigint): void {
    if (value < 0n) throw new SendRefused('illegal-argument', `attempted to transfer negative value ${value}`);
    const sender = this.getActor(from);
    if (sender === undefined || sender.balance < value) {
      throw new SendRefused(
        'insufficient-funds',
        `sender f0${from} does not have funds to transfer (balance ${sender?.balance ?? 0n}, transfer ${value})`,
      );
    }
    if (from === to) return;
    const recipient = this.getActor(to);
    if (recipient === undefined) throw new SendRefused('not-found', `transfer recipient f0${to} does not exist`);
    this.setActor(from, { ...sender, balance: sender.balance - value });
    this.setActor(to, { ...recipient, balance: recipient.balance + value });
  }

  #openFrame(request: CallRequest): TraceFrame {
    const { from, to, method, params, value, readOnly } = request;
    const frame: TraceFrame = {
      msg: {
        from: Address.newId(from),
        to,
        value,
        method,
        params: params ?? new Uint8Array(0),
        paramsCodec: params === null ? IpldCodec.None : method === METHOD_SEND ? IpldCodec.Raw : IpldCodec.Cbor,
        gasLimit: this.gas.gasAvailable,
        readOnly,
      },
      invokedActor: null,
      gasCharges: [],
      subcalls: [],
    };
    this.#frames.push(frame);
    return frame;
  }

  #closeFrame(frame: TraceFrame, result: CallResult): void {
    this.#frames.pop();
    const trace: ExecutionTrace = {
      ...frame,
      msgRct: {
        exitCode: result.exitCode,
        return: result.returnData ?? new Uint8Array(0),
        returnCodec: result.returnData === null ? IpldCodec.None : IpldCodec.Cbor,
      },
    };
    const parent = this.#frames.at(-1);
    if (parent !== undefined) parent.subcalls.push(trace);
    else this.#rootTrace = trace;
  }
}
