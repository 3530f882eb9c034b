/**
 * Three full nodes on 127.0.0.1: a devnet miner and two followers that join with the miner's
 * genesis.car and a bootstrap multiaddr. The first follower joins at genesis and follows the head
 * as it grows; the second starts after the chain has passed 100 epochs and catches up over libp2p
 * with full validation (`ledger sync wait` prints Done!, `ledger sync status` shows Height diff 0);
 * then all three hold the same head tipset. A message pushed to a follower is gossiped, mined by
 * the miner, and its receipt is the same on every node. The CLI's `net listen`, `net peers`,
 * `sync status` and `sync wait` run against the late follower.
 *
 * Epochs are 4 s so the chain keeps up with the wall clock (a proof takes ~3.5 s on 2 cores):
 * `sync wait` is done only when the head is recent, as in Lotus.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CID } from 'multiformats/cid';
import pino from 'pino';
import { importGenesisIntoRepo } from '../../src/cli/genesis-import.js';
import { main } from '../../src/cli/main.js';
import { LedgerNode } from '../../src/node/index.js';
import type { MessageReceipt } from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const TIMEOUT_MS = 20 * 60_000;
const CATCH_UP_FROM = 100;

let miner: Devnet;
/** Joined at genesis and followed the chain as it grew. */
let early: LedgerNode;
/** Started once the chain had passed CATCH_UP_FROM epochs. */
let late: LedgerNode;
const repos: string[] = [];

async function startFollower(): Promise<LedgerNode> {
  const repo = mkdtempSync(join(tmpdir(), 'ledger-follower-'));
  repos.push(repo);
  await importGenesisIntoRepo(repo, join(miner.repoPath, 'genesis.car'));
  return LedgerNode.start({
    repoPath: repo,
    logger: pino({ level: process.env.LEDGER_TEST_LOG ?? 'silent' }),
    overrides: { apiPort: 0 },
    p2p: { bootstrap: miner.node.net!.network.listenAddresses() },
  });
}

/** The receipt of a message from the node's own chain store and executed state, once it is included. */
function receiptOn(node: LedgerNode, cid: CID): Promise<MessageReceipt | undefined> | undefined {
  const { chain, states } = node.chain!;
  const inclusion = chain.findMessageInclusion(cid);
  if (inclusion === undefined) return undefined;
  const tipSet = chain.loadTipSet(inclusion.tipSet);
  const index = chain.tipSetMessages(tipSet).findIndex((message) => message.cid.equals(cid));
  return states.stateOf(tipSet).then(({ receiptsRoot }) => chain.readReceipts(receiptsRoot)[index]);
}

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs the `ledger` CLI in this process against the late follower and returns its stdout. */
async function cli(...args: string[]): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const saved = process.env.LEDGER_API_INFO;
  process.env.LEDGER_API_INFO = `${late.repo.readToken()}:${late.apiAddress}`;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    await main(['node', 'ledger', ...args]);
  } finally {
    process.stdout.write = write;
    if (saved === undefined) delete process.env.LEDGER_API_INFO;
    else process.env.LEDGER_API_INFO = saved;
  }
  return chunks.join('');
}

beforeAll(async () => {
  miner = await startDevnet({ blockTimeMs: 4000, accounts: 2 });
  early = await startFollower();
  await miner.waitForHeight(CATCH_UP_FROM, TIMEOUT_MS);
  late = await startFollower();
}, TIMEOUT_MS);

afterAll(async () => {
  await late?.stop();
  await early?.stop();
  await miner?.stop();
  for (const repo of repos) rmSync(repo, { recursive: true, force: true });
});

