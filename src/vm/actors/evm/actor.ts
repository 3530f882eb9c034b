/**
 * The EVM actor ("EVMContract", builtin-actors `actors/evm/src/lib.rs`, FIP-0054): a contract's
 * code and storage, run by the EVM interpreter (`vm/evm/interpreter.ts`) over `FevmHost`. Exit
 * codes 33–40 are the EVM's own (33: reverted, the revert data returned as a CBOR byte string).
 */
import { CID } from 'multiformats/cid';
import { EAM_ACTOR_ID, EMPTY_STATE_HEAD, INIT_ACTOR_ID, SYSTEM_ACTOR_ID } from '../../../state/index.js';
import type { CborNode } from '../../../types/cbor-node.js';
import { Address, bigIntFromCborNode, encodeCbor, ethAddressBytesFromAddress } from '../../../types/index.js';
import { ActorError } from '../../errors.js';
import { type EvmContext, type EvmOutcome, runEvm } from '../../evm/interpreter.js';
import { IpldCodec } from '../../execution-trace.js';
import { ExitCode } from '../../exit-code.js';
import { EvmMethod } from '../../methods.js';
import type { Runtime } from '../../runtime.js';
import { decodeParams, defineActor } from '../actor.js';
import { evmConstructorParams } from '../eam.js';
import { abiConcat, ValueReader, word } from './abi.js';
import { FevmHost, unwrapBytes } from './host.js';
import { EMPTY_CODE_HASH } from './state.js';
import { EvmSystem, isDead, readEvmState } from './system.js';
import { decodeU256, encodeU256 } from './u256.js';

/** builtin-actors `EVM_CONTRACT_REVERTED`. */
export const EVM_CONTRACT_REVERTED = 33;
/** Methods up to here are reserved: a Filecoin method call below 1024 is unhandled. */
const MAX_RESERVED_METHOD = 1023n;
/** keccak("handle_filecoin_method(uint64,uint64,bytes)")[0:4]. */
const NATIVE_METHOD_SELECTOR = Uint8Array.of(0x86, 0x8e, 0x10, 0xc4);

/** The 0x form of an actor: its f410 payload, or its masked ID (builtin-actors `resolve_ethereum_address`). */
export function ethAddressOfActor(rt: Runtime, id: bigint): Uint8Array {
  const delegated = rt.lookupDelegatedAddress(id);
  if (delegated !== null) {
    const { namespace, subaddress } = delegated.delegated();
    if (namespace === EAM_ACTOR_ID && subaddress.length === 20) return Uint8Array.from(subaddress);
  }
  return ethAddressBytesFromAddress(Address.newId(id));
}

function isMaskedId(address: Uint8Array): boolean {
  return address[0] === 0xff && address.subarray(1, 12).every((byte) => byte === 0);
}

function evmContext(system: EvmSystem, caller: Uint8Array, value: bigint): EvmContext {
  const { rt } = system;
  return {
    address: ethAddressOfActor(rt, rt.receiver),
    caller,
    origin: ethAddressOfActor(rt, rt.origin),
    value,
    readOnly: system.readOnly,
    chainId: BigInt(rt.networkParams.eip155ChainId),
    epoch: rt.epoch,
    timestamp: rt.timestamp,
    baseFee: rt.baseFee,
    gasPrice: rt.baseFee + rt.gasPremium,
  };
}

/** Runs code and turns a revert or an EVM error into the actor's abort. */
function execute(
  system: EvmSystem,
  code: Uint8Array,
  input: Uint8Array,
  caller: Uint8Array,
  value: bigint,
): Uint8Array {
  const context = evmContext(system, caller, value);
  const outcome: EvmOutcome = runEvm(code, input, context, new FevmHost(system, context));
  if (outcome.status === 'success') return outcome.output;
  if (outcome.status === 'revert') {
    throw new ActorError(EVM_CONTRACT_REVERTED, 'contract reverted', encodeCbor(outcome.output));
  }
  throw new ActorError(outcome.exitCode, outcome.message);
}

/** builtin-actors `initialize_evm_contract`: runs the initcode and keeps what it returns as the code. */
function initialize(system: EvmSystem, creator: Uint8Array, initcode: Uint8Array): null {
  const { rt } = system;
  const self = ethAddressOfActor(rt, rt.receiver);
  if (isMaskedId(self)) rt.abort(ExitCode.UsrForbidden, `contract f0${rt.receiver} doesn't have an eth address`);
  if (initcode.length > 0) {
    const code = execute(system, initcode, new Uint8Array(0), creator, rt.valueReceived);
    system.setBytecode(code);
  }
  system.flush();
  return null;
}

/** builtin-actors `invoke_contract_inner`: runs the stored code on `input`. */
function invoke(system: EvmSystem, input: Uint8Array, codeCid: CID, caller: Uint8Array, value: bigint): Uint8Array {
  const code = system.rt.store.get(codeCid);
  if (code === undefined) throw new ActorError(ExitCode.UsrNotFound, `bytecode ${codeCid} not in the blockstore`);
  if (code.length === 0) return new Uint8Array(0);
  const output = execute(system, code, input, caller, value);
  system.flush();
  return output;
}

