/**
 * PoStProof (go-state-types proof): CBOR `[PoStProof, ProofBytes]`, where PoStProof is the
 * RegisteredPoStProof enum (int64; e.g. 3 = StackedDrgWinning32GiBV1).
 */
import { encodeCbor } from './cbor.js';
import { readBytes, readInt64, readTuple } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { checkRange } from './integers.js';
import {
  bytesToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonBytes,
  readJsonInt64,
  readJsonObject,
  toJsonInteger,
} from './json.js';

export interface PoStProof {
  readonly postProof: bigint;
  readonly proofBytes: Uint8Array;
}

export interface PoStProofJson {
  PoStProof: JsonInteger;
  ProofBytes: string | null;
}

export function postProofToCborNode(proof: PoStProof): CborNode[] {
  return [checkRange(proof.postProof, 'int64', 'PoStProof.PoStProof'), proof.proofBytes];
}

export function postProofFromCborNode(node: CborNode, path = 'PoStProof'): PoStProof {
  const [postProof, proofBytes] = readTuple(node, path, 2);
  return {
    postProof: readInt64(postProof, `${path}.PoStProof`),
    proofBytes: readBytes(proofBytes, `${path}.ProofBytes`),
  };
}

export function encodePoStProof(proof: PoStProof): Uint8Array {
  return encodeCbor(postProofToCborNode(proof));
}

export function decodePoStProof(bytes: Uint8Array): PoStProof {
  return postProofFromCborNode(decodeChainCbor(bytes, 'PoStProof'));
}

export function postProofToLotusJson(proof: PoStProof): PoStProofJson {
  return { PoStProof: toJsonInteger(proof.postProof), ProofBytes: bytesToLotusJson(proof.proofBytes) };
}

export function postProofFromLotusJson(json: unknown, path = 'PoStProof'): PoStProof {
  const object = readJsonObject(json, path);
  return {
    postProof: readJsonInt64(jsonField(object, 'PoStProof'), `${path}.PoStProof`),
    proofBytes: readJsonBytes(jsonField(object, 'ProofBytes'), `${path}.ProofBytes`),
  };
}
