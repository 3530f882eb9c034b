/**
 * The EVM host over the FVM runtime: what the interpreter asks of the chain while a contract runs,
 * answered as builtin-actors' EVM answers it (`actors/evm/src/interpreter/instructions/{call,
 * lifecycle,ext,log_event,context}.rs`, `precompiles/fvm.rs`; FIP-0054): storage in the KAMT,
 * CALL/STATICCALL as InvokeContract sends, DELEGATECALL through InvokeContractDelegate, CREATE and
 * CREATE2 through the EAM, SELFDESTRUCT as a tombstone, LOGn as actor events.
 */
import { CID } from 'multiformats/cid';
import { EAM_ACTOR_ID } from '../../../state/index.js';
import { decodeChainCbor } from '../../../types/cbor-node.js';
import {
  Address,
  addressFromEthAddressBytes,
  bigIntToBytes,
  type EventEntry,
  encodeCbor,
} from '../../../types/index.js';
import { ActorError } from '../../errors.js';
import type { EvmContext, EvmHost } from '../../evm/interpreter.js';
import { IpldCodec } from '../../execution-trace.js';
import { ExitCode } from '../../exit-code.js';
import { EamMethod, EvmMethod, METHOD_SEND } from '../../methods.js';
import type { SendResult } from '../../runtime.js';
import { decodeParams } from '../actor.js';
import { eamCreate2Params, eamCreateParams, eamReturn } from '../eam.js';
import { AbiOverflowError, abiConcat, ValueReader, WORD, word } from './abi.js';
import { EMPTY_CODE_HASH, NATIVE_CODE_HASH } from './state.js';
import type { EvmSystem } from './system.js';

/** builtin-actors `EVM_CONTRACT_SELFDESTRUCT_FAILED`. */
export const EVM_SELFDESTRUCT_FAILED = 40;

/** Event entry flags: index both key and value (ref-fvm `FLAG_INDEXED_ALL`). */
const FLAG_INDEXED_ALL = 0x03n;
const TOPIC_KEYS = ['t1', 't2', 't3', 't4'] as const;
/** BLOCKHASH reaches this many epochs back. */
const BLOCKHASH_WINDOW = 256n;
/** The highest method number reserved for builtin-only methods; call_actor refuses 1..1023. */
const MAX_RESERVED_METHOD = 1023n;
const FEVM_PRECOMPILE_PREFIX = 0xfe;
const MAX_U64 = (1n << 64n) - 1n;

export type ContractType = 'evm' | 'account' | 'native' | 'missing';

/** FEVM's reserved precompile range: first byte 0x00 or 0xfe, then 18 zero bytes (builtin-actors). */
export function isPrecompileAddress(address: Uint8Array): boolean {
  return (address[0] === 0x00 || address[0] === 0xfe) && address.subarray(1, 19).every((byte) => byte === 0);
}

/** A callee's return as the EVM sees it: the bytes of a CBOR byte string, else the raw return. */
export function unwrapBytes(data: Uint8Array | null): Uint8Array {
  if (data === null) return new Uint8Array(0);
  try {
    const node = decodeChainCbor(data, 'return');
    if (node instanceof Uint8Array) return node;
  } catch {
    // Not a CBOR byte string: the contract sees the bytes as they came.
  }
  return data;
}

interface CallRequest {
  kind: 'call' | 'staticcall' | 'delegatecall';
  to: Uint8Array;
  value: bigint;
  input: Uint8Array;
  gas: bigint;
}

const EMPTY = new Uint8Array(0);
const FAILED = { success: false, output: EMPTY } as const;
const SUCCEEDED_EMPTY = { success: true, output: EMPTY } as const;

export class FevmHost implements EvmHost {
  readonly #system: EvmSystem;
  readonly #context: EvmContext;

  constructor(system: EvmSystem, context: EvmContext) {
    this.#system = system;
    this.#context = context;
  }

