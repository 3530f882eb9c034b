/** ElectionProof: CBOR `[WinCount, VRFProof]`, the proof that a miner won the election at a height. */
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

export interface ElectionProof {
  readonly winCount: bigint;
  readonly vrfProof: Uint8Array;
}

export interface ElectionProofJson {
  WinCount: JsonInteger;
  VRFProof: string | null;
}

export function electionProofToCborNode(proof: ElectionProof): CborNode[] {
  return [checkRange(proof.winCount, 'int64', 'ElectionProof.WinCount'), proof.vrfProof];
}

export function electionProofFromCborNode(node: CborNode, path = 'ElectionProof'): ElectionProof {
  const [winCount, vrfProof] = readTuple(node, path, 2);
  return {
    winCount: readInt64(winCount, `${path}.WinCount`),
    vrfProof: readBytes(vrfProof, `${path}.VRFProof`),
  };
}

export function encodeElectionProof(proof: ElectionProof): Uint8Array {
  return encodeCbor(electionProofToCborNode(proof));
}

export function decodeElectionProof(bytes: Uint8Array): ElectionProof {
  return electionProofFromCborNode(decodeChainCbor(bytes, 'ElectionProof'));
}

export function electionProofToLotusJson(proof: ElectionProof): ElectionProofJson {
  return { WinCount: toJsonInteger(proof.winCount), VRFProof: bytesToLotusJson(proof.vrfProof) };
}

export function electionProofFromLotusJson(json: unknown, path = 'ElectionProof'): ElectionProof {
  const object = readJsonObject(json, path);
  return {
    winCount: readJsonInt64(jsonField(object, 'WinCount'), `${path}.WinCount`),
    vrfProof: readJsonBytes(jsonField(object, 'VRFProof'), `${path}.VRFProof`),
  };
}
