/**
 * TipSet: the blocks of one epoch that share a parent, in canonical order — ascending
 * blake2b-256(Ticket.VRFProof), ties broken by block CID bytes. Lotus JSON `{Cids, Blocks, Height}`;
 * CBOR the same 3-tuple (Lotus ExpTipSet). Decoders rebuild the tipset from its blocks, as Lotus does,
 * and reject a `Cids` or `Height` that disagrees with them.
 */
import type { CID } from 'multiformats/cid';
import { blake2b256 } from '../crypto/index.js';
import { bytesEqual, compareBytes, toHex } from '../utils/bytes.js';
import {
  type BlockHeader,
  type BlockHeaderJson,
  blockCid,
  blockHeaderFromCborNode,
  blockHeaderFromLotusJson,
  blockHeaderToCborNode,
  blockHeaderToLotusJson,
} from './block-header.js';
import { CborDecodeError, encodeCbor } from './cbor.js';
import { readArray, readCid, readInt64, readTuple } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { JsonDecodeError, TipSetError } from './errors.js';
import {
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  jsonField,
  readJsonArray,
  readJsonCid,
  readJsonInt64,
  readJsonObject,
  toJsonInteger,
} from './json.js';
import type { Ticket } from './ticket.js';
import { TipSetKey } from './tipset-key.js';

/** The header fields every block of a tipset must agree on (they are fixed by the parent tipset). */
const SHARED_FIELDS: ReadonlyArray<[name: string, get: (header: BlockHeader) => unknown]> = [
  ['Height', (h) => h.height],
  ['Parents', (h) => h.parents.join(',')],
  ['ParentWeight', (h) => h.parentWeight],
  ['ParentStateRoot', (h) => h.parentStateRoot.toString()],
  ['ParentMessageReceipts', (h) => h.parentMessageReceipts.toString()],
  ['ParentBaseFee', (h) => h.parentBaseFee],
  ['Timestamp', (h) => h.timestamp],
  ['BeaconEntries', (h) => h.beaconEntries.map((e) => `${e.round}:${toHex(e.data)}`).join(',')],
];

interface SortableBlock {
  header: BlockHeader;
  cid: CID;
  ticketDigest: Uint8Array;
}

export class TipSet {
  /** The block CIDs in canonical order, i.e. the tipset key. */
  readonly key: TipSetKey;

  private constructor(
    /** The blocks in canonical order. */
    readonly blocks: readonly BlockHeader[],
    readonly cids: readonly CID[],
  ) {
    this.key = TipSetKey.fromCids(cids);
  }

  /** Builds a tipset from its blocks in any order; throws `TipSetError` if they cannot form one. */
  static fromHeaders(headers: readonly BlockHeader[]): TipSet {
    if (headers.length === 0) throw new TipSetError('a tipset needs at least one block');
    const blocks: SortableBlock[] = headers.map((header) => {
      const cid = blockCid(header);
      if (header.ticket === null) throw new TipSetError(`block ${cid} has no ticket`);
      return { header, cid, ticketDigest: blake2b256(header.ticket.vrfProof) };
    });
    blocks.sort((a, b) => compareBytes(a.ticketDigest, b.ticketDigest) || compareBytes(a.cid.bytes, b.cid.bytes));
    const first = blocks[0] as SortableBlock;
    for (let i = 1; i < blocks.length; i++) {
      const block = blocks[i] as SortableBlock;
      if (bytesEqual(block.cid.bytes, (blocks[i - 1] as SortableBlock).cid.bytes)) {
        throw new TipSetError(`block ${block.cid} appears twice`);
      }
      for (const [name, get] of SHARED_FIELDS) {
        if (get(block.header) !== get(first.header)) {
          throw new TipSetError(`blocks ${first.cid} and ${block.cid} disagree on ${name}`);
        }
      }
    }
    return new TipSet(
      blocks.map((b) => b.header),
      blocks.map((b) => b.cid),
    );
  }

