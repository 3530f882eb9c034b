/**
 * A contract's view of its own state while it runs (builtin-actors
 * `actors/evm/src/interpreter/system.rs` `System`): storage and transient slots in KAMTs, the
 * bytecode, the CREATE nonce and the tombstone, written back as one state object before every
 * outgoing call and at the end, and reloaded after a call that succeeded (the callee may have
 * re-entered this contract and changed it).
 */
import type { CID } from 'multiformats/cid';
import { DomainSeparationTag } from '../../../crypto/index.js';
import { type Address, cidOfCbor, cidOfRaw } from '../../../types/index.js';
import { ActorError } from '../../errors.js';
import { ExitCode } from '../../exit-code.js';
import type { Runtime, SendOptions, SendResult } from '../../runtime.js';
import { type EvmState, evmStateStruct, type MessageStamp } from './state.js';
import { EvmStorage } from './storage.js';

/** EIP-170: the largest contract code. */
export const MAX_CODE_SIZE = 24 << 10;

interface Bytecode {
  readonly cid: CID;
  readonly hash: Uint8Array;
}

/** The top-level message a contract runs in: what tombstones and transient data are stamped with. */
export function currentStamp(rt: Runtime): MessageStamp {
  return { origin: rt.origin, nonce: rt.originNonce };
}

function sameStamp(a: MessageStamp, b: MessageStamp): boolean {
  return a.origin === b.origin && a.nonce === b.nonce;
}

/** A contract that self-destructed in an earlier message is dead: no code, no storage. */
export function isDead(rt: Runtime, state: EvmState): boolean {
  return state.tombstone !== null && !sameStamp(state.tombstone, currentStamp(rt));
}

export function readEvmState(rt: Runtime): EvmState {
  const head = rt.stateHead();
  const bytes = rt.store.get(head);
  if (bytes === undefined) throw new ActorError(ExitCode.UsrIllegalState, `EVM state ${head} not in the blockstore`);
  try {
    return evmStateStruct.decode(bytes);
  } catch (error) {
    throw new ActorError(ExitCode.UsrSerialization, `failed to decode EVM state: ${(error as Error).message}`);
  }
}

export class EvmSystem {
  readonly rt: Runtime;
  readonly readOnly: boolean;
  #bytecode: Bytecode | null;
  #slots: EvmStorage;
  #transient: EvmStorage;
  readonly #lifespan: MessageStamp;
  #nonce: bigint;
  /** The state head as last written or read; null while something changed since. */
  #savedRoot: CID | null;
  #tombstone: MessageStamp | null;
  #randomness: Uint8Array | undefined;

  private constructor(rt: Runtime, readOnly: boolean, state?: EvmState, root?: CID) {
    this.rt = rt;
    this.readOnly = readOnly;
    this.#lifespan = currentStamp(rt);
    this.#bytecode = null;
    this.#slots = EvmStorage.create(rt.store);
    this.#transient = EvmStorage.create(rt.store);
    this.#nonce = 1n;
    this.#savedRoot = null;
    this.#tombstone = null;
    if (state !== undefined && root !== undefined) this.#adopt(state, root);
  }

  /** A new contract: its actor must have no state yet. */
  static create(rt: Runtime, emptyHead: CID): EvmSystem {
    if (!rt.stateHead().equals(emptyHead)) {
      throw new ActorError(ExitCode.UsrIllegalState, "can't create over an existing actor");
    }
    return new EvmSystem(rt, rt.readOnly);
  }

  /** A fresh contract over a dead one (CREATE2 or CreateExternal to its address again). */
  static resurrect(rt: Runtime): EvmSystem {
    if (!isDead(rt, readEvmState(rt)))
      throw new ActorError(ExitCode.UsrForbidden, 'can only resurrect a dead contract');
    return new EvmSystem(rt, rt.readOnly);
  }

  /** The running contract; a dead one loads as empty and read-only (its code is empty, so nothing runs). */
  static load(rt: Runtime): EvmSystem {
    const state = readEvmState(rt);
    if (isDead(rt, state)) return new EvmSystem(rt, true);
    return new EvmSystem(rt, rt.readOnly, state, rt.stateHead());
  }

