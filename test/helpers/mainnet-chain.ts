/**
 * Real Filecoin mainnet epochs 0–39 (shared/vectors/blocks/export40.car) as a chain-exchange
 * source: headers, TxMetas and messages exactly as mainnet has them.
 */
import { createReadStream } from 'node:fs';
import type { CID } from 'multiformats/cid';
import { loadBlockMessages } from '../../src/chain/index.js';
import { importCar, MemoryBlockstore } from '../../src/ipld/index.js';
import type { NetworkChain } from '../../src/net/index.js';
import { type BlockHeader, decodeBlockHeader, TipSet, type TipSetKey } from '../../src/types/index.js';
import { vectorPath } from '../vectors/vectors-dir.js';

export interface MainnetChain extends NetworkChain {
  readonly store: MemoryBlockstore;
  readonly tipSets: TipSet[];
}

export async function loadMainnetChain(): Promise<MainnetChain> {
  const store = new MemoryBlockstore();
  const { roots } = await importCar(store, createReadStream(vectorPath('blocks', 'export40.car')));
  const headerOf = (cid: CID): BlockHeader => decodeBlockHeader(store.get(cid)!);
  const loadTipSet = (key: TipSetKey): TipSet => {
    const headers = key.cids.map((cid) => {
      const bytes = store.get(cid);
      if (bytes === undefined) throw new Error(`block ${cid} not found`);
      return decodeBlockHeader(bytes);
    });
    return TipSet.fromHeaders(headers);
  };
  // The CAR's root is the single block at height 39; walk its parents down to genesis.
  const rootHeader = headerOf(roots[0] as CID);
  const tipSets: TipSet[] = [TipSet.fromHeaders([rootHeader])];
  let current = loadTipSet((tipSets[0] as TipSet).parents);
  while (current.height > 0n) {
    tipSets.push(current);
    current = loadTipSet(current.parents);
  }
  tipSets.push(current);
  const head = tipSets[0] as TipSet;
  return {
    store,
    tipSets,
    genesis: current,
    head: () => head,
    headWeight: () => head.parentWeight,
    loadTipSet,
    blockMessages: (header) => loadBlockMessages(store, header),
  };
}
