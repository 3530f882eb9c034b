/**
 * A devnet miner and a follower on 127.0.0.1, each a full node: the follower joins with the
 * miner's genesis.car (and devnet.json) and a bootstrap multiaddr, catches up over libp2p with full
 * validation, follows new heads from gossip, and a message pushed to the follower is gossiped to
 * the miner, mined, and its receipt is seen on both. The CLI's `net listen`, `sync status` and
 * `sync wait` run against the follower.
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

const TIMEOUT_MS = 10 * 60_000;
const CATCH_UP_FROM = 6;

let miner: Devnet;
let follower: LedgerNode;
let followerRepo: string;

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

/** Runs the `ledger` CLI in this process against the follower and returns its stdout. */
async function cli(...args: string[]): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const saved = process.env.LEDGER_API_INFO;
  process.env.LEDGER_API_INFO = `${follower.repo.readToken()}:${follower.apiAddress}`;
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
  miner = await startDevnet({ blockTimeMs: 2000, accounts: 2 });
  await miner.waitForHeight(CATCH_UP_FROM, TIMEOUT_MS);
  followerRepo = mkdtempSync(join(tmpdir(), 'ledger-follower-'));
  await importGenesisIntoRepo(followerRepo, join(miner.repoPath, 'genesis.car'));
  const bootstrap = miner.node.net!.network.listenAddresses();
  follower = await LedgerNode.start({
    repoPath: followerRepo,
    logger: pino({ level: process.env.LEDGER_TEST_LOG ?? 'silent' }),
    overrides: { apiPort: 0 },
    p2p: { bootstrap },
  });
}, TIMEOUT_MS);

afterAll(async () => {
  await follower?.stop();
  await miner?.stop();
  if (followerRepo !== undefined) rmSync(followerRepo, { recursive: true, force: true });
});

test(
  'the follower catches up from genesis, reports Height diff 0, and sync wait prints Done!',
  async () => {
    expect(follower.mining?.loop.running ?? false).toBe(false);
    const minerChain = miner.node.chain!.chain;
    const followerChain = follower.chain!.chain;
    await until(() => followerChain.head().height >= BigInt(CATCH_UP_FROM), TIMEOUT_MS, 'catch-up');
    await until(
      () =>
        followerChain.head().key.equals(minerChain.head().key) ||
        followerChain.head().height > minerChain.head().height - 2n,
      TIMEOUT_MS,
      'the follower to be level with the miner',
    );
    const wait = await cli('sync', 'wait');
    expect(wait).toMatch(/\nDone!\n$/);
    const status = await cli('sync', 'status');
    expect(status).toMatch(/^sync status:\nworker \d+:\n\tBase:\t\[bafy/);
    expect(status).toMatch(/\tHeight diff:\t0\n\tStage: complete\n/);
    const listen = await cli('net', 'listen');
    expect(listen.trim()).toBe(follower.net!.network.listenAddresses().join('\n'));
    const peers = await cli('net', 'peers');
    expect(peers).toContain(miner.node.net!.network.peerId);
    // Both nodes agree on the chain: the follower's head is on the miner's chain.
    const head = followerChain.head();
    expect(minerChain.getTipSetByHeight(head.height, minerChain.head(), true).key.equals(head.key)).toBe(true);
  },
  TIMEOUT_MS,
);

test(
  'a message pushed to the follower is gossiped, mined by the miner, and its receipt is on both nodes',
  async () => {
    const from = miner.node.chain!.devnet.accounts[0]!;
    const to = miner.node.chain!.devnet.accounts[1]!;
    // The follower signs with the sender's key (exported from the miner's wallet, as a user would).
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
    await until(() => receiptOn(follower, cid) !== undefined, TIMEOUT_MS, 'the follower to see the inclusion');
    const [onMiner, onFollower] = [await receiptOn(miner.node, cid), await receiptOn(follower, cid)];
    expect(onMiner?.exitCode).toBe(0n);
    expect(onFollower).toEqual(onMiner);
  },
  TIMEOUT_MS,
);
