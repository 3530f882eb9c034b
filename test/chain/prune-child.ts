/**
 * The child process of prune-kill.test.ts: opens the chain database at argv[2] and prunes it with
 * a window of argv[3] epochs, in one-block batches. After the third batch it tells the parent and
 * stops right there (between two committed batches), so the parent's SIGKILL lands mid-sweep.
 */
import { ChainStore } from '../../src/chain/chain-store.js';
import { ChainPruner } from '../../src/chain/prune.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { PARAMS } from '../helpers/genesis.js';

const db = LedgerDatabase.open(process.argv[2]!);
const chain = ChainStore.open({ db, params: PARAMS });
const sweepBatch = db.blockSweep.sweepBatch.bind(db.blockSweep);
let batches = 0;
db.blockSweep.sweepBatch = (after, limit, keep) => {
  const batch = sweepBatch(after, limit, keep);
  if (batch.deleted > 0 && ++batches === 3) {
    process.send?.('swept');
    // Wait here for the kill: no further batch starts.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  }
  return batch;
};
void new ChainPruner(chain, db).prune({ window: BigInt(process.argv[3]!), batchSize: 1 });