  get #rt() {
    return this.#system.rt;
  }

  storageGet(key: bigint): bigint {
    return this.#system.getStorage(key);
  }

  storageSet(key: bigint, value: bigint): void {
    this.#requireWritable('SSTORE');
    this.#system.setStorage(key, value);
  }

  transientGet(key: bigint): bigint {
    return this.#system.getTransient(key);
  }

  transientSet(key: bigint, value: bigint): void {
    this.#requireWritable('TSTORE');
    this.#system.setTransient(key, value);
  }

  balance(address: Uint8Array): bigint {
    const id = this.#resolve(address);
    return id === undefined ? 0n : (this.#rt.actorBalance(id) ?? 0n);
  }

  code(address: Uint8Array): Uint8Array {
    if (isPrecompileAddress(address)) return EMPTY;
    const id = this.#resolve(address);
    const type = this.#contractType(id);
    if (type === 'native') return Uint8Array.of(0xfe);
    if (type !== 'evm') return EMPTY;
    const code = this.#bytecodeCid(id!);
    if (code === null) return EMPTY;
    const bytes = this.#rt.store.get(code);
    if (bytes === undefined) throw new ActorError(ExitCode.UsrNotFound, `bytecode ${code} not in the blockstore`);
    return bytes;
  }

  codeHash(address: Uint8Array): Uint8Array | null {
    if (isPrecompileAddress(address)) return EMPTY_CODE_HASH;
    const id = this.#resolve(address);
    const type = this.#contractType(id);
    if (type === 'missing') return null;
    if (type === 'native') return NATIVE_CODE_HASH;
    if (type === 'account') return EMPTY_CODE_HASH;
    const result = this.#system.send(Address.newId(id!), EvmMethod.GetBytecodeHash, null, 0n, { readOnly: true });
    if (result.exitCode !== ExitCode.Ok) {
      throw new ActorError(ExitCode.UsrAssertionFailed, `failed to get the bytecode hash of f0${id}`);
    }
    return unwrapBytes(result.returnData);
  }

  call(request: CallRequest): { success: boolean; output: Uint8Array } {
    if (request.kind === 'call' && request.value > 0n) this.#requireWritable('CALL with value');
    if (request.kind === 'delegatecall') return this.#delegateCall(request);
    const params = request.input.length === 0 ? null : encodeCbor(request.input);
    const readOnly = request.kind === 'staticcall';
    const result = this.#system.send(
      addressFromEthAddressBytes(request.to),
      EvmMethod.InvokeContract,
      params,
      request.value,
      { readOnly, gasLimit: this.#callGasLimit(request.gas) },
    );
    if (result.refusal !== undefined) {
      // builtin-actors call.rs: a missing callee is an empty success; a read-only refusal under STATICCALL too.
      if (result.refusal === 'not-found') return SUCCEEDED_EMPTY;
      if (result.refusal === 'read-only' && (readOnly || this.#system.readOnly)) return SUCCEEDED_EMPTY;
      return FAILED;
    }
    return { success: result.exitCode === ExitCode.Ok, output: unwrapBytes(result.returnData) };
  }

  create(request: { kind: 'create' | 'create2'; value: bigint; initcode: Uint8Array; salt?: Uint8Array }): {
    address: Uint8Array | null;
    output: Uint8Array;
  } {
    this.#requireWritable(request.kind.toUpperCase());
    const params =
      request.kind === 'create'
        ? eamCreateParams.encode({ initcode: request.initcode, nonce: this.#system.nonce })
        : eamCreate2Params.encode({ initcode: request.initcode, salt: request.salt ?? new Uint8Array(32) });
    if (request.value > this.#rt.currentBalance()) return { address: null, output: EMPTY };
    this.#system.incrementNonce();
    const method = request.kind === 'create' ? EamMethod.Create : EamMethod.Create2;
    const result = this.#system.send(Address.newId(EAM_ACTOR_ID), method, params, request.value, {
      gasLimit: this.#callGasLimit(MAX_U64),
    });
    if (result.exitCode !== ExitCode.Ok) return { address: null, output: unwrapBytes(result.returnData) };
    return { address: decodeParams(result.returnData, eamReturn).ethAddress, output: EMPTY };
  }

  selfDestruct(beneficiary: Uint8Array): void {
    this.#requireWritable('SELFDESTRUCT');
    const to = addressFromEthAddressBytes(beneficiary);
    const result = this.#rt.send(to, METHOD_SEND, null, this.#rt.currentBalance());
    if (result.exitCode !== ExitCode.Ok) {
      throw new ActorError(EVM_SELFDESTRUCT_FAILED, `failed to transfer funds to beneficiary ${to} on SELFDESTRUCT`);
    }
    this.#system.markSelfDestructed();
  }

  log(topics: Uint8Array[], data: Uint8Array): void {
    this.#requireWritable('LOG');
    const raw = BigInt(IpldCodec.Raw);
    const entries: EventEntry[] = topics.map((topic, i) => ({
      flags: FLAG_INDEXED_ALL,
      key: TOPIC_KEYS[i]!,
      codec: raw,
      value: topic,
    }));
    if (data.length > 0) entries.push({ flags: FLAG_INDEXED_ALL, key: 'd', codec: raw, value: data });
    this.#rt.emitEvent(entries);
  }

  blockHash(epoch: bigint): Uint8Array {
    const current = this.#rt.epoch;
    if (epoch >= current || epoch < current - BLOCKHASH_WINDOW) return new Uint8Array(32);
    const cid = this.#rt.tipsetCid(epoch);
    return cid === undefined ? new Uint8Array(32) : cid.multihash.digest.slice(0, 32);
  }

  gasAvailable(): bigint {
    return this.#rt.gasAvailable();
  }

  /** Beacon randomness at the current epoch (DST EvmPrevRandao), drawn once per invocation. */
  prevRandao(): Uint8Array {
    return this.#system.randomness();
  }

  chargeSteps(steps: number): void {
    this.#rt.chargeEvmInstructions(steps);
  }

  precompile(
    address: Uint8Array,
    input: Uint8Array,
    call: { kind: 'call' | 'staticcall' | 'delegatecall'; value: bigint },
  ): { success: boolean; output: Uint8Array } | undefined {
    if (address[0] !== FEVM_PRECOMPILE_PREFIX || !isPrecompileAddress(address)) return undefined;
    let output: Uint8Array;
    try {
      output = this.#fevmPrecompile(address[19]!, input, call);
    } catch (error) {
      if (error instanceof ActorError && error.exitCode !== ExitCode.UsrIllegalArgument) throw error;
      return FAILED;
    }
    if (call.value > 0n) {
      const result = this.#rt.send(addressFromEthAddressBytes(address), METHOD_SEND, null, call.value);
      if (result.exitCode !== ExitCode.Ok) return FAILED;
    }
    return { success: true, output };
  }

  /** builtin-actors `precompiles/fvm.rs`; bad input throws USR_ILLEGAL_ARGUMENT (the call fails). */
  #fevmPrecompile(
    index: number,
    input: Uint8Array,
    call: { kind: 'call' | 'staticcall' | 'delegatecall'; value: bigint },
  ): Uint8Array {
    const invalid = (why: string) => new ActorError(ExitCode.UsrIllegalArgument, `precompile 0xfe…0${index}: ${why}`);
    const reader = new ValueReader(input);
    const readUint = (bits: number) => {
      try {
        return reader.uint(bits);
      } catch (error) {
        if (error instanceof AbiOverflowError) throw invalid(error.message);
        throw error;
      }
    };
    switch (index) {
      case 1: {
        let address: Address;
        try {
          address = Address.fromBytes(input);
        } catch (error) {
          throw invalid(`not an address: ${(error as Error).message}`);
        }
        const id = this.#rt.resolveAddress(address);
        return id === undefined ? EMPTY : word(id);
      }
      case 2: {
        const delegated = this.#rt.lookupDelegatedAddress(readUint(64));
        return delegated === null ? EMPTY : delegated.bytes;
      }
      case 3:
      case 5:
        return this.#callActor(index === 5, readUint, reader, call, invalid);
      case 6:
        return this.#rt.beaconRandomness(readUint(63));
      default:
        // 0xfe…04 (get_actor_type) is disabled in v18; other indexes are unassigned: empty success.
        return EMPTY;
    }
  }

  #callActor(
    byId: boolean,
    readUint: (bits: number) => bigint,
    reader: ValueReader,
    call: { kind: 'call' | 'staticcall' | 'delegatecall' },
    invalid: (why: string) => ActorError,
  ): Uint8Array {
    if (call.kind !== 'delegatecall') throw invalid('call_actor must be called with DELEGATECALL');
    const method = readUint(64);
    const value = readUint(256);
    const flags = readUint(64);
    if ((flags & ~1n) !== 0n) throw invalid(`unknown send flags ${flags}`);
    const codec = readUint(64);
    const paramsOffset = readUint(32);
    const target = readUint(64);
    reader.seek(Number(paramsOffset));
    const params = reader.readPadded(Number(readUint(32)));
    let to: Address;
    if (byId) {
      to = Address.newId(target);
    } else {
      reader.seek(Number(target));
      try {
        to = Address.fromBytes(reader.readPadded(Number(readUint(32))));
      } catch (error) {
        throw invalid(`not an address: ${(error as Error).message}`);
      }
    }
    if (method <= MAX_RESERVED_METHOD && method !== METHOD_SEND) throw invalid(`method ${method} is reserved`);
    if (codec !== BigInt(IpldCodec.Cbor) && !(codec === 0n && params.length === 0)) {
      throw invalid(`codec ${codec} with ${params.length} bytes of params`);
    }
    const result = this.#system.send(to, method, codec === 0n ? null : params, value, { readOnly: flags === 1n });
    return encodeCallActorOutput(result);
  }

  #delegateCall(request: CallRequest): { success: boolean; output: Uint8Array } {
    const id = this.#resolve(request.to);
    const type = this.#contractType(id);
    if (type === 'account' || type === 'missing') return SUCCEEDED_EMPTY;
    if (type === 'native') return FAILED;
    const code = this.#bytecodeCid(id!);
    if (code === null) return SUCCEEDED_EMPTY;
    const params = encodeCbor([code, request.input, this.#context.caller, bigIntToBytes(this.#context.value)]);
    const self = Address.newId(this.#rt.receiver);
    const result = this.#system.send(self, EvmMethod.InvokeContractDelegate, params, 0n, {
      gasLimit: this.#callGasLimit(request.gas),
    });
    return { success: result.exitCode === ExitCode.Ok, output: unwrapBytes(result.returnData) };
  }

  /** An EVM actor's bytecode CID through its GetBytecode (null: dead or empty). */
  #bytecodeCid(id: bigint): CID | null {
    const result = this.#system.send(Address.newId(id), EvmMethod.GetBytecode, null, 0n, { readOnly: true });
    if (result.exitCode !== ExitCode.Ok) {
      throw new ActorError(ExitCode.UsrAssertionFailed, `failed to get the bytecode of f0${id}`);
    }
    const node = result.returnData === null ? null : decodeChainCbor(result.returnData, 'GetBytecode return');
    return node instanceof CID ? node : null;
  }

  /** The gas a call may take: what it asks, at most 63/64 of what is left (builtin-actors `call_gas_limit`). */
  #callGasLimit(requested: bigint): bigint {
    const reserve = (63n * this.#rt.gasAvailable()) / 64n;
    return requested < reserve ? requested : reserve;
  }

  #resolve(address: Uint8Array): bigint | undefined {
    return this.#rt.resolveAddress(addressFromEthAddressBytes(address));
  }

  #contractType(id: bigint | undefined): ContractType {
    if (id === undefined) return 'missing';
    const type = this.#rt.getActorType(id);
    if (type === undefined) return 'missing';
    if (type === 'evm') return 'evm';
    if (type === 'account' || type === 'ethaccount' || type === 'placeholder') return 'account';
    return 'native';
  }

  #requireWritable(what: string): void {
    if (this.#system.readOnly) throw new ActorError(ExitCode.UsrReadOnly, `${what} in a read-only call`);
  }
}

/** call_actor's answer: `(int256 exit, uint64 codec, bytes data)`; a refusal is a negative errno. */
function encodeCallActorOutput(result: SendResult): Uint8Array {
  const exit = result.refusal === undefined ? BigInt(result.exitCode) : (1n << 256n) - BigInt(errno(result));
  const data = result.refusal === undefined ? (result.returnData ?? EMPTY) : EMPTY;
  const codec = data.length === 0 ? 0n : BigInt(IpldCodec.Cbor);
  return abiConcat([word(exit), word(codec), word(BigInt(WORD * 3)), word(BigInt(data.length)), data]);
}

/** ref-fvm `ErrorNumber` of a refused send. */
function errno(result: SendResult): number {
  switch (result.refusal) {
    case 'illegal-argument':
      return 1;
    case 'not-found':
      return 6;
    case 'insufficient-funds':
      return 5;
    case 'limit-exceeded':
      return 3;
    default:
      return 13; // ReadOnly
  }
}
