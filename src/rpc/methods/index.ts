/** Every method the node serves. A new namespace file adds its list here. */
import type { RpcMethod } from '../method.js';
import { authMethods } from './auth.js';
import { chainMethods } from './chain.js';
import { chainObjectMethods } from './chain-objects.js';
import { commonMethods } from './common.js';
import { ethMethods } from './eth.js';
import { ethContractMethods } from './eth-contracts.js';
import { ethEventMethods } from './eth-events.js';
import { ethTransactionMethods } from './eth-transactions.js';
import { gasMethods } from './gas.js';
import { logMethods } from './log.js';
import { minerMethods } from './miner.js';
import { mpoolMethods } from './mpool.js';
import { msigMethods } from './msig.js';
import { netMethods } from './net.js';
import { pruneMethods } from './prune.js';
import { snapshotMethods } from './snapshot.js';
import { stateMethods } from './state.js';
import { stateActorMethods } from './state-actors.js';
import { stateCallMethods } from './state-call.js';
import { stateMessageMethods } from './state-messages.js';
import { stateMinerMethods } from './state-miner.js';
import { stateMinerPledgeMethods } from './state-miner-pledge.js';
import { stateMinerProvingMethods } from './state-miner-proving.js';
import { stateNetworkMethods } from './state-network.js';
import { stateSupplyMethods } from './state-supply.js';
import { storageMethods } from './storage.js';
import { syncMethods } from './sync.js';
import { walletMethods } from './wallet.js';

/** Typed per method, for the client (client.ts derives LedgerApi from it). */
export const allMethods = [
  ...commonMethods,
  ...authMethods,
  ...walletMethods,
  ...chainMethods,
  ...chainObjectMethods,
  ...snapshotMethods,
  ...pruneMethods,
  ...stateMethods,
  ...stateActorMethods,
  ...stateCallMethods,
  ...stateMessageMethods,
  ...stateMinerMethods,
  ...stateMinerPledgeMethods,
  ...stateMinerProvingMethods,
  ...stateNetworkMethods,
  ...stateSupplyMethods,
  ...minerMethods,
  ...storageMethods,
  ...mpoolMethods,
  ...msigMethods,
  ...gasMethods,
  ...netMethods,
  ...syncMethods,
  ...logMethods,
  ...ethMethods,
  ...ethTransactionMethods,
  ...ethEventMethods,
  ...ethContractMethods,
] as const satisfies readonly RpcMethod[];
