/**
 * The EVM actor's state (builtin-actors `actors/evm/src/state.rs`; JSON names as go-state-types
 * `builtin/v16/evm`): the bytecode (a raw block) and its keccak, the storage KAMT root, EIP-1153
 * transient storage tagged with the message it lives for, the CREATE nonce and the SELFDESTRUCT
 * tombstone.
 */
import { declareStruct, kinds, type StructValue } from '../../../types/index.js';

/** `[origin, nonce]`: one top-level message (the origin's ID and the message's nonce). */
export const messageStampStruct = declareStruct('Tombstone', [
  { key: 'origin', json: 'Origin', kind: kinds.uint64, description: 'actor ID of the message sender' },
  { key: 'nonce', json: 'Nonce', kind: kinds.uint64 },
]);
export type MessageStamp = StructValue<typeof messageStampStruct>;

export const transientDataStruct = declareStruct('TransientData', [
  { key: 'state', json: 'TransientDataState', kind: kinds.cid, description: 'KAMT root of the transient slots' },
  { key: 'lifespan', json: 'TransientDataLifespan', kind: kinds.struct(messageStampStruct) },
]);
export type TransientData = StructValue<typeof transientDataStruct>;

export const evmStateStruct = declareStruct('EvmState', [
  { key: 'bytecode', json: 'Bytecode', kind: kinds.cid, description: 'a raw (0x55) block; empty for no code' },
  { key: 'bytecodeHash', json: 'BytecodeHash', kind: kinds.bytesOfAtMost(32), description: 'keccak256 of the code' },
  { key: 'contractState', json: 'ContractState', kind: kinds.cid, description: 'KAMT root of the storage slots' },
  { key: 'transientData', json: 'TransientData', kind: kinds.nullable(kinds.struct(transientDataStruct)) },
  { key: 'nonce', json: 'Nonce', kind: kinds.uint64, description: 'the CREATE counter, from 1' },
  { key: 'tombstone', json: 'Tombstone', kind: kinds.nullable(kinds.struct(messageStampStruct)) },
]);
export type EvmState = StructValue<typeof evmStateStruct>;

/** keccak256 of the empty string: the hash of no code (builtin-actors `BytecodeHash::EMPTY`). */
export const EMPTY_CODE_HASH = Uint8Array.from(
  Buffer.from('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'hex'),
);
/** keccak256 of `0xfe`: what EXTCODEHASH answers for native actors (builtin-actors `BytecodeHash::NATIVE_ACTOR`). */
export const NATIVE_CODE_HASH = Uint8Array.from(
  Buffer.from('bcc90f2d6dada5b18e155c17a1c0a55920aae94f39857d39d0d8ed07ae8f228b', 'hex'),
);
