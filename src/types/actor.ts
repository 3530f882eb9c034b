/**
 * Actor (the state tree's per-actor record): `[Code, Head, Nonce, Balance]` in state trees before
 * version 5, `[Code, Head, Nonce, Balance, DelegatedAddress]` from version 5 (FEVM). The object is
 * the same; the state tree version picks the encoding, as in Lotus.
 */
import { InvalidArgumentError } from '../utils/errors.js';
import { addressKind } from './address.js';
import { encodeCbor } from './cbor.js';
import type { CborNode } from './cbor-node.js';
import { bigInt, cid, nullable, uint64 } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

/** The first state tree version whose actors carry a delegated (f4) address. */
export const STATE_TREE_VERSION_WITH_DELEGATED_ADDRESS = 5n;

/** Decoding accepts both lengths; the state tree decides which one it expects. */
export const actorStruct = declareStruct(
  'Actor',
  [
    { key: 'code', json: 'Code', kind: cid, description: "the actor's code (its type)" },
    { key: 'head', json: 'Head', kind: cid, description: "the root of the actor's state" },
    { key: 'nonce', json: 'Nonce', kind: uint64 },
    { key: 'balance', json: 'Balance', kind: bigInt, description: 'attoFIL' },
    {
      key: 'delegatedAddress',
      json: 'DelegatedAddress',
      kind: nullable(addressKind),
      description: "the actor's f4 address, if it has one",
    },
  ],
  { minFields: 4 },
);

export type Actor = StructValue<typeof actorStruct>;
export type ActorJson = StructJson<typeof actorStruct>;

export const actorFromCborNode = actorStruct.fromCborNode;
export const decodeActor = actorStruct.decode;
export const actorToLotusJson = actorStruct.toLotusJson;
export const actorFromLotusJson = actorStruct.fromLotusJson;

export function actorToCborNode(actor: Actor, stateTreeVersion: bigint): CborNode[] {
  if (stateTreeVersion >= STATE_TREE_VERSION_WITH_DELEGATED_ADDRESS) return actorStruct.toCborNode(actor);
  if (actor.delegatedAddress !== null) {
    throw new InvalidArgumentError(
      `Actor.DelegatedAddress: state tree version ${stateTreeVersion} cannot store one (needs version 5)`,
    );
  }
  return actorStruct.toCborNodeOfLength(actor, 4);
}

export function encodeActor(actor: Actor, stateTreeVersion: bigint): Uint8Array {
  return encodeCbor(actorToCborNode(actor, stateTreeVersion));
}
