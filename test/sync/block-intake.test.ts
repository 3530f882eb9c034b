/**
 * One way into the chain (issue 19): the mining loop, gossip, sync and SyncSubmitBlock all enter
 * through the block intake. On a real two-miner genesis (real elections, winning PoSt, BLS
 * signatures, Expected Consensus validation, SQLite): a block mined by the node's mining loop in the
 * round another miner's block on the same parents arrived by gossip joins it in one tipset of both
 * (filecoin-project/lotus `chain/store/store.go` `expandTipset`), with its slash-filter record; a
 * block in the bad-block cache is refused by SyncSubmitBlock, the mining path and the sync path
 * with nothing written; an invalid block lands in the bad-block cache whichever path brought it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SlashFilter } from '../../src/consensus/index.js';
import { attemptElection, createBlock, type ElectionWin, winningBlockTemplate } from '../../src/miner/index.js';
import { MiningLoop } from '../../src/miner/mining-loop.js';
import {
  generateJwtSecret,
  PERMISSIONS,
  type RpcContext,
  RpcServer,
  startingNodeInfo,
  TokenAuthority,
} from '../../src/rpc/index.js';
import {
  type BlockMsg,
  blockCid,
  blockMsgToLotusJson,
  type FullBlock,
  messageCid,
  setDefaultNetwork,
  signedMessageCid,
  type TipSet,
  TipSetKey,
} from '../../src/types/index.js';
import { Keystore, Wallet } from '../../src/wallet/index.js';
import { PARAMS } from '../helpers/genesis.js';
import { fullBlock, MINER, MINER2, type MiningChain, miningChain, sign } from '../helpers/mining-chain.js';
import { mine, type SyncNode, SyncNodes } from '../helpers/sync-nodes.js';
import { call } from '../rpc/harness.js';

const TIMEOUT_MS = 10 * 60_000;
const logger = pino({ level: 'silent' });

let fixture: MiningChain | undefined;
let nodes: SyncNodes | undefined;
let node: SyncNode;
let server: RpcServer | undefined;
let keystoreDir: string | undefined;
let writeToken: string;
let adminToken: string;

beforeAll(async () => {
  fixture = await miningChain({ miners: 2 });
  nodes = new SyncNodes(fixture);
  node = await nodes.node('intake');
  keystoreDir = mkdtempSync(join(tmpdir(), 'ledger-intake-'));
  const tokens = new TokenAuthority(generateJwtSecret());
  const context: RpcContext = {
    node: startingNodeInfo('test', Number(PARAMS.blockDelaySecs)),
    wallet: new Wallet(new Keystore(keystoreDir)),
    tokens,
    chain: { store: node.chain, states: node.states, params: PARAMS, networkName: 'ledger-test' },
    net: { network: node.network, sync: node.sync },
  };
  server = await RpcServer.start({ context, logger, host: '127.0.0.1', port: 0 });
  writeToken = await tokens.create(['read', 'write']);
  adminToken = await tokens.create([...PERMISSIONS]);
}, TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await nodes?.close();
  await fixture?.remove();
  if (keystoreDir !== undefined) rmSync(keystoreDir, { recursive: true, force: true });
  setDefaultNetwork('f');
});

function rpc(method: string, params: unknown[], token = writeToken) {
  return call(`http://127.0.0.1:${server!.port}/rpc/v1`, `Ledger.${method}`, params, {
    authorization: `Bearer ${token}`,
  });
}

const msgOf = (block: FullBlock): BlockMsg => ({
  header: block.header,
  blsMessages: block.blsMessages.map(messageCid),
  secpkMessages: block.secpkMessages.map(signedMessageCid),
});

/** What the mining and sync paths leave when they refuse a block: no header, no tipset, no record. */
function expectNothingWritten(block: FullBlock, head: TipSet): void {
  const cid = blockCid(block.header);
  expect(node.chain.hasBlock(cid)).toBe(false);
  expect(node.db.chainIndex.getTipSet(TipSetKey.fromCids([cid]))).toBeUndefined();
  expect(node.db.chainIndex.minedBlockAt(block.header.miner.bytes, block.header.height)).toBeUndefined();
  expect(node.chain.head().key.equals(head.key)).toBe(true);
}

