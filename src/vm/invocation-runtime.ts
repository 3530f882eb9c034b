/**
 * The Runtime of one invocation, over the message's call manager. State blocks go through a store
 * that charges the FVM's block read and write prices; sends become nested calls whose refusals
 * reach the actor as the user exit codes builtin-actors maps them to.
 */
import type { CID } from 'multiformats/cid';
import {
  blake2b256,
  bls,
  type DomainSeparationTag,
  drawRandomnessFromDigest,
  keccak256,
  secp256k1,
} from '../crypto/index.js';
import type { Block, Blockstore } from '../ipld/index.js';
import { type ActorName, actorNameOf, EMPTY_STATE_HEAD, INIT_ACTOR_ID, putCborBytes } from '../state/index.js';
import { type Address, AddressProtocol, type EventEntry, type Signature, SignatureType } from '../types/index.js';
import type { CallManager, SendFailure } from './call-manager.js';
import { ActorError, VmError, VmErrorCode } from './errors.js';
import { ExitCode } from './exit-code.js';
import {
  onBlockOpen,
  onBlockWrite,
  onEvmInstructions,
  onGetRandomness,
  onHashing,
  onVerifyPost,
  onVerifySeal,
  onVerifySignature,
} from './gas/price-list.js';
import * as proofSyscalls from './proof-syscalls.js';
import type {
  AggregateSealVerifyInfo,
  Runtime,
  SealVerifyInfo,
  SendOptions,
  SendResult,
  StateCodec,
  WindowPoStVerifyInfo,
} from './runtime.js';
import type { RandomnessSource } from './vm-context.js';

/** int64 DST ‖ 32-byte digest ‖ int64 round: what a draw hashes before the entropy. */
const DRAW_PREFIX_LENGTH = 8 + 32 + 8;

