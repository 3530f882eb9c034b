/**
 * Actor (the state tree's per-actor record): `[Code, Head, Nonce, Balance]` in state trees before
 * version 5, `[Code, Head, Nonce, Balance, DelegatedAddress]` from version 5 (FEVM). The object is
 * the same; the state tree version picks the encoding, as in Lotus.
 */
import type { CID } from 'multiformats/cid';
import { InvalidArgumentError } from '../utils/errors.js';
import {
  type Address,
  addressFromCborNode,
  addressFromLotusJson,
  addressToCborNode,
  addressToLotusJson,
} from './address.js';
import { bigIntFromCborNode, bigIntFromLotusJson, bigIntToCborNode, bigIntToLotusJson } from './big-int.js';
import { encodeCbor } from './cbor.js';
import { readCid, readNullable, readTupleOfLengths, readUint64 } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { checkRange } from './integers.js';
import {
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonCid,
  readJsonNullable,
  readJsonObject,
  readJsonUint64,
  toJsonInteger,
} from './json.js';

/** The first state tree version whose actors carry a delegated (f4) address. */
export const STATE_TREE_VERSION_WITH_DELEGATED_ADDRESS = 5n;

export interface Actor {
  /** The actor's code (its type). */
  readonly code: CID;
  /** The root of the actor's state. */
  readonly head: CID;
  readonly nonce: bigint;
  /** attoFIL */
  readonly balance: bigint;
  /** The actor's f4 address, if it has one. */
  readonly delegatedAddress: Address | null;
}

export interface ActorJson {
  Code: CidJson;
  Head: CidJson;
  Nonce: JsonInteger;
  Balance: string;
  DelegatedAddress: string | null;
}

export function actorToCborNode(actor: Actor, stateTreeVersion: bigint): CborNode[] {
  const fields: CborNode[] = [
    actor.code,
    actor.head,
    checkRange(actor.nonce, 'uint64', 'Actor.Nonce'),
    bigIntToCborNode(actor.balance),
  ];
  if (stateTreeVersion >= STATE_TREE_VERSION_WITH_DELEGATED_ADDRESS) {
    return [...fields, actor.delegatedAddress === null ? null : addressToCborNode(actor.delegatedAddress)];
  }
  if (actor.delegatedAddress !== null) {
    throw new InvalidArgumentError(
      `Actor.DelegatedAddress: state tree version ${stateTreeVersion} cannot store one (needs version 5)`,
    );
  }
  return fields;
}

/** Accepts both encodings; the state tree decides which one it expects. */
export function actorFromCborNode(node: CborNode, path = 'Actor'): Actor {
  const [code, head, nonce, balance, delegatedAddress] = readTupleOfLengths(node, path, [4, 5]);
  return {
    code: readCid(code as CborNode, `${path}.Code`),
    head: readCid(head as CborNode, `${path}.Head`),
    nonce: readUint64(nonce as CborNode, `${path}.Nonce`),
    balance: bigIntFromCborNode(balance as CborNode, `${path}.Balance`),
    delegatedAddress:
      delegatedAddress === undefined
        ? null
        : readNullable(delegatedAddress, `${path}.DelegatedAddress`, addressFromCborNode),
  };
}

export function encodeActor(actor: Actor, stateTreeVersion: bigint): Uint8Array {
  return encodeCbor(actorToCborNode(actor, stateTreeVersion));
}

export function decodeActor(bytes: Uint8Array): Actor {
  return actorFromCborNode(decodeChainCbor(bytes, 'Actor'));
}

export function actorToLotusJson(actor: Actor): ActorJson {
  return {
    Code: cidToLotusJson(actor.code),
    Head: cidToLotusJson(actor.head),
    Nonce: toJsonInteger(actor.nonce),
    Balance: bigIntToLotusJson(actor.balance),
    DelegatedAddress: actor.delegatedAddress === null ? null : addressToLotusJson(actor.delegatedAddress),
  };
}

export function actorFromLotusJson(json: unknown, path = 'Actor'): Actor {
  const object = readJsonObject(json, path);
  return {
    code: readJsonCid(jsonField(object, 'Code'), `${path}.Code`),
    head: readJsonCid(jsonField(object, 'Head'), `${path}.Head`),
    nonce: readJsonUint64(jsonField(object, 'Nonce'), `${path}.Nonce`),
    balance: bigIntFromLotusJson(jsonField(object, 'Balance'), `${path}.Balance`),
    delegatedAddress: readJsonNullable(
      jsonField(object, 'DelegatedAddress'),
      `${path}.DelegatedAddress`,
      addressFromLotusJson,
    ),
  };
}