  get #first(): BlockHeader {
    return this.blocks[0] as BlockHeader;
  }

  get height(): bigint {
    return this.#first.height;
  }

  get parents(): TipSetKey {
    return TipSetKey.fromCids(this.#first.parents);
  }

  get parentWeight(): bigint {
    return this.#first.parentWeight;
  }

  get parentStateRoot(): CID {
    return this.#first.parentStateRoot;
  }

  get parentMessageReceipts(): CID {
    return this.#first.parentMessageReceipts;
  }

  get parentBaseFee(): bigint {
    return this.#first.parentBaseFee;
  }

  /** Unix seconds; the same for every block. */
  get timestamp(): bigint {
    return this.#first.timestamp;
  }

  /** The block with the smallest ticket: the first in canonical order. */
  get minTicketBlock(): BlockHeader {
    return this.#first;
  }

  get minTicket(): Ticket {
    return this.#first.ticket as Ticket;
  }

  contains(cid: CID): boolean {
    return this.cids.some((c) => c.equals(cid));
  }

  /** True when `parent` is this tipset's parent: its key is our Parents and it is lower. */
  isChildOf(parent: TipSet): boolean {
    return this.parents.equals(parent.key) && this.height > parent.height;
  }

  equals(other: TipSet): boolean {
    return this.key.equals(other.key);
  }
}

export interface TipSetJson {
  Cids: CidJson[];
  Blocks: BlockHeaderJson[];
  Height: JsonInteger;
}

export function tipSetToCborNode(tipSet: TipSet): CborNode[] {
  return [[...tipSet.cids], tipSet.blocks.map(blockHeaderToCborNode), tipSet.height];
}

function fromHeaders(headers: BlockHeader[], fail: (message: string) => Error): TipSet {
  try {
    return TipSet.fromHeaders(headers);
  } catch (error) {
    throw error instanceof TipSetError ? fail(error.message) : error;
  }
}

export function tipSetFromCborNode(node: CborNode, path = 'TipSet'): TipSet {
  const [cids, blocks, height] = readTuple(node, path, 3);
  const fail = (message: string) => new CborDecodeError(`${path}: ${message}`);
  const tipSet = fromHeaders(readArray(blocks, `${path}.Blocks`, blockHeaderFromCborNode), fail);
  if (!TipSetKey.fromCids(readArray(cids, `${path}.Cids`, readCid)).equals(tipSet.key)) {
    throw fail(`Cids do not match the blocks, whose key is ${tipSet.key}`);
  }
  if (readInt64(height, `${path}.Height`) !== tipSet.height) throw fail(`Height does not match the blocks' height`);
  return tipSet;
}

export function encodeTipSet(tipSet: TipSet): Uint8Array {
  return encodeCbor(tipSetToCborNode(tipSet));
}

export function decodeTipSet(bytes: Uint8Array): TipSet {
  return tipSetFromCborNode(decodeChainCbor(bytes, 'TipSet'));
}

export function tipSetToLotusJson(tipSet: TipSet): TipSetJson {
  return {
    Cids: tipSet.cids.map(cidToLotusJson),
    Blocks: tipSet.blocks.map(blockHeaderToLotusJson),
    Height: toJsonInteger(tipSet.height),
  };
}

/** Rebuilt from `Blocks`; `Cids` and `Height` are optional but must agree when given. */
export function tipSetFromLotusJson(json: unknown, path = 'TipSet'): TipSet {
  const object = readJsonObject(json, path);
  const fail = (message: string) => new JsonDecodeError(`${path}: ${message}`);
  const tipSet = fromHeaders(
    readJsonArray(jsonField(object, 'Blocks'), `${path}.Blocks`, blockHeaderFromLotusJson),
    fail,
  );
  const cids = jsonField(object, 'Cids');
  if (cids !== undefined && cids !== null) {
    if (!TipSetKey.fromCids(readJsonArray(cids, `${path}.Cids`, readJsonCid)).equals(tipSet.key)) {
      throw fail(`Cids do not match the blocks, whose key is ${tipSet.key}`);
    }
  }
  const height = jsonField(object, 'Height');
  if (height !== undefined && height !== null && readJsonInt64(height, `${path}.Height`) !== tipSet.height) {
    throw fail(`Height does not match the blocks' height`);
  }
  return tipSet;
}
