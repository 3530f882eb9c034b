/**
 * The runtime an actor method runs against: what builtin-actors' `Runtime` trait gives a wasm actor,
 * as the FVM's syscalls implement it. One Runtime exists per invocation. Every state access and
 * send is charged gas by the call manager behind it; a method ends by returning (success), by
 * throwing an `ActorError` (`abort`), or — out of gas, broken invariants — by an error that fails
 * the whole message.
 */

import type { Blockstore } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import type { ActorName } from '../state/index.js';
import type { Address, Signature } from '../types/index.js';
import type { ExitCode } from './exit-code.js';

/**
 * Encodes and decodes an actor's state object (its head block). A declared state struct
 * (`declareStruct`, types/struct.ts) is one as it stands.
 */
export interface StateCodec<S> {
  decode(bytes: Uint8Array): S;
  encode(state: S): Uint8Array;
}

/** A declared struct's value with its fields writable: the state a method changes in a transaction. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What a send returned: the callee's exit code and return bytes, or the VM's refusal as a user code. */
export interface SendResult {
  readonly exitCode: ExitCode;
  readonly returnData: Uint8Array | null;
}

export interface Runtime {
  readonly networkParams: NetworkParams;
  readonly epoch: bigint;
  /** Unix seconds of the tipset being executed. */
  readonly timestamp: bigint;
  /** The invoked actor's ID. */
  readonly receiver: bigint;
  /** The immediate caller's ID. */
  readonly caller: bigint;
  /** The ID of the message's sender (the top of the call stack). */
  readonly origin: bigint;
  readonly method: bigint;
  readonly valueReceived: bigint;
  /** Blocks of the actor's state; every read and write is charged. */
  readonly store: Blockstore;

  /** The receiver's balance (after the value it received). */
  currentBalance(): bigint;
  /** The network's circulating supply as this VM reports it (see `circulating-supply.ts`). */
  totalFilCirculatingSupply(): bigint;

  /** Aborts with USR_FORBIDDEN unless the immediate caller is one of `ids`. */
  validateImmediateCallerIs(...ids: bigint[]): void;
  /** Aborts with USR_FORBIDDEN unless the immediate caller is an actor of one of these types. */
  validateImmediateCallerType(...types: ActorName[]): void;
  /** Marks a method as callable by anyone (builtin-actors requires every method to validate). */
  validateImmediateCallerAcceptAny(): void;

  /** The receiver's state, decoded. */
  state<S>(codec: StateCodec<S>): S;
  /** Writes the receiver's first state; only while its head is still the empty placeholder. */
  createState<S>(codec: StateCodec<S>, state: S): void;
  /** Loads the state, lets `fn` change it, and writes it back unless `fn` throws. */
  transaction<S, R>(codec: StateCodec<S>, fn: (state: S) => R): R;

  /** Calls `method` of `to` with `value` attached. The call's changes are undone if it fails. */
  send(to: Address, method: bigint, params: Uint8Array | null, value: bigint): SendResult;

  /** The ID an address stands for, if any. */
  resolveAddress(address: Address): bigint | undefined;
  /** The type of the actor with this ID, if it exists and is one we run. */
  getActorType(id: bigint): ActorName | undefined;
  /** Creates an actor of `type` at `id` (Init's Exec), with empty state and no balance. */
  createActor(type: ActorName, id: bigint, delegatedAddress: Address | null): void;
  /** A new, unique f2 address for an actor created by this message (FVM `next_actor_address`). */
  newActorAddress(): Address;

  /** Checks a secp256k1 or BLS signature by `signer` (an f1 or f3 address) over `plaintext`. */
  verifySignature(signature: Signature, signer: Address, plaintext: Uint8Array): boolean;
  hashBlake2b(data: Uint8Array): Uint8Array;

  /** Ends the invocation with `exitCode`, undoing its state changes. */
  abort(exitCode: ExitCode, message: string): never;
}
