/**
 * The runtime an actor method runs against: what builtin-actors' `Runtime` trait gives a wasm actor,
 * as the FVM's syscalls implement it. One Runtime exists per invocation. Every state access and
 * send is charged gas by the call manager behind it; a method ends by returning (success), by
 * throwing an `ActorError` (`abort`), or — out of gas, broken invariants — by an error that fails
 * the whole message.
 */

import type { CID } from 'multiformats/cid';
import type { DomainSeparationTag } from '../crypto/index.js';
import type { Blockstore } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import type { ActorName } from '../state/index.js';
import type { Address, EventEntry, Signature } from '../types/index.js';
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
  /** Set when the VM refused the send before the callee ran (the FVM's syscall error). */
  readonly refusal?: SendRefusal;
}

/** Why the VM refused a send (the FVM syscall error numbers builtin-actors' EVM tells apart). */
export type SendRefusal = 'insufficient-funds' | 'not-found' | 'illegal-argument' | 'limit-exceeded' | 'read-only';

/**
 * A seal proof to check (go-state-types `proof.SealVerifyInfo`, less the deal IDs v18 leaves
 * empty); the sector id is the miner's actor id and the sector number.
 */
export interface SealVerifyInfo {
  /** The RegisteredSealProof number as on chain. */
  readonly sealProof: number;
  readonly minerId: bigint;
  readonly sectorNumber: bigint;
  /** The seal randomness (32 bytes, unmasked). */
  readonly ticket: Uint8Array;
  /** The interactive randomness (32 bytes, unmasked). */
  readonly seed: Uint8Array;
  readonly proof: Uint8Array;
  readonly sealedCid: CID;
  /** CommD; for a committed-capacity sector the caller passes `zeroCommDCid(sealProof)`. */
  readonly unsealedCid: CID;
}

/** go-state-types `proof.SectorInfo`: a sector challenged by a window PoSt. */
export interface ChallengedSector {
  readonly sealProof: number;
  readonly sectorNumber: bigint;
  readonly sealedCid: CID;
}

/** A window PoSt to check (go-state-types `proof.WindowPoStVerifyInfo`). */
export interface WindowPoStVerifyInfo {
  /** The challenge draw (32 bytes, unmasked: the syscall masks it). */
  readonly randomness: Uint8Array;
  /** go-state-types `proof.PoStProof`: the RegisteredPoStProof number and the proof bytes. */
  readonly proofs: readonly { readonly postProof: number | bigint; readonly proofBytes: Uint8Array }[];
  readonly challengedSectors: readonly ChallengedSector[];
  /** The miner's actor id. */
  readonly prover: bigint;
}

/** go-state-types `proof.AggregateSealVerifyProofAndInfos` (SnarkPack); this node cannot verify it. */
export interface AggregateSealVerifyInfo {
  readonly miner: bigint;
  readonly sealProof: number;
  readonly aggregateProof: bigint;
  readonly proof: Uint8Array;
  readonly infos: readonly unknown[];
}

/** How a send runs (FVM send flags). */
export interface SendOptions {
  /** The callee and everything it calls may not change state, move value or emit events. */
  readonly readOnly?: boolean;
  /**
   * The most gas the call may use; running out of it fails only the call (SYS_OUT_OF_GAS), not the
   * message (ref-fvm `send` with a gas limit).
   */
  readonly gasLimit?: bigint;
}

export interface Runtime {
  readonly networkParams: NetworkParams;
  readonly epoch: bigint;
  /** Unix seconds of the tipset being executed. */
  readonly timestamp: bigint;
  /** The tipset's base fee. */
  readonly baseFee: bigint;
  /** The message's effective gas premium: min(GasPremium, GasFeeCap − base fee), at least 0. */
  readonly gasPremium: bigint;
  /** The invoked actor's ID. */
  readonly receiver: bigint;
  /** The immediate caller's ID. */
  readonly caller: bigint;
  /** The ID of the message's sender (the top of the call stack). */
  readonly origin: bigint;
  /** The top-level message's nonce (its sequence before the increment). */
  readonly originNonce: bigint;
  /** True inside a read-only call: writes, transfers and events abort with USR_READ_ONLY. */
  readonly readOnly: boolean;
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
  /** The CID of the receiver's state (builtin-actors `get_state_root`). */
  stateHead(): CID;
  /** Points the receiver's state at a block already in `store` (builtin-actors `set_state_root`). */
  setStateHead(head: CID): void;
  /** Loads the state, lets `fn` change it, and writes it back unless `fn` throws. */
  transaction<S, R>(codec: StateCodec<S>, fn: (state: S) => R): R;

