/**
 * A block with its messages. `FullBlock` carries the messages themselves (Lotus `types.FullBlock`):
 * BLS messages unsigned, their signatures aggregated in the header; secp256k1 messages signed.
 * `BlockMsg` names them by CID (Lotus `types.BlockMsg`: what MinerCreateBlock returns, what
 * SyncSubmitBlock takes and what block gossip carries, the `/fil/blocks/<network>` payload).
 */
import { type BlockHeader, blockHeaderStruct } from './block-header.js';
import { decodeChainCbor } from './cbor-node.js';
import { array, cid, struct } from './field-kinds.js';
import type { Message } from './message.js';
import type { SignedMessage } from './signed-message.js';
import { declareStruct, type StructJson, type StructValue } from './struct.js';

export interface FullBlock {
  readonly header: BlockHeader;
  readonly blsMessages: readonly Message[];
  readonly secpkMessages: readonly SignedMessage[];
}

export const blockMsgStruct = declareStruct('BlockMsg', [
  { key: 'header', json: 'Header', kind: struct(blockHeaderStruct) },
  { key: 'blsMessages', json: 'BlsMessages', kind: array(cid), description: 'unsigned BLS messages, block order' },
  { key: 'secpkMessages', json: 'SecpkMessages', kind: array(cid), description: 'signed secp256k1 messages' },
]);

export type BlockMsg = StructValue<typeof blockMsgStruct>;
export type BlockMsgJson = StructJson<typeof blockMsgStruct>;

export const encodeBlockMsg = blockMsgStruct.encode;
export const blockMsgToLotusJson = blockMsgStruct.toLotusJson;
export const blockMsgFromLotusJson = blockMsgStruct.fromLotusJson;

/** Decodes strictly: trailing bytes and non-canonical CBOR are refused, as Lotus refuses them. */
export function decodeBlockMsg(bytes: Uint8Array, path = 'BlockMsg'): BlockMsg {
  return blockMsgStruct.fromCborNode(decodeChainCbor(bytes, path), path);
}
