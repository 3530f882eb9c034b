/**
 * Snapshots end to end: a real devnet (real proofs and signatures) exports a full and a minimal
 * snapshot at height H over JSON-RPC; each is imported into a fresh repo that knows the devnet
 * (its devnet.json, as a Lotus node knows its genesis) the way `ledger daemon --import-chain` /
 * `--import-snapshot` does; the imported node serves the same head, genesis and state answers. The
 * minimal one refuses older state queries naming its oldest epoch with state, and a truncated
 * snapshot fails the import and leaves the repo as it was. A node started from the imported minimal
 * snapshot then joins the devnet over libp2p on 127.0.0.1 and syncs the blocks mined since the export
 * onto the imported head, ending on the devnet's tipset with the same state.
 */

import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import pino from 'pino';
import { buildProgram } from '../../src/cli/main.js';
import { importSnapshotIntoRepo } from '../../src/cli/snapshot-import.js';
import { DATABASE_FILE } from '../../src/node/chain-services.js';
import { DEVNET_FILE } from '../../src/node/devnet.js';
import { LedgerNode } from '../../src/node/index.js';
import { RpcClient, rpcUrl } from '../../src/rpc/index.js';
import type { TipSetJson } from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const BLOCK_TIME_MS = Number(process.env.LEDGER_E2E_BLOCK_TIME_MS ?? 4000);
const H = 5;
const RECENT = 2;
const TIMEOUT_MS = 15 * 60_000;

let source: Devnet | undefined;
let imported: Devnet | undefined;
let follower: LedgerNode | undefined;
const dirs: string[] = [];
/** Left by the first test for the second: the minimal snapshot of epoch H and that tipset. */
let exported: { minimalPath: string; atH: TipSetJson } | undefined;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await follower?.stop();
  await imported?.stop();
  await source?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test(
  `export at height ${H}, import full and minimal into fresh repos: same head, state and answers`,
  async () => {
    source = await startDevnet({ blockTimeMs: BLOCK_TIME_MS });
    await source.waitForHeight(H, TIMEOUT_MS - 180_000);
    const atH = await source.rpc<TipSetJson>('ChainGetTipSetByHeight', [H, null], 'none');
    const tsk = atH.Cids;
    const out = tempDir('ledger-snapshot-e2e-');
    const fullPath = join(out, 'full.car');
    const minimalPath = join(out, 'minimal.car');
    const full = await source.rpc<{ Full: boolean; Height: number }>('ChainExportToFile', [fullPath, null, false, tsk]);
    expect(full).toMatchObject({ Full: true, Height: atH.Height });
    const minimal = await source.rpc<{ Full: boolean; OldestStateEpoch: number }>('ChainExportToFile', [
      minimalPath,
      RECENT,
      true,
      tsk,
    ]);
    expect(minimal.Full).toBe(false);
    expect(statSync(minimalPath).size).toBeLessThan(statSync(fullPath).size);
    exported = { minimalPath, atH };
    // The CLI: `ledger chain export --tipset <height> --recent-stateroots 2 <file>` through the node.
    const cliPath = join(out, 'cli.car');
    const printed: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    const previous = process.env.LEDGER_API_INFO;
    process.env.LEDGER_API_INFO = `${source.token}:${source.node.apiAddress}`;
    try {
      await buildProgram().parseAsync(
        ['chain', 'export', '--tipset', String(H), '--recent-stateroots', String(RECENT), cliPath],
        { from: 'user' },
      );
    } finally {
      write.mockRestore();
      if (previous === undefined) delete process.env.LEDGER_API_INFO;
      else process.env.LEDGER_API_INFO = previous;
    }
    expect(printed.join('')).toMatch(
      new RegExp(`cli\\.car: minimal snapshot of epoch ${atH.Height} .*state from epoch`),
    );
    expect(statSync(cliPath).size).toBeGreaterThanOrEqual(statSync(minimalPath).size);
    // Export needs admin: a read token is refused.
    await expect(source.rpc('ChainExportToFile', [join(out, 'nope.car'), null, false, tsk], 'read')).rejects.toThrow(
      /missing permission/,
    );

    const chain = source.node.chain!;
    const addresses = [
      chain.devnet.miner.toString(),
      chain.devnet.worker.toString(),
      chain.devnet.accounts[0]!.toString(),
    ];
    const wantActors = await Promise.all(addresses.map((a) => source!.rpc('StateGetActor', [a, tsk], 'none')));
    const genesis = await source.rpc('ChainGetGenesis', [], 'none');
    const atOne = await source.rpc<TipSetJson>('ChainGetTipSetByHeight', [1, tsk], 'none');
    const wantOldActor = await source.rpc('StateGetActor', [addresses[0], atOne.Cids], 'none');

    for (const [file, mode] of [
      [fullPath, 'chain'],
      [minimalPath, 'snapshot'],
    ] as const) {
      const repo = tempDir('ledger-imported-');
      copyFileSync(join(source.repoPath, DEVNET_FILE), join(repo, DEVNET_FILE));
      const summary = await importSnapshotIntoRepo({ repoPath: repo, file, mode });
      expect(summary.head.height).toBe(BigInt(atH.Height));
      imported = await startDevnet({ blockTimeMs: BLOCK_TIME_MS, repo, mine: false });
      const head = await imported.rpc<TipSetJson>('ChainHead', [], 'none');
      expect(head.Cids).toEqual(tsk);
      expect(head.Blocks.map((b) => b.ParentStateRoot)).toEqual(atH.Blocks.map((b) => b.ParentStateRoot));
      expect(await imported.rpc('ChainGetGenesis', [], 'none')).toEqual(genesis);
      for (const [i, address] of addresses.entries()) {
        expect(await imported.rpc('StateGetActor', [address, null], 'none')).toEqual(wantActors[i]);
        expect(await imported.rpc('WalletBalance', [address], 'none')).toBe(
          (wantActors[i] as { Balance: string }).Balance,
        );
      }
      if (mode === 'chain') {
        expect(await imported.rpc('StateGetActor', [addresses[0], atOne.Cids], 'none')).toEqual(wantOldActor);
      } else {
        // Below the window (epoch 1 reads the genesis state, which every snapshot holds).
        const old = await imported.rpc<TipSetJson>(
          'ChainGetTipSetByHeight',
          [minimal.OldestStateEpoch - 1, null],
          'none',
        );
        expect(old.Height).toBeGreaterThanOrEqual(2);
        await expect(imported.rpc('StateGetActor', [addresses[0], old.Cids], 'none')).rejects.toThrow(
          new RegExp(
            `state for epoch ${old.Height} is not available: .*holds state from epoch ${minimal.OldestStateEpoch} on`,
          ),
        );
      }
      await imported.stop();
      imported = undefined;
    }

    // A truncated snapshot: a clear error, and the repo keeps no trace of the attempt.
    const repo = tempDir('ledger-imported-');
    copyFileSync(join(source.repoPath, DEVNET_FILE), join(repo, DEVNET_FILE));
    const truncated = join(out, 'truncated.car');
    const bytes = readFileSync(fullPath);
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    await expect(importSnapshotIntoRepo({ repoPath: repo, file: truncated, mode: 'snapshot' })).rejects.toThrow(
      /corrupt or truncated after \d+ blocks/,
    );
    expect(existsSync(join(repo, DATABASE_FILE))).toBe(false);
  },
  TIMEOUT_MS,
);

