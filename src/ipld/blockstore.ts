/**
 * Content-addressed block storage. The interface is synchronous on purpose: both backends
 * (memory, better-sqlite3) answer synchronously, and HAMT/AMT walks touch the store on every
 * level, where a promise per block would dominate the cost.
 */
import { decodeCbor, encodeCbor } from '../types/cbor.js';
import { type CID, cidOfCbor } from '../types/cid.js';
import { BlockNotFoundError } from './errors.js';

export interface Block {
  readonly cid: CID;
  readonly bytes: Uint8Array;
}

export interface Blockstore {
  get(cid: CID): Uint8Array | undefined;
  has(cid: CID): boolean;
  /** Stores bytes under a CID the caller computed; putting an existing CID again is a no-op. */
  put(cid: CID, bytes: Uint8Array): void;
  /** Stores all blocks or none of them (one transaction on persistent backends). */
  putMany(blocks: Iterable<Block>): void;
}

/** Encodes a value as DAG-CBOR, stores it and returns its CID (blake2b-256). */
export function putCbor(store: Blockstore, value: unknown): CID {
  const bytes = encodeCbor(value);
  const cid = cidOfCbor(bytes);
  store.put(cid, bytes);
  return cid;
}

/** The block's bytes; throws `BlockNotFoundError` naming the CID when absent. */
export function getBlock(store: Blockstore, cid: CID, what = 'block'): Uint8Array {
  const bytes = store.get(cid);
  if (bytes === undefined) throw new BlockNotFoundError(cid, what);
  return bytes;
}

/** Loads and decodes a DAG-CBOR block; `what` names it in errors. */
export function getCbor(store: Blockstore, cid: CID, what = 'block'): unknown {
  return decodeCbor(getBlock(store, cid, what), `${what} ${cid.toString()}`);
}
