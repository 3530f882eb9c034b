/**
 * How an actor is written: a table of method numbers to handlers over raw CBOR params and returns,
 * plus an optional fallback for methods not in the table (builtin-actors' `actor_dispatch!`).
 * Param decoding failures abort with USR_SERIALIZATION, as builtin-actors' dispatch does.
 */
import type { ActorName } from '../../state/index.js';
import { type CborNode, decodeChainCbor } from '../../types/cbor-node.js';
import { encodeCbor } from '../../types/index.js';
import { ActorError } from '../errors.js';
import { ExitCode, exitCodeSeenByCaller } from '../exit-code.js';
import type { Runtime, SendResult } from '../runtime.js';

export type MethodHandler = (rt: Runtime, params: Uint8Array | null) => Uint8Array | null;
export type FallbackHandler = (rt: Runtime, method: bigint, params: Uint8Array | null) => Uint8Array | null;

export interface ActorImplementation {
  readonly type: ActorName;
  readonly methods: ReadonlyMap<bigint, MethodHandler>;
  /** Handles methods missing from `methods`; without it they abort with USR_UNHANDLED_MESSAGE. */
  readonly fallback?: FallbackHandler;
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

/** Decodes a method's params with `read`; missing or malformed params abort with USR_SERIALIZATION. */
export function decodeParams<T>(params: Uint8Array | null, what: string, read: (node: CborNode, path: string) => T): T {
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

/** Encodes a return value (a CBOR tree of arrays, bigints, bytes, CIDs). */
export function encodeReturn(value: unknown): Uint8Array {
  return encodeCbor(value);
}
