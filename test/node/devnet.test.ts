/**
 * What the first `ledger devnet` leaves in the repo, and what later starts keep: devnet.json, the
 * genesis CAR, the sectors, the wallet's keys, the block time fixed at creation, and a clear refusal
 * on a repo that holds another chain. No mining here.
 */
import { createReadStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { importCar, MemoryBlockstore } from '../../src/ipld/index.js';
import { DATABASE_FILE } from '../../src/node/chain-services.js';
import { readDevnet } from '../../src/node/devnet.js';
import { startDevnet } from '../helpers/devnet.js';

test('a new devnet records itself, exports its genesis, pre-seals sectors and fills the wallet', async () => {
  const devnet = await startDevnet({ mine: false, accounts: 2, ethAccounts: 1, keepRepo: true });
  const { repoPath } = devnet;
  try {
    const info = readDevnet(repoPath);
    const chain = devnet.node.chain!;
    expect(info.genesisCid.equals(chain.chain.genesis.key.cids[0]!)).toBe(true);
    expect(info.miner.toString()).toBe('t01000');
    expect(info.blockDelaySecs).toBe(4n);
    expect(info.accounts).toHaveLength(2);
    expect(info.ethAccounts).toHaveLength(1);
    const json = JSON.parse(readFileSync(join(repoPath, 'devnet.json'), 'utf8'));
    expect(json.SectorDirectory).toBe('sectors');
    expect(json.EthAccounts).toEqual([info.ethAccounts[0]!.toString('t')]);
    expect(existsSync(join(repoPath, 'sectors', 'pre-seal-t01000.json'))).toBe(true);

    const { roots, blockCount } = await importCar(
      new MemoryBlockstore(),
      createReadStream(join(repoPath, 'genesis.car')),
    );
    expect(roots.map(String)).toEqual([info.genesisCid.toString()]);
    expect(blockCount).toBeGreaterThan(10);

    const { wallet } = devnet.node;
    expect(wallet.defaultAddress().equals(info.accounts[0]!)).toBe(true);
    expect(wallet.has(info.worker)).toBe(true);
    expect(wallet.has(info.ethAccounts[0]!)).toBe(true);
    // Two accounts, the worker and the Ethereum account.
    expect(wallet.list()).toHaveLength(4);
  } finally {
    await devnet.stop();
  }

  // The block time is fixed when the devnet is created; a restart asking for another keeps it.
  const again = await startDevnet({ repo: repoPath, mine: false, blockTimeMs: 9000 });
  try {
    expect(again.node.chain!.params.blockDelaySecs).toBe(4n);
    expect(await again.rpc('Version', [], 'none')).toMatchObject({ BlockDelay: 4 });
  } finally {
    await again.stop();
  }

  // A database holding a chain without devnet.json (imported or synced) is not turned into a devnet.
  rmSync(join(repoPath, 'devnet.json'));
  expect(existsSync(join(repoPath, DATABASE_FILE))).toBe(true);
  await expect(startDevnet({ repo: repoPath, mine: false })).rejects.toThrow(
    /already holds a chain that is not a devnet/,
  );
  expect(existsSync(join(repoPath, 'devnet.json'))).toBe(false);
  rmSync(repoPath, { recursive: true, force: true });
}, 120_000);
