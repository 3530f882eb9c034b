/**
 * The pool's limits and persistence end to end on a real devnet (mining off, so nothing leaves the
 * pool by inclusion): flooding past the high-water mark prunes the lowest premiums first and
 * never a local message, and local pending messages survive a restart of the node.
 *
 * Messages pushed over RPC are local, as in Lotus; foreign ones only arrive by gossip, so the
 * flood enters through the pool's network admission (`pool.add`, what the gossip handler calls)
 * in this process, and everything is observed through HTTP.
 */
import { rmSync } from 'node:fs';
import { RpcClient } from '../../src/rpc/index.js';
import {
  type CidJson,
  FILECOIN_PRECISION,
  type MessageJson,
  type SignedMessageJson,
  signedMessageFromLotusJson,
} from '../../src/types/index.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const PROOF_TIMEOUT_MS = 10 * 60_000;
const FIL = FILECOIN_PRECISION;
const GAS_LIMIT = 2_000_000;

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let devnet: Devnet;
let accounts: string[];
let baseFee: bigint;

beforeAll(async () => {
  devnet = await startDevnet({ mine: false, accounts: 40, keepRepo: true });
  accounts = devnet.node.chain!.devnet.accounts.map((a) => a.toString('t'));
  baseFee = BigInt((await devnet.rpc<Json>('ChainHead', [])).Blocks[0].ParentBaseFee);
}, PROOF_TIMEOUT_MS);
afterAll(async () => {
  // The restart test hands the repo over explicitly, so the helper leaves it: remove it here.
  const repo = devnet?.repoPath;
  await devnet?.stop();
  if (repo !== undefined) rmSync(repo, { recursive: true, force: true });
});

function message(from: string, nonce: number, premium: bigint, feeCap = baseFee * 3n): MessageJson {
  return {
    Version: 0,
    To: accounts[0] as string,
    From: from,
    Nonce: nonce,
    Value: FIL.toString(),
    GasLimit: GAS_LIMIT,
    GasFeeCap: feeCap.toString(),
    GasPremium: premium.toString(),
    Method: 0,
    Params: null,
  } as MessageJson;
}

function sign(json: MessageJson): Promise<SignedMessageJson> {
  return devnet.rpc<SignedMessageJson>('WalletSignMessage', [json.From, json], 'sign');
}

const cidOf = (signed: SignedMessageJson) => (signed as Json).CID['/'] as string;

async function pendingCids(): Promise<string[]> {
  return (await devnet.rpc<SignedMessageJson[]>('MpoolPending', [null])).map(cidOf);
}

/** The pool prunes off the admission path (on the next turn of the event loop). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('flooding past SizeLimitHigh prunes the lowest premiums first, keeps local messages, stays bounded', async () => {
  const config = await devnet.rpc<Json>('MpoolGetConfig', []);
  await devnet.rpc('MpoolSetConfig', [{ ...config, SizeLimitHigh: 12, SizeLimitLow: 6, PruneCooldown: 0 }], 'admin');
  const pool = devnet.node.mpool!.pool;
  try {
    // Three local messages with premiums below every foreign one: protected all the same.
    const local = accounts[1] as string;
    const localCids: string[] = [];
    for (let nonce = 0; nonce < 3; nonce++) {
      const signed = await sign(message(local, nonce, 100n + BigInt(nonce)));
      localCids.push(((await devnet.rpc<CidJson>('MpoolPush', [signed])) as Json)['/']);
    }
    // Ten foreign messages, one per sender, in shuffled premium order: the 13th message overflows.
    const premiums = [7, 2, 9, 4, 10, 1, 6, 3, 8, 5].map((p) => BigInt(p) * 10_000n);
    const foreign: { cid: string; premium: bigint }[] = [];
    for (const [i, premium] of premiums.entries()) {
      const signed = await sign(message(accounts[2 + i] as string, 0, premium));
      await pool.add(signedMessageFromLotusJson(signed));
      foreign.push({ cid: cidOf(signed), premium });
    }
    await settle();
    const left = await pendingCids();
    expect(left.length).toBe(6);
    for (const cid of localCids) expect(left).toContain(cid);
    const kept = foreign.filter((m) => left.includes(m.cid)).map((m) => m.premium);
    expect(kept.sort((a, b) => Number(a - b))).toEqual([80_000n, 90_000n, 100_000n]);

    // A sustained flood never lets the pool grow past the high-water mark for long.
    let peak = 0;
    for (let i = 0; i < 26; i++) {
      const signed = await sign(message(accounts[12 + i] as string, 0, BigInt(1 + ((i * 7919) % 97)) * 1_000n));
      await pool.add(signedMessageFromLotusJson(signed));
      await settle();
      peak = Math.max(peak, (await pendingCids()).length);
    }
    expect(peak).toBeLessThanOrEqual(12);
    const after = await pendingCids();
    for (const cid of localCids) expect(after).toContain(cid);
  } finally {
    await devnet.rpc('MpoolSetConfig', [config], 'admin');
  }
});

test(
  'local pending messages are still pending after a restart',
  async () => {
    const from = accounts[39] as string;
    // A fee cap far below the base fee: it would stay pending even with mining on.
    const stuck = await sign(message(from, 0, 1_000n, baseFee / 1000n));
    const cid = ((await devnet.rpc<CidJson>('MpoolPush', [stuck])) as Json)['/'] as string;
    const nonceBefore = await devnet.rpc<number>('MpoolGetNonce', [from]);
    expect(nonceBefore).toBe(1);
    const repo = devnet.repoPath;
    await devnet.stop();
    devnet = await startDevnet({ repo, mine: false });
    const restarted = new RpcClient({ url: devnet.url });
    const pending = (await restarted.request('Filecoin.MpoolPending', [null])) as SignedMessageJson[];
    expect(pending.map(cidOf)).toContain(cid);
    expect(await restarted.request('Filecoin.MpoolGetNonce', [from])).toBe(1);
    expect(await restarted.request('Filecoin.StateSearchMsg', [null, { '/': cid }, -1, true])).toBeNull();
  },
  PROOF_TIMEOUT_MS,
);
