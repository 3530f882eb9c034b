import type { CID } from 'multiformats/cid';
import type { Blockstore } from '../ipld/index.js';
import { cidOfCbor } from '../types/index.js';

/** Stores already-encoded DAG-CBOR bytes under their CID (blake2b-256) and returns it. */
export function putCborBytes(store: Blockstore, bytes: Uint8Array): CID {
  const cid = cidOfCbor(bytes);
  store.put(cid, bytes);
  return cid;
}
