/**
 * The method declaration: one object per JSON-RPC method says everything about it — name,
 * parameters (name, JSON schema, strict Lotus JSON decoder), result, permission, API versions,
 * description and handler. The dispatcher, the permission table, `rpc.discover` and docs/api.md
 * are all derived from these declarations, so they cannot drift apart.
 *
 * A later module adds methods by writing `declareMethod({...})` in `rpc/methods/<namespace>.ts`
 * and listing it in `rpc/methods/index.ts`; its handler gets typed, already-decoded parameters and
 * a context holding the node's services it declares in `needs`. The typed client (client.ts) is
 * derived from the same declarations. A method whose result is `channelResult(…)` (channel.ts)
 * answers with a channel, served over WebSocket only.
 */
import type { JsonSchema } from '../types/index.js';
import type { ChannelOptions } from './channel.js';
import type { RpcContext, ServedContext, Service } from './context.js';

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

/** The chain types' declarations (types/struct.ts) derive their schemas, so the type lives there. */
export type { JsonSchema };

/** `T` is the decoded value the handler gets, `J` the Lotus JSON a client sends (the typed client's parameter). */
export interface ParamDeclaration<T, J = unknown> {
  readonly name: string;
  readonly description: string;
  readonly schema: JsonSchema;
  /**
   * Decodes the JSON value strictly; on bad input it throws an error whose message starts with
   * `path` (the parameter's name) and says what was expected (the types' `…FromLotusJson` do).
   */
  readonly decode: (json: unknown, path: string) => T;
  /**
   * A trailing parameter Lotus's method does not have (a ledger-node extension): a Lotus client
   * leaves it out, and it decodes as null.
   */
  readonly optional?: true;
  /** Type only, never set: carries `J` to the typed client (client.ts). */
  readonly lotusJson?: J;
}

/** `R` is the handler's value, `J` the Lotus JSON written for it (what the typed client returns). */
export interface ResultDeclaration<R, J = unknown> {
  readonly name: string;
  readonly description: string;
  readonly schema: JsonSchema;
  /** Lotus JSON for the handler's value (bigints are written as JSON numbers). */
  readonly encode: (value: R) => J;
  /** Set on a channel's result (`channelResult`, channel.ts): the method answers with a channel. */
  readonly channel?: ChannelOptions;
}

