/** Every method the node serves. A new namespace file adds its list here. */
import type { RpcMethod } from '../method.js';
import { authMethods } from './auth.js';
import { commonMethods } from './common.js';
import { walletMethods } from './wallet.js';

export const allMethods: readonly RpcMethod[] = [...commonMethods, ...authMethods, ...walletMethods];
