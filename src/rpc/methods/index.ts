/** Every method the node serves. A new namespace file adds its list here. */
import type { RpcMethod } from '../method.js';
import { authMethods } from './auth.js';
import { chainMethods } from './chain.js';
import { commonMethods } from './common.js';
import { gasMethods } from './gas.js';
import { minerMethods } from './miner.js';
import { mpoolMethods } from './mpool.js';
import { netMethods } from './net.js';
import { snapshotMethods } from './snapshot.js';
import { stateMethods } from './state.js';
import { stateMessageMethods } from './state-messages.js';
import { syncMethods } from './sync.js';
import { walletMethods } from './wallet.js';

export const allMethods: readonly RpcMethod[] = [
  ...commonMethods,
  ...authMethods,
  ...walletMethods,
  ...chainMethods,
  ...snapshotMethods,
  ...stateMethods,
  ...stateMessageMethods,
  ...minerMethods,
  ...mpoolMethods,
  ...gasMethods,
  ...netMethods,
  ...syncMethods,
];
