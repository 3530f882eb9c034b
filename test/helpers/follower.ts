/**
 * A second full node that joins a test devnet from its genesis.car and syncs over libp2p with full
 * validation, for end-to-end tests that check a chain replays to the same state elsewhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { importGenesisIntoRepo } from '../../src/cli/genesis-import.js';
import { LedgerNode } from '../../src/node/index.js';
import type { TipSet } from '../../src/types/index.js';
import type { Devnet } from './devnet.js';

/**
 * Starts a follower of `devnet`, waits until it holds the tipset that is the devnet's head now,
 * checks it is the same tipset and that the follower computed the same state root for it, then
 * runs `inspect` on the follower and that tipset. The follower is stopped and its repo removed
 * before this returns.
 */
export async function withSyncedFollower<T>(
  devnet: Devnet,
  timeoutMs: number,
  inspect: (follower: LedgerNode, tipSet: TipSet) => Promise<T>,
): Promise<T> {
  const target = devnet.node.chain!.chain.head();
  const repo = mkdtempSync(join(tmpdir(), 'ledger-follower-'));
  await importGenesisIntoRepo(repo, join(devnet.repoPath, 'genesis.car'));
  const follower = await LedgerNode.start({
    repoPath: repo,
    logger: pino({ level: process.env.LEDGER_TEST_LOG ?? 'silent' }),
    overrides: { apiPort: 0 },
    p2p: { bootstrap: devnet.node.net!.network.listenAddresses() },
  });
  try {
    const followed = follower.chain!.chain;
    const deadline = Date.now() + timeoutMs;
    while (followed.head().height < target.height) {
      if (Date.now() > deadline) {
        throw new Error(`the follower reached only ${followed.head().height} of ${target.height}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const same = followed.getTipSetByHeight(target.height, followed.head(), false);
    if (!same.key.equals(target.key)) throw new Error(`the follower holds another tipset at ${target.height}`);
    const ours = (await devnet.node.chain!.states.stateOf(target)).stateRoot;
    const theirs = (await follower.chain!.states.stateOf(same)).stateRoot;
    if (!ours.equals(theirs)) throw new Error(`state roots differ at ${target.height}: ${ours} vs ${theirs}`);
    return await inspect(follower, same);
  } finally {
    await follower.stop();
    rmSync(repo, { recursive: true, force: true });
  }
}