function invokeContract(rt: Runtime, input: Uint8Array): Uint8Array {
  rt.validateImmediateCallerAcceptAny();
  const system = EvmSystem.load(rt);
  const codeCid = system.bytecodeCid;
  if (codeCid === null) return new Uint8Array(0);
  return invoke(system, input, codeCid, ethAddressOfActor(rt, rt.caller), rt.valueReceived);
}

/** builtin-actors `handle_filecoin_method_input`: `handle_filecoin_method(uint64,uint64,bytes)` calldata. */
function filecoinMethodInput(method: bigint, params: Uint8Array | null): Uint8Array {
  const data = params ?? new Uint8Array(0);
  const codec = params === null ? 0n : BigInt(IpldCodec.Cbor);
  return abiConcat([NATIVE_METHOD_SELECTOR, word(method), word(codec), word(96n), word(BigInt(data.length)), data]);
}

/** builtin-actors `handle_filecoin_method_output`: `(uint32 exit, uint64 codec, bytes data)`. */
function filecoinMethodOutput(output: Uint8Array): Uint8Array | null {
  if (output.length === 0) return null;
  const reader = new ValueReader(output);
  let exitCode: bigint;
  let codec: bigint;
  let data: Uint8Array;
  try {
    exitCode = reader.uint(32);
    codec = reader.uint(64);
    reader.seek(Number(reader.uint(32)));
    data = reader.readPadded(Number(reader.uint(32)));
  } catch (error) {
    throw new ActorError(ExitCode.UsrSerialization, `bad handle_filecoin_method return: ${(error as Error).message}`);
  }
  let block: Uint8Array | null;
  if (codec === 0n && data.length === 0) block = null;
  else if (codec === BigInt(IpldCodec.Cbor)) block = data;
  else throw new ActorError(ExitCode.UsrSerialization, `unsupported return codec ${codec} (${data.length} bytes)`);
  if (exitCode !== 0n) {
    throw new ActorError(Number(exitCode), 'EVM contract explicitly exited with a non-zero exit code', block);
  }
  return block;
}

function readDelegateCallParams(params: Uint8Array | null) {
  return decodeParams(params, 'DelegateCallParams', (node: CborNode, path: string) => {
    const fields = node as CborNode[];
    if (!Array.isArray(fields) || fields.length !== 4)
      throw new Error(`${path}: expected [code, input, caller, value]`);
    const [code, input, caller, value] = fields;
    if (!(code instanceof CID)) throw new Error(`${path}.code: expected a CID`);
    if (!(input instanceof Uint8Array) || !(caller instanceof Uint8Array) || caller.length !== 20) {
      throw new Error(`${path}: expected input bytes and a 20-byte caller`);
    }
    return { code, input, caller, value: bigIntFromCborNode(value!, `${path}.value`) };
  });
}

export const evmActor = defineActor(
  'evm',
  EvmMethod,
  {
    Constructor: (rt, params) => {
      const { creator, initcode } = decodeParams(params, evmConstructorParams);
      rt.validateImmediateCallerIs(INIT_ACTOR_ID);
      return initialize(EvmSystem.create(rt, EMPTY_STATE_HEAD), creator, initcode);
    },
    Resurrect: (rt, params) => {
      const { creator, initcode } = decodeParams(params, evmConstructorParams);
      rt.validateImmediateCallerIs(EAM_ACTOR_ID);
      return initialize(EvmSystem.resurrect(rt), creator, initcode);
    },
    GetBytecode: (rt) => {
      rt.validateImmediateCallerAcceptAny();
      const state = readEvmState(rt);
      return encodeCbor(isDead(rt, state) ? null : state.bytecode);
    },
    GetBytecodeHash: (rt) => {
      rt.validateImmediateCallerAcceptAny();
      const state = readEvmState(rt);
      return encodeCbor(isDead(rt, state) ? EMPTY_CODE_HASH : state.bytecodeHash);
    },
    GetStorageAt: (rt, params) => {
      const key = decodeParams(params, 'GetStorageAtParams', (node, path) => {
        if (!Array.isArray(node) || node.length !== 1) throw new Error(`${path}: expected [storage_key]`);
        return decodeU256(encodeCbor(node[0]), `${path}.storage_key`);
      });
      rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
      return encodeU256(EvmSystem.load(rt).getStorage(key));
    },
    InvokeContractDelegate: (rt, params) => {
      const { code, input, caller, value } = readDelegateCallParams(params);
      rt.validateImmediateCallerIs(rt.receiver);
      return encodeCbor(invoke(EvmSystem.load(rt), input, code, caller, value));
    },
    // The calldata: a CBOR byte string, or raw bytes (IPLD_RAW params, which builtin-actors also accepts).
    InvokeContract: (rt, params) => encodeCbor(invokeContract(rt, unwrapBytes(params))),
  },
  (rt, method, params) => {
    if (method <= MAX_RESERVED_METHOD) throw new ActorError(ExitCode.UsrUnhandledMessage, 'Invalid method');
    return filecoinMethodOutput(invokeContract(rt, filecoinMethodInput(method, params)));
  },
);