test(
  "a block the mining loop mines in the round another miner's block on the same parents arrived joins it: head = both",
  async () => {
    const ctx = { ...fixture!.ctx, chain: node.chain, states: node.states };
    const genesis = node.chain.genesis;
    // The first round on genesis that both miners win (each has half the power).
    let round = 0n;
    let wins: [ElectionWin, ElectionWin] | undefined;
    while (wins === undefined && round < 20n) {
      round++;
      const [a, b] = await Promise.all([MINER, MINER2].map((m) => attemptElection(ctx, m, genesis, round, sign)));
      if (a && b) wins = [a, b];
    }
    expect(wins).toBeDefined();
    const [winA, winB] = wins!;
    const templateOf = (miner: typeof MINER, win: ElectionWin) =>
      winningBlockTemplate({ miner, base: genesis, round, win, messages: [], blockDelaySecs: PARAMS.blockDelaySecs });
    const received = fullBlock(await createBlock(ctx, templateOf(MINER, winA), sign), []);

    // The loop's clock: half a second before the round's timestamp, so the round is due and the
    // block is published at once (the chain's genesis is in the past).
    const roundTimeMs = Number(genesis.timestamp + round * PARAMS.blockDelaySecs) * 1000;
    const offset = Date.now() - (roundTimeMs - 500);
    const slashFilter = new SlashFilter(node.db.chainIndex);
    let minedBlock: FullBlock | undefined;
    const mined = new Promise<void>((resolve, reject) => {
      const loop: MiningLoop = new MiningLoop({
        miner: MINER2,
        chain: node.chain,
        blockDelaySecs: PARAMS.blockDelaySecs,
        propagationDelaySecs: PARAMS.propagationDelaySecs,
        clock: () => Date.now() - offset,
        // While this miner proves, the other miner's block of the same round arrives by gossip.
        elect: async (base, electedRound) => {
          // Any other round means the loop dropped its block of this one.
          if (!base.key.equals(genesis.key) || electedRound !== round) {
            void loop.stop();
            reject(
              new Error(`the loop went on to round ${electedRound} on height ${base.height}: its block was dropped`),
            );
            return null;
          }
          await node.sync.submitBlock(received, 'gossip');
          return winB;
        },
        createBlock: (template) => createBlock(ctx, template, sign),
        intake: node.sync.intake,
        slashFilter,
        logger,
        onBlock: (block) => {
          minedBlock = block;
          void loop.stop().then(resolve);
        },
      });
      loop.start();
    });
    await mined;
    await node.chain.settled();

    const head = node.chain.head();
    const both = [blockCid(received.header), blockCid(minedBlock!.header)].map(String).sort();
    expect(head.height).toBe(round);
    expect(head.cids.map(String).sort()).toEqual(both);
    expect(head.parents.equals(genesis.key)).toBe(true);
    // The received block's own tipset stays known (peers announce it); the mined block's record is kept.
    expect(node.db.chainIndex.getTipSet(TipSetKey.fromCids([blockCid(received.header)]))).toBeDefined();
    expect(node.db.chainIndex.minedBlockAt(MINER2.bytes, round)?.block.equals(blockCid(minedBlock!.header))).toBe(true);
  },
  TIMEOUT_MS,
);

test(
  'a block in the bad-block cache is refused by SyncSubmitBlock, the mining path and the sync path; nothing is written',
  async () => {
    const base = node.chain.head();
    const { block } = await mine(fixture!, node, base, [], MINER);
    const cid = blockCid(block.header);
    expect((await rpc('SyncMarkBad', [{ '/': cid.toString() }], adminToken)).error).toBeUndefined();

    const submitted = await rpc('SyncSubmitBlock', [blockMsgToLotusJson(msgOf(block))]);
    expect(submitted.error?.message).toMatch(new RegExp(`block ${cid} is marked bad: manually marked bad`));
    expectNothingWritten(block, base);

    const slashFilter = new SlashFilter(node.db.chainIndex);
    await expect(
      node.sync.intake.submit(block, 'mined', {
        alongside: () => slashFilter.minedBlock(block.header, base.height),
      }),
    ).rejects.toThrow(/is marked bad/);
    expectNothingWritten(block, base);

    await expect(node.sync.intake.submitTipSet([block], 'sync')).rejects.toThrow(/is marked bad/);
    expectNothingWritten(block, base);

    // Unmarked, the same block goes in.
    expect((await rpc('SyncUnmarkBad', [{ '/': cid.toString() }], adminToken)).error).toBeUndefined();
    const tipSet = await node.sync.intake.submit(block, 'mined');
    expect(tipSet.cids.map(String)).toContain(cid.toString());
    expect(node.chain.head().key.equals(tipSet.key)).toBe(true);
  },
  TIMEOUT_MS,
);

test(
  'a block failing validation lands in the bad-block cache, through SyncSubmitBlock and through the mining path',
  async () => {
    const base = node.chain.head();
    const { block } = await mine(fixture!, node, base, [], MINER);
    // A corrupted signature: it does not verify with the worker key.
    const forge = (salt: number): FullBlock => {
      const data = new Uint8Array(block.header.blockSig!.data);
      data[data.length - 1] = (data[data.length - 1]! + salt) % 256;
      return { ...block, header: { ...block.header, blockSig: { type: block.header.blockSig!.type, data } } };
    };
    const viaRpc = forge(1);
    const viaRpcCid = blockCid(viaRpc.header);
    const submitted = await rpc('SyncSubmitBlock', [blockMsgToLotusJson(msgOf(viaRpc))]);
    expect(submitted.error?.message).toMatch(/is invalid/);
    const reason = await rpc('SyncCheckBad', [{ '/': viaRpcCid.toString() }]);
    expect(reason.result).toMatch(/is invalid/);
    expectNothingWritten(viaRpc, base);

    const viaMiner = forge(2);
    await expect(node.sync.intake.submit(viaMiner, 'mined')).rejects.toThrow(/is invalid/);
    expect(node.sync.badBlocks.describe(blockCid(viaMiner.header))).toMatch(/is invalid/);
    expectNothingWritten(viaMiner, base);
  },
  TIMEOUT_MS,
);
