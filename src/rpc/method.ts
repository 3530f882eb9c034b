/**
 * The method declaration: one object per JSON-RPC method says everything about it — name,
 * parameters (name, JSON schema, strict Lotus JSON decoder), result, permission, API versions,
 * description and handler. The dispatcher, the permission table, `rpc.discover` and docs/api.md
 * are all derived from these declarations, so they cannot drift apart.
 *
 * A later module adds methods by writing `declareMethod({...})` in `rpc/methods/<namespace>.ts`
 * and listing it in `rpc/methods/index.ts`; its handler gets typed, already-decoded parameters and
 * the node's services through `RpcContext`.
 */
import type { RpcContext } from './context.js';

/** Lotus's permissions, lowest first. Tokens are minted with a permission and every one below it. */
export const PERMISSIONS = ['read', 'write', 'sign', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** A permission and every one below it: what `--perm sign` gives (`read`, `write`, `sign`). */
export function permissionsUpTo(permission: Permission): Permission[] {
  return PERMISSIONS.slice(0, PERMISSIONS.indexOf(permission) + 1);
}

export function isPermission(value: unknown): value is Permission {
  return (PERMISSIONS as readonly unknown[]).includes(value);
}

/** `/rpc/v0` (Lotus's deprecated API) and `/rpc/v1` (stable). */
export const API_VERSIONS = [0, 1] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** The API semver each path reports, as Lotus's `FullAPIVersion0` / `FullAPIVersion1`. */
export const API_SEMVER: Readonly<Record<ApiVersion, readonly [number, number, number]>> = {
  0: [1, 5, 0],
  1: [2, 3, 0],
};

/** Lotus's binary form of an API semver: `major<<16 | minor<<8 | patch` (2.3.0 → 131840). */
export function packApiSemver(apiVersion: ApiVersion): number {
  const [major, minor, patch] = API_SEMVER[apiVersion];
  return (major << 16) | (minor << 8) | patch;
}

/** The primary namespace and the alias stock Lotus clients use. */
export const NAMESPACES = ['Ledger', 'Filecoin'] as const;

/** A JSON Schema (draft 7, as OpenRPC uses it). */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface ParamDeclaration<T> {
  readonly name: string;
  readonly description: string;
  readonly schema: JsonSchema;
  /**
   * Decodes the JSON value strictly; on bad input it throws an error whose message starts with
   * `path` (the parameter's name) and says what was expected (the types' `…FromLotusJson` do).
   */
  readonly decode: (json: unknown, path: string) => T;
}

export interface ResultDeclaration<R> {
  readonly name: string;
  readonly description: string;
  readonly schema: JsonSchema;
  /** Lotus JSON for the handler's value (bigints are written as JSON numbers). */
  readonly encode: (value: R) => unknown;
}

/** What the dispatcher knows about the call being served. */
export interface CallInfo {
  readonly apiVersion: ApiVersion;
  /** The caller's permissions (from its token, or `read` without one). */
  readonly permissions: readonly string[];
  /** The methods served on this API version: what `Discover` describes. */
  readonly methods: readonly RpcMethod[];
  /** Aborted when the caller goes away or the server stops: long waits (StateWaitMsg) end then. */
  readonly signal?: AbortSignal | undefined;
}

export interface MethodDeclaration<P extends readonly unknown[], R> {
  /** The Lotus method name without namespace (`WalletNew`); served as `Ledger.X` and `Filecoin.X`. */
  readonly name: string;
  readonly description: string;
  readonly permission: Permission;
  readonly apiVersions: readonly ApiVersion[];
  /** Positional parameters; every one must be sent (JSON `null` where Lotus allows "unset"). */
  readonly params: { readonly [K in keyof P]: ParamDeclaration<P[K]> };
  readonly result: ResultDeclaration<R>;
  /** Extra full names served without a namespace (`rpc.discover`). */
  readonly aliases?: readonly string[];
  /**
   * Work that can take long or much memory (executing messages, beacon rounds, walks over the
   * chain): such calls run only as many at once as the API limits allow (docs/rpc-limits.md).
   */
  readonly expensive?: boolean;
  readonly handler: (params: P, context: RpcContext, call: CallInfo) => R | Promise<R>;
}

/** A declaration with its types erased, as the dispatcher and the generators see it. */
export interface RpcMethod {
  readonly name: string;
  readonly description: string;
  readonly permission: Permission;
  readonly apiVersions: readonly ApiVersion[];
  readonly params: readonly ParamDeclaration<unknown>[];
  readonly result: ResultDeclaration<unknown>;
  readonly aliases: readonly string[];
  /** Counted against the expensive-call limits (see MethodDeclaration.expensive). */
  readonly expensive: boolean;
  /**
   * Runs the handler on decoded parameters and returns the Lotus JSON of its result: at once for
   * a handler that answers synchronously (ChainHead and most reads), else a promise. A synchronous
   * handler's error is thrown, an asynchronous one's rejects.
   */
  readonly invoke: (params: readonly unknown[], context: RpcContext, call: CallInfo) => unknown;
}

/** A value or the promise of one: what the dispatcher passes along without waiting when it can. */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

export function declareMethod<const P extends readonly unknown[], R>(declaration: MethodDeclaration<P, R>): RpcMethod {
  const { handler, result } = declaration;
  return {
    name: declaration.name,
    description: declaration.description,
    permission: declaration.permission,
    apiVersions: declaration.apiVersions,
    params: declaration.params as readonly ParamDeclaration<unknown>[],
    result: result as ResultDeclaration<unknown>,
    aliases: declaration.aliases ?? [],
    expensive: declaration.expensive ?? false,
    invoke: (params, context, call) => {
      const value = handler(params as unknown as P, context, call);
      return isPromise(value) ? value.then(result.encode) : result.encode(value);
    },
  };
}

/** The names a method answers to: `Ledger.X`, `Filecoin.X` and its aliases. */
export function methodNames(method: RpcMethod): string[] {
  return [...NAMESPACES.map((namespace) => `${namespace}.${method.name}`), ...method.aliases];
}
