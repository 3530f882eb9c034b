/**
 * Init actor (f01): hands out actor IDs and maps robust addresses to them (builtin-actors
 * `actors/init`). Exec creates multisigs for anyone and miners for the power actor; Exec4 (EAM
 * only) creates actors with an f4 address, replacing a placeholder that already holds it.
 */
import { Hamt } from '../../ipld/index.js';
import {
  type ActorName,
  actorNameOf,
  EAM_ACTOR_ID,
  FIRST_NON_SINGLETON_ID,
  type InitState,
  initStateStruct,
  SYSTEM_ACTOR_ID,
} from '../../state/index.js';
import { Address, declareStruct, kinds } from '../../types/index.js';
import { ActorError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { InitMethod, METHOD_CONSTRUCTOR } from '../methods.js';
import type { Mutable, Runtime, StateCodec } from '../runtime.js';
import { decodeParams, defineActor, extractSendResult } from './actor.js';
import { exec4Params, execParams, execReturn } from './method-params.js';

type MutableInitState = Mutable<InitState>;

/** builtin-actors `ConstructorParams`. */
const initConstructorParams = declareStruct('InitConstructorParams', [
  { key: 'networkName', json: 'NetworkName', kind: kinds.text },
]);

export const initStateCodec: StateCodec<MutableInitState> = initStateStruct;

/**
 * builtin-actors `State::map_addresses_to_id`: a new ID for `robust` (or, with a delegated address,
 * the ID that address already has); `existing` when the delegated address was already mapped.
 */
function mapAddressesToId(
  rt: Runtime,
  state: MutableInitState,
  robust: Address,
  delegated: Address | null,
): { id: bigint; existing: boolean } {
  const map = Hamt.load(rt.store, state.addressMap);
  let id: bigint;
  let existing = false;
  const mapped = delegated === null ? undefined : map.get(delegated.bytes);
  if (delegated !== null && mapped !== undefined) {
    id = BigInt(mapped as number | bigint);
    existing = true;
  } else {
    id = state.nextId;
    state.nextId = id + 1n;
    if (delegated !== null) map.set(delegated.bytes, id);
  }
  if (!map.setIfAbsent(robust.bytes, id)) {
    throw new ActorError(ExitCode.UsrForbidden, `robust address ${robust} is already allocated in the address map`);
  }
  state.addressMap = map.flush();
  return { id, existing };
}

/** Who may create what (builtin-actors `can_exec`). */
function canExec(callerType: ActorName | undefined, execType: ActorName | undefined): boolean {
  if (execType === 'multisig') return true;
  return execType === 'storageminer' && callerType === 'storagepower';
}

function constructActor(rt: Runtime, id: bigint, constructorParams: Uint8Array, robust: Address): Uint8Array {
  extractSendResult(
    rt.send(Address.newId(id), METHOD_CONSTRUCTOR, constructorParams, rt.valueReceived),
    'constructor failed',
  );
  return execReturn.encode({ idAddress: Address.newId(id), robustAddress: robust });
}

function exec(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const { code, constructorParams } = decodeParams(params, execParams);
  rt.validateImmediateCallerAcceptAny();
  const callerType = rt.getActorType(rt.caller);
  const execType = actorNameOf(code);
  if (!canExec(callerType, execType)) {
    rt.abort(ExitCode.UsrForbidden, `called type ${callerType ?? 'unknown'} cannot exec actor type ${code}`);
  }
  const robust = rt.newActorAddress();
  const { id, existing } = rt.transaction(initStateCodec, (state) => mapAddressesToId(rt, state, robust, null));
  if (existing) rt.abort(ExitCode.UsrForbidden, `cannot exec over an existing actor f0${id}`);
  rt.createActor(execType as ActorName, id, null);
  return constructActor(rt, id, constructorParams, robust);
}

function exec4(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const { code, constructorParams, subaddress } = decodeParams(params, exec4Params);
  rt.validateImmediateCallerIs(EAM_ACTOR_ID);
  let delegated: Address;
  try {
    delegated = Address.newDelegated(rt.caller, subaddress);
  } catch (error) {
    return rt.abort(ExitCode.UsrIllegalArgument, `invalid delegated address: ${(error as Error).message}`);
  }
  const execType = actorNameOf(code);
  if (execType === undefined) rt.abort(ExitCode.UsrIllegalArgument, `unknown actor code ${code}`);
  const robust = rt.newActorAddress();
  const { id, existing } = rt.transaction(initStateCodec, (state) => mapAddressesToId(rt, state, robust, delegated));
  if (existing) {
    const current = rt.getActorType(id);
    if (current === undefined) rt.abort(ExitCode.UsrForbidden, 'cannot redeploy a deleted actor');
    if (current !== 'placeholder') {
      rt.abort(ExitCode.UsrForbidden, `cannot replace an existing non-placeholder actor of type ${current}`);
    }
  }
  rt.createActor(execType, id, delegated);
  return constructActor(rt, id, constructorParams, robust);
}

export const initActor = defineActor('init', InitMethod, {
  Constructor: (rt, params) => {
    const { networkName } = decodeParams(params, initConstructorParams);
    rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
    const addressMap = Hamt.create(rt.store).flush();
    rt.createState(initStateCodec, { addressMap, nextId: FIRST_NON_SINGLETON_ID, networkName });
    return null;
  },
  Exec: exec,
  Exec4: exec4,
});
