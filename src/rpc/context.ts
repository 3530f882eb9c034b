/**
 * What method handlers may use: the node's services, filled in by `src/node` when it builds the
 * server (tests build one from real services on a temporary repo). Later modules add their
 * service here — `chain`, `state`, `mpool` — and their handlers read it from the context instead
 * of importing a singleton, so every handler stays testable on its own.
 */
import type { Wallet } from '../wallet/index.js';
import type { TokenAuthority } from './auth.js';

/** Facts about the running node that `Version` reports. */
export interface NodeInfo {
  /** The node's version with its network, e.g. `0.1.0+devnet`. */
  readonly version: string;
  /** Seconds between epochs (Lotus `BlockDelaySecs`). */
  readonly blockDelaySecs: number;
}

export interface RpcContext {
  readonly node: NodeInfo;
  readonly wallet: Wallet;
  /** Mints and checks API tokens (AuthNew, AuthVerify, and the server's own request check). */
  readonly tokens: TokenAuthority;
}
