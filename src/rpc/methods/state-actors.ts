/**
 * State queries about actors as a whole (filecoin-project/lotus `api/api_full.go`,
 * `node/impl/full/state.go`, `chain/stmgr/stmgr.go`): an actor's decoded state, every actor of a
 * state tree, and the robust address behind an ID. Like the other State methods they read the
 * parent state of the tipset named (null or [] for the head).
 */
import { Hamt } from '../../ipld/index.js';
import { actorNameOf, hamtFormatOf, StateTree } from '../../state/index.js';
import {
  type Actor,
  type ActorJson,
  Address,
  AddressProtocol,
  actorStruct,
  actorToLotusJson,
  bigIntSchema,
  bigIntToLotusJson,
  type CidJson,
  cidToLotusJson,
  encodeActor,
} from '../../types/index.js';
import { AbortedError, nextTurn } from '../../utils/abort.js';
import { bytesEqual } from '../../utils/bytes.js';
import { ACTOR_STATE_STRUCTS } from '../../vm/index.js';
import { cidParam, tipSetKeyParam } from '../chain-codecs.js';
import { addressParam } from '../params.js';
import { addressListResult, addressResult, jsonResult } from '../results.js';
import { cidSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';
import { actorAt, actorNotFound, stateTreeOf } from './state.js';
import { failCall } from './state-miner-common.js';

/** Lotus `api.ActorState`. */
export interface ActorStateJson {
  Balance: string;
  Code: CidJson;
  State: unknown;
}

function actorStateJson(address: Address, actor: Actor, stateBytes: (actor: Actor) => Uint8Array): ActorStateJson {
  const name = actorNameOf(actor.code);
  if (name === undefined) failCall(`dumping actor state (a:${address}): unknown actor code ${actor.code}`);
  const codec = ACTOR_STATE_STRUCTS[name];
  let state: unknown = null;
  if (codec !== null) {
    try {
      state = codec.toLotusJson(codec.decode(stateBytes(actor)));
    } catch (error) {
      failCall(`dumping actor state (a:${address}): ${(error as Error).message}`);
    }
  }
  return { Balance: bigIntToLotusJson(actor.balance), Code: cidToLotusJson(actor.code), State: state };
}

export const stateReadState = declareChainMethod({
  name: 'StateReadState',
  description:
    "Returns an actor's balance, code and state, the state decoded as go-state-types writes it (null for placeholder and EthAccount actors, whose state is empty); error code 11 when there is no actor.",
  permission: 'read',
  params: [addressParam('actor', 'the actor address'), tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: jsonResult<ActorStateJson>('actorState', 'Lotus ActorState', {
    title: 'ActorState',
    type: 'object',
    properties: { Balance: bigIntSchema, Code: cidSchema, State: { description: 'the decoded actor state' } },
    required: ['Balance', 'Code', 'State'],
  }),
  handler: ([address, key], { chain }) => {
    const tree = stateTreeOf(chain, key);
    const actor = actorAt(tree, address);
    if (actor === undefined) throw actorNotFound(address);
    return actorStateJson(address, actor, (a) => {
      const bytes = tree.store.get(a.head);
      if (bytes === undefined) failCall(`getting actor head: block ${a.head} not found`);
      return bytes;
    });
  },
});

export const stateListActors = declareChainMethod({
  name: 'StateListActors',
  description: 'Returns the ID address of every actor in the state, in the state tree’s order.',
  permission: 'read',
  expensive: true,
  params: [tipSetKeyParam('tsk', 'the tipset; null or [] for the head')],
  result: addressListResult('the ID addresses'),
  handler: ([key], { chain }) => [...stateTreeOf(chain, key).actors()].map(([id]) => Address.newId(id)),
});

export const stateLookupRobustAddress = declareChainMethod({
  name: 'StateLookupRobustAddress',
  description:
    'Returns the robust address (f1/f2/f3/f4) the init actor maps to an ID address: the key address of an account, the f2 address of a multisig or miner; an error for an ID no robust address maps to.',
  permission: 'read',
  apiVersions: [1],
  expensive: true,
  params: [
    addressParam('idAddress', 'an ID address (f0…)'),
    tipSetKeyParam('tsk', 'the tipset; null or [] for the head'),
  ],
  result: addressResult('the robust address'),
  handler: ([address, key], { chain }) => {
    if (address.protocol !== AddressProtocol.ID) {
      failCall(`failed to decode provided address as id addr: ${address} is not an ID address`);
    }
    const tree = stateTreeOf(chain, key);
    // The init actor's map goes from robust address to ID: Lotus walks it the same way.
    const addressMap = Hamt.load(tree.store, tree.initState().addressMap, { format: hamtFormatOf(tree.version) });
    const id = address.id();
    for (const [robust, value] of addressMap.entries()) {
      if (BigInt(value as number | bigint) === id) return Address.fromBytes(robust);
    }
    failCall(`Address ${address} not found`);
  },
});

/** How many actors StateChangedActors compares before it hands the event loop back and checks its signal. */
const DIFF_ACTORS_PER_TURN = 1024;

export const stateChangedActors = declareChainMethod({
  name: 'StateChangedActors',
  description:
    'The actors of the new state tree that are not in the old one or differ from it (code, head, nonce, balance or delegated address), by ID address; actors the new tree no longer has are left out, as in Lotus.',
  permission: 'read',
  expensive: true,
  params: [cidParam('old', 'the old state root'), cidParam('new', 'the new state root')],
  result: jsonResult<Record<string, ActorJson>>('actors', 'ID address → Actor', {
    type: 'object',
    additionalProperties: actorStruct.schema,
  }),
  handler: async ([oldRoot, newRoot], { chain }, { signal }) => {
    const load = (root: typeof oldRoot, which: string) => {
      try {
        return StateTree.load(chain.store.blockstore, root);
      } catch (error) {
        failCall(`failed to load ${which} state tree: ${(error as Error).message}`);
      }
    };
    const oldTree = load(oldRoot, 'old');
    const newTree = load(newRoot, 'new');
    const changed: Record<string, ActorJson> = {};
    if (oldRoot.equals(newRoot)) return changed;
    let compared = 0;
    try {
      for (const [id, actor] of newTree.actors()) {
        if (++compared % DIFF_ACTORS_PER_TURN === 0) await nextTurn(signal);
        const before = oldTree.getActor(id);
        if (
          before !== undefined &&
          bytesEqual(encodeActor(before, oldTree.version), encodeActor(actor, newTree.version))
        ) {
          continue;
        }
        changed[Address.newId(id).toString()] = actorToLotusJson(actor);
      }
    } catch (error) {
      if (error instanceof AbortedError) throw error;
      failCall(`comparing state trees ${oldRoot} and ${newRoot}: ${(error as Error).message}`);
    }
    return changed;
  },
});

export const stateActorMethods = [stateReadState, stateListActors, stateLookupRobustAddress, stateChangedActors];