  /** Calls `method` of `to` with `value` attached. The call's changes are undone if it fails. */
  send(to: Address, method: bigint, params: Uint8Array | null, value: bigint, options?: SendOptions): SendResult;
  /** Gas left to the message. */
  gasAvailable(): bigint;
  /** Charges the EVM instructions the interpreter ran (see `PRICES.evmInstruction`). */
  chargeEvmInstructions(steps: number): void;

  /**
   * Records an actor event (FIP-0049) for the message's receipt; it is dropped if this call or a
   * caller fails. At most 255 entries, keys of at most 31 bytes, values of 8 KiB in all.
   */
  emitEvent(entries: readonly EventEntry[]): void;

  /** The ID an address stands for, if any. */
  resolveAddress(address: Address): bigint | undefined;
  /** The f4 address of the actor with this ID, if it has one. */
  lookupDelegatedAddress(id: bigint): Address | null;
  /** The actor's balance, or undefined when no actor has this ID. */
  actorBalance(id: bigint): bigint | undefined;
  /** The type of the actor with this ID, if it exists and is one we run. */
  getActorType(id: bigint): ActorName | undefined;
  /** Creates an actor of `type` at `id` (Init's Exec), with empty state and no balance. */
  createActor(type: ActorName, id: bigint, delegatedAddress: Address | null): void;
  /** A new, unique f2 address for an actor created by this message (FVM `next_actor_address`). */
  newActorAddress(): Address;

  /** Checks a secp256k1 or BLS signature by `signer` (an f1 or f3 address) over `plaintext`. */
  verifySignature(signature: Signature, signer: Address, plaintext: Uint8Array): boolean;
  hashBlake2b(data: Uint8Array): Uint8Array;
  hashKeccak256(data: Uint8Array): Uint8Array;
  /**
   * The CID of the tipset at `epoch` (an earlier epoch of this chain), or undefined where the VM
   * has no chain or the epoch is out of reach (EVM BLOCKHASH).
   */
  tipsetCid(epoch: bigint): CID | undefined;

  /**
   * DrawRandomness over the min ticket at `round` (builtin-actors `get_randomness_from_tickets`).
   * Aborts with USR_ILLEGAL_ARGUMENT when `round` is after the current epoch or the chain cannot
   * answer, as the FVM's syscall error reaches the actor.
   */
  getRandomnessFromTickets(tag: DomainSeparationTag, round: bigint, entropy: Uint8Array): Uint8Array;
  /** The beacon digest `round` reads, undrawn (FVM `get_beacon_randomness`, FIP-0095); fails as below. */
  beaconRandomness(round: bigint): Uint8Array;
  /** DrawRandomness over the beacon entry `round` reads; fails as `getRandomnessFromTickets` does. */
  getRandomnessFromBeacon(tag: DomainSeparationTag, round: bigint, entropy: Uint8Array): Uint8Array;

  /** True only for a valid seal proof; inputs the FVM would refuse (a CID of the wrong kind) are false. */
  verifySeal(info: SealVerifyInfo): boolean;
  /** One answer per info, verified in parallel (FVM `batch_verify_seals`; gas per info). */
  batchVerifySeals(infos: readonly SealVerifyInfo[]): boolean[];
  /** Aborts with USR_ILLEGAL_ARGUMENT: aggregate (SnarkPack) verification is not available here. */
  verifyAggregateSeals(aggregate: AggregateSealVerifyInfo): never;
  /**
   * True only for a valid window PoSt (FVM `verify_post`): the randomness is masked, sectors listed
   * twice count once, every sector's seal type must match the proof's PoSt type.
   */
  verifyPoSt(info: WindowPoStVerifyInfo): boolean;

  /** Ends the invocation with `exitCode`, undoing its state changes. */
  abort(exitCode: ExitCode, message: string): never;
}
