/**
 * The sealing chain API over the node's in-process services, on a real chain: genesis miner t01000
 * with two pre-sealed sectors, the real message pool and signer, blocks mined as the miner mines them.
 */
import { MessageSearch } from '../../../src/chain/message-search.js';
import { blake2b256, DomainSeparationTag, drawRandomnessFromDigest } from '../../../src/crypto/index.js';
import { nodeSealingChainApi, preCommitMessage, type SealingChainApi } from '../../../src/miner/sealing/index.js';
import { GasEstimator, MessagePool, MessageSigner, mpoolChainOf } from '../../../src/mpool/index.js';
import { StateTree } from '../../../src/state/index.js';
import { encodeAddress, messageSigningBytes } from '../../../src/types/index.js';
import { FIL, PARAMS } from '../../helpers/genesis.js';
import { bob, MINER, type MiningChain, mineBlock, miningChain, sign, worker } from '../../helpers/mining-chain.js';

const SETUP_TIMEOUT_MS = 10 * 60_000;
const MINING_TIMEOUT_MS = 3 * 60_000;

let mc: MiningChain;
let pool: MessagePool;
let api: SealingChainApi;

beforeAll(async () => {
  mc = await miningChain();
  const chain = mpoolChainOf(mc.chain, mc.states);
  pool = await MessagePool.open({
    chain,
    params: PARAMS,
    store: mc.db.mpool,
    transaction: (fn) => mc.db.transaction(fn),
    republishTimer: false,
  });
  const signer = new MessageSigner({
    pool,
    gas: new GasEstimator({ chain, pool }),
    store: mc.db.mpool,
    sign: async (address, message) => ({ message, signature: await sign(address, messageSigningBytes(message)) }),
  });
  api = nodeSealingChainApi({
    chain: mc.chain,
    params: PARAMS,
    signer,
    search: new MessageSearch({ chain: mc.chain }),
  });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await pool?.close();
  await mc?.remove();
});

it('reads the miner, its allocated sectors, pre-commits and the deposit and pledge estimates at the head', async () => {
  const info = await api.stateMinerInfo(MINER);
  expect(info.id.equals(MINER)).toBe(true);
  // Lotus's MinerInfo names the worker by its ID address.
  const tree = StateTree.load(mc.chain.blockstore, mc.chain.head().parentStateRoot);
  expect(info.worker.id()).toBe(tree.lookupId(worker.address));
  expect(info.sectorSize).toBe(2048n);
  expect([...(await api.stateMinerAllocated(MINER)).values()]).toEqual([0n, 1n]);
  expect(await api.stateSectorPreCommitInfo(MINER, 2n)).toBeNull();
  const { info: preCommit } = preCommitMessage({
    miner: info,
    sectorNumber: 2n,
    sealProof: 5,
    commR: new Uint8Array(32).fill(1),
    ticketEpoch: 0n,
    expiration: 600_000n,
  });
  expect(await api.stateMinerPreCommitDepositForPower(MINER, preCommit)).toBeGreaterThan(0n);
  expect(await api.stateMinerInitialPledgeForSector(518_400n, 2048n, 0n)).toBeGreaterThan(0n);
  await expect(api.stateMinerInfo(bob.address)).rejects.toThrow();
});

it('draws seal randomness from the min ticket at the epoch, with the given entropy', async () => {
  const genesis = mc.chain.head();
  const entropy = encodeAddress(MINER);
  const ticket = await api.stateGetRandomnessFromTickets(DomainSeparationTag.SealRandomness, 0n, entropy);
  const expected = drawRandomnessFromDigest(
    blake2b256(genesis.minTicketBlock.ticket!.vrfProof),
    DomainSeparationTag.SealRandomness,
    0n,
    entropy,
  );
  expect(ticket).toEqual(expected);
  await expect(api.stateGetRandomnessFromTickets(DomainSeparationTag.SealRandomness, 5n, entropy)).rejects.toThrow(
    /future/,
  );
});

it(
  'pushes a message from the worker once per UUID, and reports its receipt once it has executed',
  async () => {
    const heads: bigint[] = [];
    const unsubscribe = api.chainNotify((head) => heads.push(head.height));
    const transfer = { from: worker.address, to: bob.address, method: 0n, value: FIL, params: new Uint8Array(0) };
    const uuid = '0b7e7c8a-5d7e-4a8f-9d4b-1c2d3e4f5a6b';
    const cid = await api.mpoolPushMessage(transfer, uuid);
    expect((await api.mpoolPushMessage(transfer, uuid)).equals(cid)).toBe(true);
    expect(pool.pending()).toHaveLength(1);

    const waited = api.stateWaitMsg(cid, 1n, new AbortController().signal);
    // Included in the first block, executed in the second's tipset, one tipset of confidence on top.
    const heights: bigint[] = [];
    let base = mc.chain.head();
    for (let i = 0; i < 3; i++) {
      const { block } = await mineBlock(mc, base, i === 0 ? pool.pending() : []);
      mc.chain.addBlocks([block]);
      base = mc.chain.head();
      heights.push(base.height);
    }
    const lookup = await waited;
    expect(lookup.exitCode).toBe(0n);
    expect(lookup.height).toBe(heights[1]);
    expect(heads.at(-1)).toBe(base.height);
    expect((await api.chainHead()).height).toBe(base.height);
    unsubscribe();
  },
  MINING_TIMEOUT_MS,
);