test(
  'a follower started after 100+ epochs catches up: sync wait prints Done!, Height diff 0, all three agree on the head',
  async () => {
    expect(early.miners?.miners().length ?? 0).toBe(0);
    expect(late.miners?.miners().length ?? 0).toBe(0);
    const minerChain = miner.node.chain!.chain;
    expect(late.chain!.chain.head().height).toBeLessThan(BigInt(CATCH_UP_FROM));
    // `sync wait` from the moment the late follower starts: it follows the catch-up and ends with Done!
    const wait = await cli('sync', 'wait');
    expect(wait).toMatch(/\nDone!\n$/);
    expect(late.chain!.chain.head().height).toBeGreaterThanOrEqual(BigInt(CATCH_UP_FROM));
    const status = await cli('sync', 'status');
    expect(status).toMatch(/^sync status:\nworker \d+:\n\tBase:\t\[bafy/);
    expect(status).toMatch(/\tHeight diff:\t0\n\tStage: complete\n/);
    const listen = await cli('net', 'listen');
    expect(listen.trim()).toBe(late.net!.network.listenAddresses().join('\n'));
    const peers = await cli('net', 'peers');
    expect(peers).toContain(miner.node.net!.network.peerId);

    // With the miner paused, all three settle on one head tipset.
    await miner.node.miners!.miningLoop().stop();
    try {
      const nodes = [miner.node, early, late];
      await until(
        () => nodes.every((node) => node.chain!.chain.head().key.equals(minerChain.head().key)),
        TIMEOUT_MS,
        'all three nodes on the same head',
      );
      const heads = await Promise.all(nodes.map((node) => node.chain!.states.stateOf(node.chain!.chain.head())));
      expect(new Set(heads.map((state) => state.stateRoot.toString())).size).toBe(1);
      expect(minerChain.head().height).toBeGreaterThanOrEqual(BigInt(CATCH_UP_FROM));
    } finally {
      miner.node.miners!.miningLoop().start();
    }
  },
  TIMEOUT_MS,
);

test(
  'a message pushed to a follower is gossiped, mined by the miner, and its receipt is the same on every node',
  async () => {
    const from = miner.node.chain!.devnet.accounts[0]!;
    const to = miner.node.chain!.devnet.accounts[1]!;
    // The early follower signs with the sender's key (exported from the miner's wallet, as a user would).
    const follower = early;
    const keyInfo = await miner.rpc('WalletExport', [from.toString()]);
    const token = follower.repo.readToken()!;
    const call = async (method: string, params: unknown[]) => {
      const response = await fetch(
        `http://${follower.apiAddress.split('/')[2]}:${follower.apiAddress.split('/')[4]}/rpc/v1`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: `Ledger.${method}`, params }),
        },
      );
      const json = (await response.json()) as { result?: unknown; error?: { message: string } };
      if (json.error !== undefined) throw new Error(json.error.message);
      return json.result;
    };
    await call('WalletImport', [keyInfo]);
    // A node still catching up refuses to assign nonces from a stale head: wait as `sync wait` would.
    await until(() => follower.net!.sync.isSynced(), TIMEOUT_MS, 'the follower to be synced');
    const signed = (await call('MpoolPushMessage', [
      {
        To: to.toString(),
        From: from.toString(),
        Value: '1000',
        Method: 0,
        Params: null,
        Nonce: 0,
        GasLimit: 0,
        GasFeeCap: '0',
        GasPremium: '0',
        Version: 0,
      },
      null,
    ])) as { CID: { '/': string } };
    const cid = CID.parse(signed.CID['/']);
    await until(() => receiptOn(miner.node, cid) !== undefined, TIMEOUT_MS, 'the miner to include the message');
    for (const node of [early, late]) {
      await until(() => receiptOn(node, cid) !== undefined, TIMEOUT_MS, 'every follower to see the inclusion');
    }
    const [onMiner, onEarly, onLate] = await Promise.all([miner.node, early, late].map((node) => receiptOn(node, cid)));
    expect(onMiner?.exitCode).toBe(0n);
    expect(onEarly).toEqual(onMiner);
    expect(onLate).toEqual(onMiner);
  },
  TIMEOUT_MS,
);
