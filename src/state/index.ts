export {
  ACTOR_CODES,
  ACTOR_NAMES,
  ACTORS_VERSION,
  type ActorName,
  actorCodeCid,
  actorNameOf,
  BURNT_FUNDS_ACTOR_ID,
  CRON_ACTOR_ID,
  DATACAP_TOKEN_ACTOR_ID,
  EAM_ACTOR_ID,
  EMPTY_STATE_HEAD,
  FIRST_NON_SINGLETON_ID,
  INIT_ACTOR_ID,
  RESERVE_ACTOR_ID,
  REWARD_ACTOR_ID,
  STORAGE_MARKET_ACTOR_ID,
  STORAGE_POWER_ACTOR_ID,
  SYSTEM_ACTOR_ID,
  VERIFIED_REGISTRY_ACTOR_ID,
} from './actor-code.js';
export { putCborBytes } from './blocks.js';
export { BufferedBlockstore } from './buffered-blockstore.js';
export { byteKey } from './byte-key.js';
export { StateError, StateErrorCode } from './errors.js';
export { decodeActorId, decodeInitState, encodeInitState, type InitState, initStateStruct } from './init-state.js';
export { blockLinks, forEachLinkBytes } from './links.js';
export { CURRENT_STATE_TREE_VERSION, hamtFormatOf, StateTree } from './state-tree.js';
