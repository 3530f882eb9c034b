/**
 * A mined block's slash-filter record and its chain write are one transaction (issue 18): on a
 * real devnet (real elections, winning PoSt, validation and SQLite), with the node's own mining
 * loop, a chain write that fails leaves no record and the next round on the same parents is
 * mined; a repo holding a record of a block that never landed (left by older versions) mines again
 * after a restart.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseError, LedgerDatabase } from '../../src/db/index.js';
import { DATABASE_FILE } from '../../src/node/chain-services.js';
import { blockCid, type TipSet, type TipSetKey } from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const MINUTE = 60_000;

test(
  'a chain write that fails (SQLITE_FULL) leaves no slash-filter record; the next round on the same parents is mined',
  async () => {
    const devnet = await startDevnet({ mine: false, blockTimeMs: 1000, accounts: 1 });
    try {
      const { chain, db, devnet: info } = devnet.node.chain!;
      const loop = devnet.node.miners!.miningLoop();
      const genesis = chain.genesis;
      // The disk is full when the first mined tipset is indexed: after the slash filter recorded the
      // block and the blockstore took it, in the same transaction. Only this one write is a double.
      const index = db.chainIndex;
      const putTipSet = index.putTipSet.bind(index);
      let failed: TipSetKey | undefined;
      index.putTipSet = (record) => {
        index.putTipSet = putTipSet;
        failed = record.key;
        throw new DatabaseError(`indexing tipset ${record.key} failed: database or disk is full (SQLITE_FULL)`, {
          sqliteCode: 'SQLITE_FULL',
        });
      };
      loop.start();
      const head = await devnet.waitForHeight(1, 3 * MINUTE);
      await loop.stop();

      expect(failed).toBeDefined();
      const lost = failed!.cids[0]!;
      expect(chain.hasBlock(lost)).toBe(false);
      expect(loop.blocksMined).toBe(1);
      // The block that landed is on the same parents as the lost one, and its record is the only one there.
      expect(head.parents.equals(genesis.key)).toBe(true);
      const mined = head.blocks[0]!;
      expect(index.minedBlockOn(info.miner.bytes, genesis.key)?.block.equals(blockCid(mined))).toBe(true);
      for (let height = 1n; height < mined.height; height++) {
        expect(index.minedBlockAt(info.miner.bytes, height)).toBeUndefined();
      }
    } finally {
      await devnet.stop();
    }
  },
  5 * MINUTE,
);

test(
  'a repo holding a record of a block that never landed (header absent) mines again after a restart',
  async () => {
    let devnet: Devnet | undefined = await startDevnet({ mine: false, blockTimeMs: 1000, accounts: 1, keepRepo: true });
    const repo = devnet.repoPath;
    try {
      const { chain, devnet: info } = devnet.node.chain!;
      const genesis: TipSet = chain.genesis;
      const miner = info.miner;
      await devnet.stop();
      devnet = undefined;

      // What the old code left after a failed chain write: the record of a block on genesis, no header.
      const db = LedgerDatabase.open(join(repo, DATABASE_FILE));
      const neverLanded = blockCid({ ...genesis.blocks[0]!, miner, height: 1n, parents: genesis.cids });
      expect(db.blockstore.has(neverLanded)).toBe(false);
      db.chainIndex.putMinedBlock(miner.bytes, { height: 1n, parents: genesis.key, block: neverLanded });
      db.close();

      devnet = await startDevnet({ repo, blockTimeMs: 1000 });
      const head = await devnet.waitForHeight(1, 3 * MINUTE);
      const { db: reopened } = devnet.node.chain!;
      // Mined on genesis, the parents of the stale record, which the landed block replaced.
      const first = head.height === 1n ? head : devnet.node.chain!.chain.getTipSetByHeight(1n, head, false);
      expect(first.parents.equals(genesis.key)).toBe(true);
      const landed = blockCid(first.blocks[0]!);
      expect(reopened.chainIndex.minedBlockOn(miner.bytes, genesis.key)?.block.equals(landed)).toBe(true);
      const atOne = reopened.chainIndex.minedBlockAt(miner.bytes, 1n);
      expect(atOne === undefined || atOne.block.equals(landed)).toBe(true);
    } finally {
      await devnet?.stop();
      rmSync(repo, { recursive: true, force: true });
    }
  },
  5 * MINUTE,
);
