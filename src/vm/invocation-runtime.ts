/**
 * The Runtime of one invocation, over the message's call manager. State blocks go through a store
 * that charges the FVM's block read and write prices; sends become nested calls whose refusals
 * reach the actor as the user exit codes builtin-actors maps them to.
 */
import type { CID } from 'multiformats/cid';
import { blake2b256, bls, secp256k1 } from '../crypto/index.js';
import type { Block, Blockstore } from '../ipld/index.js';
import { type ActorName, actorNameOf, EMPTY_STATE_HEAD, INIT_ACTOR_ID, putCborBytes } from '../state/index.js';
import { type Address, AddressProtocol, type Signature, SignatureType } from '../types/index.js';
import type { CallManager, SendFailure } from './call-manager.js';
import { ActorError } from './errors.js';
import { ExitCode } from './exit-code.js';
import { onBlockOpen, onBlockWrite, onHashing, onVerifySignature } from './gas/price-list.js';
import type { Runtime, SendResult, StateCodec } from './runtime.js';

/** How builtin-actors turns a refused send into an exit code (runtime `From<SendError>`). */
function exitCodeForRefusal(failure: SendFailure): ExitCode {
  switch (failure) {
    case 'not-found':
      return ExitCode.UsrUnspecified;
    case 'insufficient-funds':
      return ExitCode.UsrInsufficientFunds;
    default:
      return ExitCode.UsrAssertionFailed;
  }
}

/** A malformed signature or key is an invalid signature, not a VM failure. */
function verifiesWithoutThrowing(verify: () => boolean): boolean {
  try {
    return verify();
  } catch {
    return false;
  }
}

/** The state tree's store, charging gas for every block an actor reads or writes. */
class ChargedStore implements Blockstore {
  constructor(
    private readonly calls: CallManager,
    private readonly backing: Blockstore,
  ) {}

  get(cid: CID): Uint8Array | undefined {
    const bytes = this.backing.get(cid);
    if (bytes !== undefined) this.calls.charge(onBlockOpen(bytes.length));
    return bytes;
  }

  has(cid: CID): boolean {
    return this.backing.has(cid);
  }

  put(cid: CID, bytes: Uint8Array): void {
    this.calls.charge(onBlockWrite(bytes.length));
    this.backing.put(cid, bytes);
  }

  putMany(blocks: Iterable<Block>): void {
    for (const { cid, bytes } of blocks) this.put(cid, bytes);
  }
}

export interface Invocation {
  readonly from: bigint;
  readonly to: bigint;
  readonly method: bigint;
  readonly value: bigint;
  readonly type: ActorName;
}

export class InvocationRuntime implements Runtime {
  readonly store: Blockstore;
  readonly #calls: CallManager;
  readonly #invocation: Invocation;

  constructor(calls: CallManager, invocation: Invocation) {
    this.#calls = calls;
    this.#invocation = invocation;
    this.store = new ChargedStore(calls, calls.tree.store);
  }

  get networkParams() {
    return this.#calls.context.networkParams;
  }

  get epoch(): bigint {
    return this.#calls.context.epoch;
  }

  get timestamp(): bigint {
    return this.#calls.context.timestamp;
  }

  get receiver(): bigint {
    return this.#invocation.to;
  }

  get caller(): bigint {
    return this.#invocation.from;
  }

  get origin(): bigint {
    return this.#calls.origin;
  }

  get method(): bigint {
    return this.#invocation.method;
  }

  get valueReceived(): bigint {
    return this.#invocation.value;
  }

  currentBalance(): bigint {
    return this.#self().balance;
  }

  totalFilCirculatingSupply(): bigint {
    return this.#calls.context.circulatingSupply;
  }

  validateImmediateCallerIs(...ids: bigint[]): void {
    if (!ids.includes(this.caller)) {
      this.abort(
        ExitCode.UsrForbidden,
        `caller f0${this.caller} is not one of ${ids.map((id) => `f0${id}`).join(', ')}`,
      );
    }
  }

  validateImmediateCallerType(...types: ActorName[]): void {
    const type = this.getActorType(this.caller);
    if (type === undefined || !types.includes(type)) {
      this.abort(
        ExitCode.UsrForbidden,
        `caller f0${this.caller} of type ${type ?? 'unknown'} is not ${types.join(' or ')}`,
      );
    }
  }

  validateImmediateCallerAcceptAny(): void {}

  state<S>(codec: StateCodec<S>): S {
    const head = this.#self().head;
    const bytes = this.store.get(head);
    if (bytes === undefined) this.abort(ExitCode.UsrIllegalState, `state ${head} of f0${this.receiver} not found`);
    try {
      return codec.decode(bytes);
    } catch (error) {
      return this.abort(
        ExitCode.UsrIllegalState,
        `state of f0${this.receiver} (${this.#invocation.type}) does not decode: ${(error as Error).message}`,
      );
    }
  }

  createState<S>(codec: StateCodec<S>, state: S): void {
    if (!this.#self().head.equals(EMPTY_STATE_HEAD)) {
      this.abort(ExitCode.UsrIllegalState, `f0${this.receiver} already has state`);
    }
    this.#writeState(codec.encode(state));
  }

  transaction<S, R>(codec: StateCodec<S>, fn: (state: S) => R): R {
    const state = this.state(codec);
    const result = fn(state);
    this.#writeState(codec.encode(state));
    return result;
  }

  send(to: Address, method: bigint, params: Uint8Array | null, value: bigint): SendResult {
    const result = this.#calls.call(this.receiver, to, method, params, value);
    if (result.failure !== null) return { exitCode: exitCodeForRefusal(result.failure), returnData: null };
    return { exitCode: result.exitCode, returnData: result.returnData };
  }

  resolveAddress(address: Address): bigint | undefined {
    return this.#calls.resolveAddress(address);
  }

  getActorType(id: bigint): ActorName | undefined {
    const actor = this.#calls.getActor(id);
    return actor === undefined ? undefined : actorNameOf(actor.code);
  }

  createActor(type: ActorName, id: bigint, delegatedAddress: Address | null): void {
    if (this.receiver !== INIT_ACTOR_ID) this.abort(ExitCode.UsrForbidden, 'only the Init actor creates actors');
    this.#calls.createActor(type, id, delegatedAddress);
  }

  newActorAddress(): Address {
    return this.#calls.nextActorAddress();
  }

  verifySignature(signature: Signature, signer: Address, plaintext: Uint8Array): boolean {
    if (signature.type === SignatureType.Secp256k1 && signer.protocol === AddressProtocol.Secp256k1) {
      this.#calls.charge(onVerifySignature('secp256k1', plaintext.length));
      return verifiesWithoutThrowing(() => secp256k1.verify(signature.data, plaintext, signer.payload));
    }
    if (signature.type === SignatureType.BLS && signer.protocol === AddressProtocol.BLS) {
      this.#calls.charge(onVerifySignature('bls', plaintext.length));
      return verifiesWithoutThrowing(() => bls.verify(signer.payload, plaintext, signature.data));
    }
    return false;
  }

  hashBlake2b(data: Uint8Array): Uint8Array {
    this.#calls.charge(onHashing(data.length));
    return blake2b256(data);
  }

  abort(exitCode: ExitCode, message: string): never {
    throw new ActorError(exitCode, message);
  }

  #self() {
    return this.#calls.tree.requireActor(this.receiver, 'invoked actor');
  }

  #writeState(bytes: Uint8Array): void {
    const head = putCborBytes(this.store, bytes);
    this.#calls.setActor(this.receiver, { ...this.#self(), head });
  }
}
