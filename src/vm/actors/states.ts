/**
 * The state each actor type keeps, as its `declareStruct` declaration (JSON names as go-state-types
 * writes them): what StateReadState decodes an actor's head with. Null for the types whose state
 * is the empty object (placeholder, EthAccount, EAM; Lotus `vm.DumpActorState` answers nil for them).
 */
import { type ActorName, initStateStruct } from '../../state/index.js';
import type { StructCodec } from '../../types/index.js';
import { accountStateStruct } from './account.js';
import { cronStateStruct } from './cron.js';
import { evmStateStruct } from './evm/state.js';
import { minerStateStruct } from './miner/state.js';
import { multisigStateStruct } from './multisig.js';
import { powerStateStruct } from './power-state.js';
import { rewardStateStruct } from './reward-state.js';
import { systemStateStruct } from './system.js';

// biome-ignore lint/suspicious/noExplicitAny: one table holds the declarations of every state type
export const ACTOR_STATE_STRUCTS: Readonly<Record<ActorName, StructCodec<any, any> | null>> = {
  system: systemStateStruct,
  init: initStateStruct,
  cron: cronStateStruct,
  account: accountStateStruct,
  storagepower: powerStateStruct,
  storageminer: minerStateStruct,
  multisig: multisigStateStruct,
  reward: rewardStateStruct,
  placeholder: null,
  ethaccount: null,
  evm: evmStateStruct,
  eam: null,
};
