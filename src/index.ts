/**
 * The package's entry point, `import { startDevnet, createNode } from 'ledger-node'` (docs/library.md):
 * a devnet or a full node in the caller's process. Nothing else of the node's internals is public.
 */
// libp2p 3 needs Promise.withResolvers, which Node 20 lacks: installed before any of the node loads.
import './net/promise-with-resolvers.js';

export type { LogLevel } from './node/config.js';
export {
  type CreateNodeOptions,
  createNode,
  type Devnet,
  type DevnetAccountInfo,
  type DevnetEthAccountInfo,
  type NodeHandle,
  type StartDevnetOptions,
  startDevnet,
} from './node/library.js';
export type { NetworkName } from './node/network.js';
