/**
 * A chain to snapshot: the chain fixture on fundedTemplate() with a signed transfer from alice to
 * bob in every epoch, so each epoch has its own state tree and receipts; a temporary repo to
 * import into; and the imported chain opened as the node opens it at its next start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainStore, TipSetStates } from '../../src/chain/index.js';
import type { LedgerDatabase } from '../../src/db/index.js';
import { FIL, PARAMS } from './genesis.js';
import { keys } from './keys.js';
import { message, signSecp } from './messages.js';
import { TestChain } from './test-chain.js';

/** A chain of `height` epochs (null rounds at the heights in `nullRounds`) with one transfer per tipset. */
export async function buildSnapshotChain(height: number, nullRounds: readonly number[] = []): Promise<TestChain> {
  const chain = TestChain.create();
  let nonce = 0n;
  for (let h = 1; h <= height; h++) {
    if (nullRounds.includes(h)) continue;
    const transfer = signSecp(
      keys.alice,
      message({ from: keys.alice.address, to: keys.bob.address, nonce, value: FIL }),
    );
    nonce++;
    await chain.mine([{ secp: [transfer] }], { height: BigInt(h) });
  }
  // Execute the head too, so the source node has the head's own state, as a running node would.
  await chain.states.stateOf(chain.chain.head());
  return chain;
}

export interface TempRepo {
  readonly dir: string;
  readonly dbPath: string;
  remove(): void;
}

export function tempRepo(prefix = 'ledger-snapshot-'): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, dbPath: join(dir, 'chain.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Opens the chain an import wrote, as the node does at its next start. */
export function openImported(db: LedgerDatabase): { chain: ChainStore; states: TipSetStates } {
  const chain = ChainStore.open({ db, params: PARAMS });
  return { chain, states: new TipSetStates(chain, db) };
}