/** How builtin-actors turns a refused send into an exit code (runtime `From<SendError>`). */
function exitCodeForRefusal(failure: SendFailure): ExitCode {
  switch (failure) {
    case 'not-found':
      return ExitCode.UsrUnspecified;
    case 'insufficient-funds':
      return ExitCode.UsrInsufficientFunds;
    case 'read-only':
      return ExitCode.UsrReadOnly;
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
  /** A read-only call (STATICCALL, FVM `SendFlags::READ_ONLY`); absent: false. */
  readonly readOnly?: boolean;
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

  get baseFee(): bigint {
    return this.#calls.context.baseFee;
  }

  get gasPremium(): bigint {
    return this.#calls.gasPremium;
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

  get originNonce(): bigint {
    return this.#calls.originNonce;
  }

  get readOnly(): boolean {
    return this.#invocation.readOnly === true;
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

  stateHead(): CID {
    return this.#self().head;
  }

  setStateHead(head: CID): void {
    if (this.readOnly) this.abort(ExitCode.UsrReadOnly, `f0${this.receiver} cannot change state in a read-only call`);
    this.#calls.setActor(this.receiver, { ...this.#self(), head });
  }

  transaction<S, R>(codec: StateCodec<S>, fn: (state: S) => R): R {
    const state = this.state(codec);
    const result = fn(state);
    this.#writeState(codec.encode(state));
    return result;
  }

  send(to: Address, method: bigint, params: Uint8Array | null, value: bigint, options: SendOptions = {}): SendResult {
    const readOnly = this.readOnly || options.readOnly === true;
    const result = this.#calls.call(this.receiver, to, method, params, value, readOnly, options.gasLimit);
    if (result.failure !== null) {
      return { exitCode: exitCodeForRefusal(result.failure), returnData: null, refusal: result.failure };
    }
    return { exitCode: result.exitCode, returnData: result.returnData };
  }

  gasAvailable(): bigint {
    return this.#calls.gas.gasAvailable;
  }

  chargeEvmInstructions(steps: number): void {
    this.#calls.charge(onEvmInstructions(steps));
  }

  emitEvent(entries: readonly EventEntry[]): void {
    if (this.readOnly) this.abort(ExitCode.UsrReadOnly, 'cannot emit events while read-only');
    this.#calls.emitEvent(this.receiver, entries);
  }

  lookupDelegatedAddress(id: bigint): Address | null {
    return this.#calls.getActor(id)?.delegatedAddress ?? null;
  }

  actorBalance(id: bigint): bigint | undefined {
    return this.#calls.getActor(id)?.balance;
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
    if (this.readOnly) this.abort(ExitCode.UsrReadOnly, 'cannot create actors while read-only');
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

  hashKeccak256(data: Uint8Array): Uint8Array {
    this.#calls.charge(onHashing(data.length));
    return keccak256(data);
  }

  tipsetCid(epoch: bigint): CID | undefined {
    const source = this.#calls.context.randomness;
    if (source?.tipsetCid === undefined || epoch < 0n || epoch >= this.epoch) return undefined;
    this.#calls.charge(onGetRandomness(this.epoch - epoch));
    try {
      return source.tipsetCid(epoch);
    } catch {
      return undefined;
    }
  }

  getRandomnessFromTickets(tag: DomainSeparationTag, round: bigint, entropy: Uint8Array): Uint8Array {
    return this.#draw((source) => source.ticketDigest(round), tag, round, entropy);
  }

  beaconRandomness(round: bigint): Uint8Array {
    return this.#digest((source) => source.beaconDigest(round), round);
  }

  getRandomnessFromBeacon(tag: DomainSeparationTag, round: bigint, entropy: Uint8Array): Uint8Array {
    return this.#draw((source) => source.beaconDigest(round), tag, round, entropy);
  }

  verifySeal(info: SealVerifyInfo): boolean {
    this.#calls.charge(onVerifySeal());
    return proofSyscalls.verifySeal(info);
  }

  batchVerifySeals(infos: readonly SealVerifyInfo[]): boolean[] {
    for (const _ of infos) this.#calls.charge(onVerifySeal());
    return proofSyscalls.batchVerifySeals(infos);
  }

  verifyAggregateSeals(aggregate: AggregateSealVerifyInfo): never {
    // SnarkPack verification needs the aggregation SRS (Filecoin's trusted-setup parameters),
    // which this machine cannot download, so the native core has no aggregate verifier.
    return this.abort(
      ExitCode.UsrIllegalArgument,
      `aggregate proofs are not supported by this node (${aggregate.infos.length} sectors of f0${aggregate.miner})`,
    );
  }

  verifyPoSt(info: WindowPoStVerifyInfo): boolean {
    this.#calls.charge(onVerifyPost(info.challengedSectors.length));
    return proofSyscalls.verifyPoSt(info);
  }

  abort(exitCode: ExitCode, message: string): never {
    throw new ActorError(exitCode, message);
  }

  /**
   * The FVM randomness syscall (ref-fvm `kernel/default.rs`: a future round is an illegal
   * argument, gas by lookback, extern failures are illegal arguments, which builtin-actors turns
   * into USR_ILLEGAL_ARGUMENT), then builtin-actors' draw through the charged blake2b syscall.
   */
  #draw(
    digestOf: (source: RandomnessSource) => Uint8Array,
    tag: DomainSeparationTag,
    round: bigint,
    entropy: Uint8Array,
  ): Uint8Array {
    const digest = this.#digest(digestOf, round);
    this.#calls.charge(onHashing(DRAW_PREFIX_LENGTH + entropy.length));
    return drawRandomnessFromDigest(digest, tag, round, entropy);
  }

  /** The randomness extern's digest at `round`, with the syscall's checks and lookback gas. */
  #digest(digestOf: (source: RandomnessSource) => Uint8Array, round: bigint): Uint8Array {
    const source = this.#calls.context.randomness;
    if (source === undefined) {
      throw new VmError(
        VmErrorCode.InvalidInput,
        `f0${this.receiver} asked for chain randomness at epoch ${round}, but this VM runs without a chain (genesis)`,
      );
    }
    const lookback = this.epoch - round;
    if (lookback < 0n) {
      this.abort(ExitCode.UsrIllegalArgument, `invalid lookback epoch: randomness epoch ${round} is in the future`);
    }
    this.#calls.charge(onGetRandomness(lookback));
    try {
      return digestOf(source);
    } catch (error) {
      return this.abort(ExitCode.UsrIllegalArgument, `invalid lookback epoch: ${(error as Error).message}`);
    }
  }

  #self() {
    return this.#calls.tree.requireActor(this.receiver, 'invoked actor');
  }

  #writeState(bytes: Uint8Array): void {
    if (this.readOnly) this.abort(ExitCode.UsrReadOnly, `f0${this.receiver} cannot change state in a read-only call`);
    const head = putCborBytes(this.store, bytes);
    this.#calls.setActor(this.receiver, { ...this.#self(), head });
  }
}
