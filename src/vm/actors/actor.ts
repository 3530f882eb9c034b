/**
 * How an actor is written: a table of method numbers to handlers over raw CBOR params and returns,
 * plus an optional fallback for methods not in the table (builtin-actors' `actor_dispatch!`).
 * Param decoding failures abort with USR_SERIALIZATION, as builtin-actors' dispatch does.
 */
import type { ActorName } from '../../state/index.js';
import { type CborNode, decodeChainCbor } from '../../types/cbor-node.js';
import { Address, encodeCbor } from '../../types/index.js';
import { ActorError } from '../errors.js';
import { ExitCode, exitCodeSeenByCaller } from '../exit-code.js';
import { METHOD_CONSTRUCTOR } from '../methods.js';
import type { Runtime, SendResult } from '../runtime.js';

export type MethodHandler = (rt: Runtime, params: Uint8Array | null) => Uint8Array | null;
export type FallbackHandler = (rt: Runtime, method: bigint, params: Uint8Array | null) => Uint8Array | null;

export interface ActorImplementation {
  readonly type: ActorName;
  readonly methods: ReadonlyMap<bigint, MethodHandler>;
  /** Handles methods missing from `methods`; without it they abort with USR_UNHANDLED_MESSAGE. */
  readonly fallback?: FallbackHandler;
}

/** An actor's handlers by method name: `Constructor` or a key of its method-number table. */
export type MethodHandlers<Numbers extends Readonly<Record<string, bigint>>> = {
  readonly [Name in keyof Numbers | 'Constructor']?: MethodHandler;
};

const EXPORTED_SUFFIX = 'Exported';

/**
 * An actor from its handlers by method name (builtin-actors `actor_dispatch!`). A method whose
 * FRC-42 twin `<Name>Exported` is in `numbers` answers at both numbers, as builtin-actors lists
 * both in its dispatch; a twin given its own handler keeps it.
 */
export function defineActor<Numbers extends Readonly<Record<string, bigint>>>(
  type: ActorName,
  numbers: Numbers,
  handlers: MethodHandlers<Numbers>,
  fallback?: FallbackHandler,
): ActorImplementation {
  const methods = new Map<bigint, MethodHandler>();
  for (const [name, handler] of Object.entries(handlers) as Array<[string, MethodHandler]>) {
    if (name === 'Constructor') {
      methods.set(METHOD_CONSTRUCTOR, handler);
      continue;
    }
    methods.set(numbers[name]!, handler);
    const twin = numbers[`${name}${EXPORTED_SUFFIX}`];
    if (twin !== undefined && !(`${name}${EXPORTED_SUFFIX}` in handlers)) methods.set(twin, handler);
  }
  return fallback === undefined ? { type, methods } : { type, methods, fallback };
}

/** The first method number of the FRC-42 exported range; lower ones are builtin-only. */
const FIRST_EXPORTED_METHOD_NUMBER = 1n << 24n;

export function invokeMethod(
  actor: ActorImplementation,
  rt: Runtime,
  method: bigint,
  params: Uint8Array | null,
): Uint8Array | null {
  const handler = actor.methods.get(method);
  if (handler !== undefined) return handler(rt, params);
  if (actor.fallback !== undefined) return actor.fallback(rt, method, params);
  throw new ActorError(ExitCode.UsrUnhandledMessage, `${actor.type} has no method ${method}`);
}

/** Accepts exported methods (≥ 2^24) as no-ops, refuses the rest (account, multisig, EthAccount). */
export const acceptExportedMethods: FallbackHandler = (rt, method) => {
  rt.validateImmediateCallerAcceptAny();
  if (method >= FIRST_EXPORTED_METHOD_NUMBER) return null;
  throw new ActorError(ExitCode.UsrUnhandledMessage, `invalid method: ${method}`);
};

/** What params or a return are read with: a declared struct (`declareStruct`) names itself. */
export interface ParamsType<T> {
  readonly name: string;
  readonly fromCborNode: (node: CborNode, path: string) => T;
}

/**
 * Decodes a method's params (or a callee's return) as a declared struct, or with `read` under the
 * name `what`; missing or malformed params abort with USR_SERIALIZATION.
 */
export function decodeParams<T>(params: Uint8Array | null, type: ParamsType<T>): T;
export function decodeParams<T>(params: Uint8Array | null, what: string, read: (node: CborNode, path: string) => T): T;
export function decodeParams<T>(
  params: Uint8Array | null,
  type: string | ParamsType<T>,
  reader?: (node: CborNode, path: string) => T,
): T {
  const what = typeof type === 'string' ? type : type.name;
  const read = typeof type === 'string' ? (reader as (node: CborNode, path: string) => T) : type.fromCborNode;
  if (params === null) {
    throw new ActorError(ExitCode.UsrSerialization, `${what}: method expects arguments, but none were provided`);
  }
  try {
    return read(decodeChainCbor(params, what), what);
  } catch (error) {
    throw new ActorError(ExitCode.UsrSerialization, `${what}: failed to decode params: ${(error as Error).message}`);
  }
}

/**
 * builtin-actors' `extract_send_result`: the return data of a successful send, or an abort with the
 * code the caller may pass on (system codes become user codes).
 */
export function extractSendResult(result: SendResult, what: string): Uint8Array | null {
  if (result.exitCode === ExitCode.Ok) return result.returnData;
  throw new ActorError(
    exitCodeSeenByCaller(result.exitCode),
    `${what}: send aborted with code ${result.exitCode}`,
    result.returnData,
  );
}

/**
 * Calls a method of actor `to` that takes no params and no value, and decodes its return as `type`
 * (a failed send aborts as `extractSendResult` does, with `what`).
 */
export function callForReturn<T>(rt: Runtime, to: bigint, method: bigint, type: ParamsType<T>, what: string): T {
  return decodeParams(extractSendResult(rt.send(Address.newId(to), method, null, 0n), what), type);
}

/** Encodes a return value (a CBOR tree of arrays, bigints, bytes, CIDs). */
export function encodeReturn(value: unknown): Uint8Array {
  return encodeCbor(value);
}
