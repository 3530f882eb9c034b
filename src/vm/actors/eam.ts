/**
 * The Ethereum Address Manager (f010, builtin-actors `actors/eam`, FIP-0054/0055): computes the
 * Ethereum address of a new contract as Ethereum would (CREATE, CREATE2, or a deployment from a
 * key's account) and has Init's Exec4 create the EVM actor under the f410 address of it. A dead
 * contract at that address is resurrected; a placeholder holding funds there becomes the contract.
 */
import { RLP } from '@ethereumjs/rlp';
import { ACTOR_CODES, EAM_ACTOR_ID, INIT_ACTOR_ID, SYSTEM_ACTOR_ID } from '../../state/index.js';
import { Address, addressKind, declareStruct, ethAddressBytesFromAddress, kinds } from '../../types/index.js';
import { ActorError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { AccountMethod, EamMethod, EvmMethod, InitMethod } from '../methods.js';
import type { Runtime } from '../runtime.js';
import { decodeParams, defineActor, extractSendResult } from './actor.js';
import { exec4Params, execReturn } from './method-params.js';

const ETH_ADDRESS_LENGTH = 20;

/** builtin-actors EAM `CreateParams`. */
export const eamCreateParams = declareStruct('CreateParams', [
  { key: 'initcode', json: 'Initcode', kind: kinds.bytes },
  { key: 'nonce', json: 'Nonce', kind: kinds.uint64 },
]);

/** builtin-actors EAM `Create2Params`. */
export const eamCreate2Params = declareStruct('Create2Params', [
  { key: 'initcode', json: 'Initcode', kind: kinds.bytes },
  { key: 'salt', json: 'Salt', kind: kinds.bytesOfAtMost(32) },
]);

/** builtin-actors EAM `Return` (of all three): the new actor, its f2 (none on resurrection), its 0x address. */
export const eamReturn = declareStruct('CreateReturn', [
  { key: 'actorId', json: 'ActorID', kind: kinds.uint64 },
  { key: 'robustAddress', json: 'RobustAddress', kind: kinds.nullable(addressKind) },
  { key: 'ethAddress', json: 'EthAddress', kind: kinds.bytesOfAtMost(ETH_ADDRESS_LENGTH) },
]);

/** builtin-actors EVM `ConstructorParams` (and `ResurrectParams`). */
export const evmConstructorParams = declareStruct('EvmConstructorParams', [
  { key: 'creator', json: 'Creator', kind: kinds.bytesOfAtMost(ETH_ADDRESS_LENGTH) },
  { key: 'initcode', json: 'Initcode', kind: kinds.bytes },
]);

/** keccak256, as the runtime charges it. */
export type Keccak256 = (data: Uint8Array) => Uint8Array;

function hash20(keccak: Keccak256, data: Uint8Array): Uint8Array {
  return keccak(data).subarray(12);
}

/** CREATE: keccak(rlp([sender, nonce]))[12:]. */
export function createAddress(keccak: Keccak256, from: Uint8Array, nonce: bigint): Uint8Array {
  return hash20(keccak, RLP.encode([from, nonce]));
}

/** CREATE2: keccak(0xff ‖ sender ‖ salt ‖ keccak(initcode))[12:]. */
export function create2Address(
  keccak: Keccak256,
  from: Uint8Array,
  salt: Uint8Array,
  initcode: Uint8Array,
): Uint8Array {
  const initHash = keccak(initcode);
  const data = new Uint8Array(1 + ETH_ADDRESS_LENGTH + 32 + 32);
  data[0] = 0xff;
  data.set(from, 1);
  data.set(salt, 1 + ETH_ADDRESS_LENGTH);
  data.set(initHash, 1 + ETH_ADDRESS_LENGTH + 32);
  return hash20(keccak, data);
}

/**
 * Addresses the EAM never assigns: null, masked IDs, and the precompile ranges (first byte 0x00
 * or 0xfe, then 18 zero bytes; builtin-actors `EthAddress::is_precompile`).
 */
export function isReservedEthAddress(address: Uint8Array): boolean {
  const middleZero = address.subarray(1, 19).every((byte) => byte === 0);
  if ((address[0] === 0x00 || address[0] === 0xfe) && middleZero) return true;
  return address[0] === 0xff && address.subarray(1, 12).every((byte) => byte === 0);
}

/** The caller's Ethereum address: the payload of its f410 address (builtin-actors `resolve_eth_address`). */
function keccakOf(rt: Runtime): Keccak256 {
  return (data) => rt.hashKeccak256(data);
}

function ethAddressOf(rt: Runtime, id: bigint): Uint8Array {
  const delegated = rt.lookupDelegatedAddress(id);
  if (delegated !== null) {
    const { namespace, subaddress } = delegated.delegated();
    if (namespace === EAM_ACTOR_ID && subaddress.length === ETH_ADDRESS_LENGTH) return Uint8Array.from(subaddress);
  }
  throw new ActorError(ExitCode.UsrForbidden, "caller doesn't have an eth address");
}

function createActor(rt: Runtime, creator: Uint8Array, address: Uint8Array, initcode: Uint8Array): Uint8Array {
  if (isReservedEthAddress(address)) {
    throw new ActorError(ExitCode.UsrForbidden, 'cannot create address with a reserved prefix');
  }
  const constructorParams = evmConstructorParams.encode({ creator, initcode });
  const f4 = Address.newDelegated(EAM_ACTOR_ID, address);
  const existing = rt.resolveAddress(f4);
  if (existing !== undefined) {
    const type = rt.getActorType(existing);
    if (type === 'evm') {
      extractSendResult(
        rt.send(Address.newId(existing), EvmMethod.Resurrect, constructorParams, rt.valueReceived),
        'resurrect failed',
      );
      return eamReturn.encode({ actorId: existing, robustAddress: null, ethAddress: address });
    }
    if (type !== 'placeholder') {
      throw new ActorError(
        ExitCode.UsrForbidden,
        `cannot deploy contract over existing contract at address 0x${Buffer.from(address).toString('hex')}`,
      );
    }
  }
  const params = exec4Params.encode({ code: ACTOR_CODES.evm, constructorParams, subaddress: address });
  const returned = extractSendResult(
    rt.send(Address.newId(INIT_ACTOR_ID), InitMethod.Exec4, params, rt.valueReceived),
    'Exec4 failed',
  );
  const { idAddress, robustAddress } = decodeParams(returned, execReturn);
  return eamReturn.encode({ actorId: idAddress.id(), robustAddress, ethAddress: address });
}

/**
 * The deployer of a CreateExternal: `[creator, stable]`. An EthAccount is both; an f1/f3 account
 * is its masked ID as creator, and keccak(its key address)[12:] as the stable address.
 */
function externalCaller(rt: Runtime): [creator: Uint8Array, stable: Uint8Array] {
  const type = rt.getActorType(rt.caller);
  if (type === 'ethaccount') {
    const address = ethAddressOf(rt, rt.caller);
    return [address, address];
  }
  if (type !== 'account') throw new ActorError(ExitCode.UsrForbidden, `disallowed caller type ${type ?? 'unknown'}`);
  const result = rt.send(Address.newId(rt.caller), AccountMethod.PubkeyAddress, null, 0n, { readOnly: true });
  if (result.exitCode !== ExitCode.Ok) {
    throw new ActorError(result.exitCode, 'failed to retrieve account robust address');
  }
  const robust = decodeParams(result.returnData, 'PubkeyAddress return', (node, path) =>
    addressKind.fromCbor(node, path),
  );
  return [ethAddressBytesFromAddress(Address.newId(rt.caller)), hash20(keccakOf(rt), robust.bytes)];
}

export const eamActor = defineActor('eam', EamMethod, {
  Constructor: (rt) => {
    if (rt.receiver !== EAM_ACTOR_ID) {
      rt.abort(ExitCode.UsrForbidden, `The Ethereum Address Manager must be deployed at 10, was at ${rt.receiver}`);
    }
    rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
    return null;
  },
  Create: (rt, params) => {
    const { initcode, nonce } = decodeParams(params, eamCreateParams);
    rt.validateImmediateCallerType('evm');
    const creator = ethAddressOf(rt, rt.caller);
    return createActor(rt, creator, createAddress(keccakOf(rt), creator, nonce), initcode);
  },
  Create2: (rt, params) => {
    const { initcode, salt } = decodeParams(params, eamCreate2Params);
    if (salt.length !== 32)
      rt.abort(ExitCode.UsrSerialization, `Create2Params: salt must be 32 bytes, got ${salt.length}`);
    rt.validateImmediateCallerType('evm');
    const creator = ethAddressOf(rt, rt.caller);
    return createActor(rt, creator, create2Address(keccakOf(rt), creator, salt, initcode), initcode);
  },
  CreateExternal: (rt, params) => {
    const initcode = decodeParams(params, 'CreateExternalParams', (node, path) => kinds.bytes.fromCbor(node, path));
    rt.validateImmediateCallerIs(rt.origin);
    const [creator, stable] = externalCaller(rt);
    return createActor(rt, creator, createAddress(keccakOf(rt), stable, rt.originNonce), initcode);
  },
});
