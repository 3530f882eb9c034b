/** System actor (f00): the sender of implicit messages. Its state is the (empty) builtin-actor registry. */
import { putCbor } from '../../ipld/index.js';
import { SYSTEM_ACTOR_ID } from '../../state/index.js';
import { declareStruct, kinds, type StructValue } from '../../types/index.js';
import type { StateCodec } from '../runtime.js';
import { defineActor } from './actor.js';

/**
 * builtin-actors `actors/system/src/lib.rs` `State`: the CID of the list of builtin actors (always
 * empty: our actors are not wasm bundles).
 */
export const systemStateStruct = declareStruct('SystemState', [
  { key: 'builtinActors', json: 'BuiltinActors', kind: kinds.cid },
]);
export type SystemState = StructValue<typeof systemStateStruct>;

export const systemStateCodec: StateCodec<SystemState> = systemStateStruct;

export const systemActor = defineActor(
  'system',
  {},
  {
    Constructor: (rt) => {
      rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
      rt.createState(systemStateCodec, { builtinActors: putCbor(rt.store, []) });
      return null;
    },
  },
);
