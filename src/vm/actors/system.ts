/** System actor (f00): the sender of implicit messages. Its state is the (empty) builtin-actor registry. */
import type { CID } from 'multiformats/cid';
import { putCbor } from '../../ipld/index.js';
import { SYSTEM_ACTOR_ID } from '../../state/index.js';
import { decodeChainCbor } from '../../types/cbor-node.js';
import { encodeCbor } from '../../types/index.js';
import { METHOD_CONSTRUCTOR } from '../methods.js';
import type { StateCodec } from '../runtime.js';
import type { ActorImplementation, MethodHandler } from './actor.js';
import { readCid, readTuple } from './cbor.js';

export interface SystemState {
  /** The CID of the list of builtin actors (always empty: our actors are not wasm bundles). */
  builtinActors: CID;
}

export const systemStateCodec: StateCodec<SystemState> = {
  decode(bytes) {
    const [builtinActors] = readTuple(decodeChainCbor(bytes, 'SystemState'), 'SystemState', 1);
    return { builtinActors: readCid(builtinActors, 'SystemState.BuiltinActors') };
  },
  encode: (state) => encodeCbor([state.builtinActors]),
};

export const systemActor: ActorImplementation = {
  type: 'system',
  methods: new Map<bigint, MethodHandler>([
    [
      METHOD_CONSTRUCTOR,
      (rt) => {
        rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
        rt.createState(systemStateCodec, { builtinActors: putCbor(rt.store, []) });
        return null;
      },
    ],
  ]),
};