/** What the dispatcher knows about the call being served. */
export interface CallInfo {
  readonly apiVersion: ApiVersion;
  /** The caller's permissions (from its token, or `read` without one). */
  readonly permissions: readonly string[];
  /** The methods this node serves on this API version (their services present): what `Discover` describes. */
  readonly methods: readonly RpcMethod[];
  /** Aborted when the caller goes away or the server stops: long waits (StateWaitMsg) end then. */
  readonly signal?: AbortSignal | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: any parameter declaration, whatever its value and JSON types.
type AnyParam = ParamDeclaration<any, any>;

/** The decoded values of a list of parameter declarations: what the handler gets. */
export type DecodedParams<D extends readonly AnyParam[]> = {
  -readonly [K in keyof D]: D[K] extends ParamDeclaration<infer T, unknown> ? T : never;
};

/** The Lotus JSON of a list of parameter declarations: what a client sends. */
export type ParamsJson<D extends readonly AnyParam[]> = {
  -readonly [K in keyof D]: D[K] extends ParamDeclaration<unknown, infer J> ? J : never;
};

export interface MethodDeclaration<
  N extends string,
  D extends readonly AnyParam[],
  R,
  J,
  S extends Service,
  V extends readonly ApiVersion[],
> {
  /** The Lotus method name without namespace (`WalletNew`); served as `Ledger.X` and `Filecoin.X`. */
  readonly name: N;
  readonly description: string;
  readonly permission: Permission;
  /** Both by default; a method whose v0 and v1 forms differ declares each form with its version. */
  readonly apiVersions?: V;
  /**
   * The node's services the handler uses: the handler's context has them, and on a node without
   * one of them the dispatcher answers ServiceUnavailableError and `rpc.discover` leaves the
   * method out.
   */
  readonly needs?: readonly S[];
  /** Positional parameters; every one must be sent (JSON `null` where Lotus allows "unset"). */
  readonly params: D;
  readonly result: ResultDeclaration<R, J>;
  /** Extra full names served without a namespace (`rpc.discover`). */
  readonly aliases?: readonly string[];
  /**
   * Work that can take long or much memory (executing messages, beacon rounds, walks over the
   * chain): such calls run only as many at once as the API limits allow (docs/rpc-limits.md).
   */
  readonly expensive?: boolean;
  readonly handler: (params: DecodedParams<D>, context: ServedContext<S>, call: CallInfo) => R | Promise<R>;
}

/** A declaration with its types erased, as the dispatcher and the generators see it. */
export interface RpcMethod {
  readonly name: string;
  readonly description: string;
  readonly permission: Permission;
  readonly apiVersions: readonly ApiVersion[];
  /** The services the handler uses (see MethodDeclaration.needs). */
  readonly needs: readonly Service[];
  readonly params: readonly ParamDeclaration<unknown>[];
  readonly result: ResultDeclaration<unknown>;
  readonly aliases: readonly string[];
  /** Counted against the expensive-call limits (see MethodDeclaration.expensive). */
  readonly expensive: boolean;
  /** A channel method (its result is `channelResult`): served over WebSocket only. */
  readonly channel: ChannelOptions | undefined;
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

/**
 * A declared method with the types the typed client needs (client.ts): its name, the API versions
 * serving it and the Lotus JSON of its parameters and result.
 */
export interface DeclaredMethod<N extends string, A extends readonly unknown[], J, V extends ApiVersion>
  extends RpcMethod {
  readonly name: N;
  /** Type only, never set. */
  readonly lotusJson?: { readonly params: A; readonly result: J; readonly apiVersion: V };
}

export function declareMethod<
  const N extends string,
  const D extends readonly AnyParam[],
  R,
  J,
  const S extends Service = never,
  const V extends readonly ApiVersion[] = typeof API_VERSIONS,
>(declaration: MethodDeclaration<N, D, R, J, S, V>): DeclaredMethod<N, ParamsJson<D>, J, V[number]> {
  const { handler, result } = declaration;
  return {
    name: declaration.name,
    description: declaration.description,
    permission: declaration.permission,
    apiVersions: declaration.apiVersions ?? API_VERSIONS,
    needs: declaration.needs ?? [],
    params: declaration.params,
    result: result as ResultDeclaration<unknown>,
    aliases: declaration.aliases ?? [],
    expensive: declaration.expensive ?? false,
    channel: result.channel,
    // The dispatcher calls a method only when the context has every service it needs.
    invoke: (params, context, call) => {
      const value = handler(params as DecodedParams<D>, context as ServedContext<S>, call);
      return isPromise(value) ? value.then(result.encode) : result.encode(value);
    },
  };
}

/**
 * `declareMethod` for the methods of a namespace that all need the same services: their
 * declarations leave `needs` out.
 */
export function methodsNeeding<const S extends Service>(...needs: S[]) {
  return <
    const N extends string,
    const D extends readonly AnyParam[],
    R,
    J,
    const V extends readonly ApiVersion[] = typeof API_VERSIONS,
  >(
    declaration: MethodDeclaration<N, D, R, J, S, V> & { readonly needs?: never },
  ): DeclaredMethod<N, ParamsJson<D>, J, V[number]> => declareMethod<N, D, R, J, S, V>({ ...declaration, needs });
}

/** The names a method answers to: `Ledger.X`, `Filecoin.X` and its aliases. */
export function methodNames(method: RpcMethod): string[] {
  return [...NAMESPACES.map((namespace) => `${namespace}.${method.name}`), ...method.aliases];
}
