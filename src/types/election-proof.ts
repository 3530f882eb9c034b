/** ElectionProof: CBOR `[WinCount, VRFProof]`, the proof that a miner won the election at a height. */
import { bytes, int64 } from './field-kinds.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export const electionProofStruct = declareStruct('ElectionProof', [
  { key: 'winCount', json: 'WinCount', kind: int64 },
  { key: 'vrfProof', json: 'VRFProof', kind: bytes },
]);

export type ElectionProof = StructValue<typeof electionProofStruct>;
export type ElectionProofJson = StructJson<typeof electionProofStruct>;

export const electionProofToCborNode = electionProofStruct.toCborNode;
export const encodeElectionProof = electionProofStruct.encode;
export const decodeElectionProof = electionProofStruct.decode;
export const electionProofToLotusJson = electionProofStruct.toLotusJson;
export const electionProofFromLotusJson = electionProofStruct.fromLotusJson;
