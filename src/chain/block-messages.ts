/**
 * A block's messages in the blockstore (filecoin-project/lotus `chain/store/messages.go`): BLS
 * messages stored unsigned under their CID, secp256k1 messages signed under the SignedMessage CID,
 * and the header's `Messages` field naming a TxMeta of two legacy (v0) AMTs of those CIDs.
 */
import type { CID } from 'multiformats/cid';
import { Amt, type Blockstore, buildAmt, getBlock, MemoryBlockstore, putCbor, WriteBatch } from '../ipld/index.js';
import type { CborNode } from '../types/cbor-node.js';
import {
  type BlockHeader,
  decodeMessage,
  decodeSignedMessage,
  decodeTxMeta,
  encodeMessage,
  encodeSignedMessage,
  type Message,
  messageCid,
  readCid,
  type SignedMessage,
  signedMessageCid,
  txMetaToCborNode,
} from '../types/index.js';

export interface BlockMessages {
  readonly blsMessages: readonly Message[];
  readonly secpMessages: readonly SignedMessage[];
}

export interface StoredBlockMessages {
  /** The TxMeta CID: the header's `Messages`. */
  readonly txMeta: CID;
  readonly blsCids: readonly CID[];
  readonly secpCids: readonly CID[];
}

/** The TxMeta of these message CIDs, written (with its AMTs) into `store`. */
export function putTxMeta(store: Blockstore, blsCids: readonly CID[], secpCids: readonly CID[]): CID {
  const blsMessages = buildAmt(store, blsCids, { version: 'v0' });
  const secpkMessages = buildAmt(store, secpCids, { version: 'v0' });
  return putCbor(store, txMetaToCborNode({ blsMessages, secpkMessages }));
}

/** The TxMeta CID these message CIDs give, computed without touching any store. */
export function txMetaCidOf(blsCids: readonly CID[], secpCids: readonly CID[]): CID {
  return putTxMeta(new MemoryBlockstore(), blsCids, secpCids);
}

/** Stores the messages and their TxMeta; the blocks reach `store` in one `putMany`. */
export function putBlockMessages(store: Blockstore, messages: BlockMessages): StoredBlockMessages {
  const staged = new WriteBatch(store);
  const blsCids = messages.blsMessages.map((message) => {
    const cid = messageCid(message);
    staged.put(cid, encodeMessage(message));
    return cid;
  });
  const secpCids = messages.secpMessages.map((signed) => {
    const cid = signedMessageCid(signed);
    staged.put(cid, encodeSignedMessage(signed));
    return cid;
  });
  const txMeta = putTxMeta(staged, blsCids, secpCids);
  staged.commit();
  return { txMeta, blsCids, secpCids };
}

function readCidAmt(store: Blockstore, root: CID, what: string): CID[] {
  return Array.from(Amt.load(store, root, { version: 'v0' }).values(), (value, i) =>
    readCid(value as CborNode, `${what}[${i}]`),
  );
}

/** The message CIDs a block's TxMeta lists. */
export function blockMessageCids(store: Blockstore, header: BlockHeader): { bls: CID[]; secp: CID[] } {
  const meta = decodeTxMeta(getBlock(store, header.messages, 'TxMeta'));
  return {
    bls: readCidAmt(store, meta.blsMessages, 'BlsMessages'),
    secp: readCidAmt(store, meta.secpkMessages, 'SecpkMessages'),
  };
}

export function loadMessage(store: Blockstore, cid: CID): Message {
  return decodeMessage(getBlock(store, cid, 'message'));
}

export function loadSignedMessage(store: Blockstore, cid: CID): SignedMessage {
  return decodeSignedMessage(getBlock(store, cid, 'signed message'));
}

/** A block's messages, in block order (Lotus `MessagesForBlock`). */
export function loadBlockMessages(store: Blockstore, header: BlockHeader): BlockMessages {
  const { bls, secp } = blockMessageCids(store, header);
  return {
    blsMessages: bls.map((cid) => loadMessage(store, cid)),
    secpMessages: secp.map((cid) => loadSignedMessage(store, cid)),
  };
}
