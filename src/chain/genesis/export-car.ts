/**
 * Exports a genesis as a CAR v1 rooted at the genesis block (what `lotus daemon
 * --lotus-make-genesis` writes): the header, the "Filecoin genesis" parent, the message and
 * receipt AMTs and the whole genesis state.
 */
import type { Writable } from 'node:stream';
import type { CID } from 'multiformats/cid';
import { type Block, type Blockstore, getBlock, writeCar } from '../../ipld/index.js';
import { blockLinks } from '../../state/index.js';
import { DAG_CBOR_CODE } from '../../types/index.js';

/** Every DAG-CBOR block reachable from `root`, root first. Links to other codecs (actor codes, commitments) name no block. */
function* reachableBlocks(store: Blockstore, root: CID): Generator<Block> {
  const seen = new Set<string>();
  const pending = [root];
  for (let cid = pending.pop(); cid !== undefined; cid = pending.pop()) {
    const key = cid.toString();
    if (seen.has(key) || cid.code !== DAG_CBOR_CODE) continue;
    seen.add(key);
    const bytes = getBlock(store, cid, 'genesis block');
    yield { cid, bytes };
    const links = blockLinks(cid, bytes);
    for (let i = links.length - 1; i >= 0; i--) pending.push(links[i]!);
  }
}

export async function exportGenesisCar(store: Blockstore, genesisCid: CID, destination: Writable): Promise<void> {
  await writeCar(destination, [genesisCid], reachableBlocks(store, genesisCid));
}