test(
  'a node started from the imported snapshot joins the devnet over libp2p and syncs the blocks mined since',
  async () => {
    if (source === undefined || exported === undefined) throw new Error('the export test did not run');
    const { minimalPath, atH } = exported;
    // Blocks mined after the export but before the follower joins: it fetches them (chain exchange)
    // onto the imported head, then follows the blocks mined after it joined (gossip).
    await source.waitForHeight(Number(atH.Height) + 2, TIMEOUT_MS / 2);
    const repo = tempDir('ledger-imported-sync-');
    copyFileSync(join(source.repoPath, DEVNET_FILE), join(repo, DEVNET_FILE));
    await importSnapshotIntoRepo({ repoPath: repo, file: minimalPath, mode: 'snapshot' });
    follower = await LedgerNode.start({
      repoPath: repo,
      logger: pino({ level: process.env.LEDGER_TEST_LOG ?? 'silent' }),
      overrides: { apiPort: 0 },
      p2p: { bootstrap: source.node.net!.network.listenAddresses() },
    });
    const followerChain = follower.chain!.chain;
    const sourceChain = source.node.chain!.chain;
    // It follows (no worker key, no mining); the devnet has mined on since the export.
    expect(follower.miners?.miners().length ?? 0).toBe(0);
    const startedAt = sourceChain.head().height;
    // A block the devnet mines after the follower joined, reached by the follower through sync.
    const target = startedAt + 1n;
    const deadline = Date.now() + TIMEOUT_MS / 2;
    while (followerChain.head().height < target || sourceChain.head().height < target) {
      if (Date.now() > deadline) {
        throw new Error(
          `the imported node did not reach height ${target} (its head ${followerChain.head().height}, the devnet's ${sourceChain.head().height})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const head = followerChain.head();
    expect(head.height).toBeGreaterThan(BigInt(atH.Height));
    // Same tipset (same block CIDs) at the follower's head height on both nodes, and the same state there.
    const onSource = sourceChain.getTipSetByHeight(head.height, sourceChain.head(), true);
    expect(head.key.cids.map(String)).toEqual(onSource.key.cids.map(String));
    const theirs = await source.rpc<TipSetJson>('ChainGetTipSetByHeight', [Number(head.height), null], 'none');
    const token = follower.repo.readToken()!;
    const client = new RpcClient({ url: rpcUrl(follower.apiAddress, 1), token });
    const ours = (await client.request('Ledger.ChainGetTipSetByHeight', [Number(head.height), null])) as TipSetJson;
    expect(ours).toEqual(theirs);
    // Its chain runs through the snapshot's head: it extended the imported chain, not another.
    expect(await client.request('Ledger.ChainGetTipSetByHeight', [atH.Height, ours.Cids])).toMatchObject({
      Cids: atH.Cids,
    });
    const miner = source.node.chain!.devnet.miner.toString();
    expect(await client.request('Ledger.StateGetActor', [miner, ours.Cids])).toEqual(
      await source.rpc('StateGetActor', [miner, ours.Cids], 'none'),
    );
  },
  TIMEOUT_MS,
);
