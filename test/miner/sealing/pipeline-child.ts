/**
 * A sealing pipeline in its own process (for the kill -9 test): the node database at argv[2], sector
 * files under argv[3], the chain over the fork channel. It resumes what the database holds, pledges
 * one sector when it holds none, and reports each transition and each settled sector to the parent.
 * It seals through a `SealProcess` (a child process of its own), as the node does.
 */
import { LedgerDatabase } from '../../../src/db/index.js';
import { SealingPipeline } from '../../../src/miner/sealing/index.js';
import { DEVNET_2K } from '../../../src/params/index.js';
import { SealProcess } from '../../../src/proofs/index.js';
import { chainOverIpc, reportSector } from './ipc-chain.js';
import { MINER } from './scripted-chain.js';

const [databasePath, sectorDirectory] = process.argv.slice(2);
const db = LedgerDatabase.open(databasePath!);
const sealer = new SealProcess();
const pipeline = await SealingPipeline.open({
  store: db.sealing,
  chain: chainOverIpc(),
  miner: MINER,
  sectorDirectory: sectorDirectory!,
  params: DEVNET_2K,
  messageConfidence: 1n,
  sealer,
  onTransition: (sector) => reportSector('transition', sector),
});
pipeline.start();
if (pipeline.sectors().length === 0) await pipeline.pledgeSector();
for (const sector of pipeline.sectors()) reportSector('settled', await pipeline.whenSettled(sector.sectorNumber));
await pipeline.stop();
sealer.close();
db.close();
process.disconnect();
