/**
 * PoStProof (go-state-types proof): CBOR `[PoStProof, ProofBytes]`, where PoStProof is the
 * RegisteredPoStProof enum (int64; e.g. 3 = StackedDrgWinning32GiBV1).
 */
import { bytes, int64 } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export const postProofStruct = declareStruct('PoStProof', [
  { key: 'postProof', json: 'PoStProof', kind: int64, description: 'the RegisteredPoStProof' },
  { key: 'proofBytes', json: 'ProofBytes', kind: bytes },
]);

export type PoStProof = StructValue<typeof postProofStruct>;
export type PoStProofJson = StructJson<typeof postProofStruct>;

export const postProofToCborNode = postProofStruct.toCborNode;
export const encodePoStProof = postProofStruct.encode;
export const decodePoStProof = postProofStruct.decode;
export const postProofToLotusJson = postProofStruct.toLotusJson;
export const postProofFromLotusJson = postProofStruct.fromLotusJson;