  get bytecodeCid(): CID | null {
    return this.#bytecode?.cid ?? null;
  }

  get nonce(): bigint {
    return this.#nonce;
  }

  incrementNonce(): void {
    this.#savedRoot = null;
    this.#nonce++;
  }

  markSelfDestructed(): void {
    this.#savedRoot = null;
    this.#tombstone = currentStamp(this.rt);
  }

  /** Stores the code as a raw block; refuses what EIP-170 and EIP-3541 refuse. */
  setBytecode(code: Uint8Array): Bytecode {
    this.#savedRoot = null;
    if (code.length > MAX_CODE_SIZE) {
      throw new ActorError(
        ExitCode.UsrIllegalArgument,
        `EVM byte code length (${code.length}) is exceeding the maximum allowed of ${MAX_CODE_SIZE}`,
      );
    }
    if (code[0] === 0xef) {
      throw new ActorError(
        ExitCode.UsrIllegalArgument,
        'EIP-3541: Contract code starting with the 0xEF byte is disallowed.',
      );
    }
    const hash = this.rt.hashKeccak256(code);
    const cid = cidOfRaw(code);
    this.rt.store.put(cid, code);
    this.#bytecode = { cid, hash };
    return this.#bytecode;
  }

  getStorage(key: bigint): bigint {
    return this.#slots.get(key);
  }

  setStorage(key: bigint, value: bigint): void {
    if (this.#slots.set(key, value)) this.#savedRoot = null;
  }

  getTransient(key: bigint): bigint {
    return this.#transient.get(key);
  }

  setTransient(key: bigint, value: bigint): void {
    if (this.#transient.set(key, value)) this.#savedRoot = null;
  }

  /** PREVRANDAO: beacon randomness at the current epoch, drawn once per invocation. */
  randomness(): Uint8Array {
    this.#randomness ??= this.rt.getRandomnessFromBeacon(
      DomainSeparationTag.EvmPrevRandao,
      this.rt.epoch,
      new TextEncoder().encode('prevrandao'),
    );
    return this.#randomness;
  }

  /** Writes the state object unless nothing changed; a read-only contract with changes is refused. */
  flush(): void {
    if (this.#savedRoot !== null) return;
    if (this.readOnly) throw new ActorError(ExitCode.UsrForbidden, 'contract invocation is read only');
    const bytecode = this.#bytecode ?? this.setBytecode(new Uint8Array(0));
    const transientData = this.#transient.isEmpty ? null : { state: this.#transient.flush(), lifespan: this.#lifespan };
    const state: EvmState = {
      bytecode: bytecode.cid,
      bytecodeHash: bytecode.hash,
      contractState: this.#slots.flush(),
      transientData,
      nonce: this.#nonce,
      tombstone: this.#tombstone,
    };
    const bytes = evmStateStruct.encode(state);
    const root = cidOfCbor(bytes);
    this.rt.store.put(root, bytes);
    this.rt.setStateHead(root);
    this.#savedRoot = root;
  }

  /** Reads the state again if a call changed it (a re-entrant call into this contract). */
  reload(): void {
    if (this.readOnly) return;
    const root = this.rt.stateHead();
    if (this.#savedRoot?.equals(root)) return;
    this.#adopt(readEvmState(this.rt), root);
  }

  /**
   * A send that flushes first and reloads after a success (builtin-actors `System::send_raw`).
   */
  send(to: Address, method: bigint, params: Uint8Array | null, value: bigint, options: SendOptions = {}): SendResult {
    this.flush();
    const result = this.rt.send(to, method, params, value, options);
    if (result.exitCode === ExitCode.Ok) this.reload();
    return result;
  }

  #adopt(state: EvmState, root: CID): void {
    const transient = state.transientData;
    this.#transient =
      transient !== null && sameStamp(transient.lifespan, this.#lifespan)
        ? EvmStorage.load(this.rt.store, transient.state)
        : EvmStorage.create(this.rt.store);
    this.#slots = EvmStorage.load(this.rt.store, state.contractState);
    this.#nonce = state.nonce;
    this.#savedRoot = root;
    this.#bytecode = { cid: state.bytecode, hash: state.bytecodeHash };
    this.#tombstone = state.tombstone;
  }
}
