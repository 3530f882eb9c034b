/**
 * Expected Consensus end to end on a real chain: blocks produced by the miner library (real
 * tickets, election proofs, winning PoSt over real pre-sealed sectors, BLS signatures) are accepted
 * by the validator, and each forged variant is rejected for its own reason. One winning PoSt per
 * block; the forged variants reuse block 2's proof and are re-signed by the worker, so each fails
 * exactly one check.
 */

import { txMetaCidOf } from '../../src/chain/index.js';
import { BlockErrorCode, BlockValidationError, type BlockValidator } from '../../src/consensus/index.js';
import { bls } from '../../src/crypto/index.js';
import { type BlockTemplate, getMiningBaseInfo, miningBaseInfoToLotusJson } from '../../src/miner/index.js';
import { StateTree } from '../../src/state/index.js';
import {
  Address,
  type BlockHeader,
  blockSigningBytes,
  type FullBlock,
  messageCid,
  SignatureType,
  type SignedMessage,
  signedMessageCid,
  TipSet,
} from '../../src/types/index.js';
import { powerState } from '../../src/vm/index.js';
import { MINER, PARAMS } from '../helpers/genesis.js';
import {
  alice,
  carol,
  type MiningChain,
  mineBlock,
  miningChain,
  signMessage,
  validatorOf,
  worker,
} from '../helpers/mining-chain.js';

const SETUP_TIMEOUT_MS = 10 * 60_000;

let mc: MiningChain;
let validator: BlockValidator;

/** Mines the first round on `base` the miner wins; returns the block and its messages. */
async function mine(
  base: TipSet,
  messages: SignedMessage[],
  firstRound = base.height + 1n,
): Promise<{ block: FullBlock; template: BlockTemplate }> {
  return mineBlock(mc, base, messages, { firstRound });
}

function resigned(block: FullBlock, changes: Partial<BlockHeader>): FullBlock {
  const unsigned = { ...block.header, ...changes, blockSig: null };
  const header = {
    ...unsigned,
    blockSig: { type: SignatureType.BLS, data: bls.sign(worker.privateKey, blockSigningBytes(unsigned)) },
  };
  return { ...block, header };
}

async function rejection(v: BlockValidator, block: FullBlock): Promise<BlockValidationError> {
  const error = await v.validateBlock(block).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BlockValidationError);
  return error as BlockValidationError;
}

async function expectOnly(block: FullBlock, code: BlockErrorCode, reason: RegExp): Promise<void> {
  const error = await rejection(validator, block);
  expect(error.failures.map((f) => f.code)).toEqual([code]);
  expect(error.code).toBe(code);
  expect(error.message).toMatch(reason);
  expect(error.temporal).toBe(false);
}

let block1: FullBlock;
let block2: FullBlock;
let tipSet1: TipSet;

beforeAll(async () => {
  mc = await miningChain();
  validator = validatorOf(mc);
  const genesis = mc.chain.head();
  block1 = (
    await mine(genesis, [
      await signMessage(alice.address, { nonce: 0n }),
      await signMessage(carol.address, { nonce: 0n }),
    ])
  ).block;
  await validator.validateBlock(block1);
  mc.chain.putBlock(block1);
  tipSet1 = TipSet.fromHeaders([block1.header]);
  mc.chain.addTipSet(tipSet1);
  block2 = (
    await mine(tipSet1, [
      await signMessage(alice.address, { nonce: 1n }),
      await signMessage(carol.address, { nonce: 1n, value: 2n }),
      await signMessage(carol.address, { nonce: 2n, value: 3n }),
    ])
  ).block;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mc?.remove();
  mc?.db.close();
});

describe('blocks from createBlock', () => {
  test('carry a real election: WinCount ≥ 1, a 192-byte winning PoSt, BLS ticket and signature', () => {
    for (const { header } of [block1, block2]) {
      expect(header.electionProof!.winCount).toBeGreaterThanOrEqual(1n);
      expect(header.winPoStProof).toHaveLength(1);
      expect(header.winPoStProof[0]!.proofBytes).toHaveLength(192);
      expect(header.ticket!.vrfProof).toHaveLength(96);
      expect(header.blockSig!.type).toBe(SignatureType.BLS);
      expect(header.beaconEntries.length).toBeGreaterThanOrEqual(1);
    }
    expect(block2.blsMessages).toHaveLength(2);
    expect(block2.secpkMessages).toHaveLength(1);
  });

  test('are accepted by the validator, with the parent executed for their state root', async () => {
    await expect(validator.validateBlock(block2)).resolves.toBeUndefined();
    const executed = await mc.states.stateOf(tipSet1);
    expect(block2.header.parentStateRoot.equals(executed.stateRoot)).toBe(true);
    expect(block2.header.parentStateRoot.equals(tipSet1.parentStateRoot)).toBe(false);
    expect(block2.header.parentWeight).toBe(mc.chain.weightOf(tipSet1));
    const tipSet2 = await validator.validateTipSet([block2]);
    expect(tipSet2.height).toBe(block2.header.height);
  });

  test(
    'a block after a null round carries a beacon entry per epoch and is accepted',
    async () => {
      const { block } = await mine(tipSet1, [], tipSet1.height + 2n);
      const gap = block.header.height - tipSet1.height;
      expect(gap).toBeGreaterThanOrEqual(2n);
      expect(BigInt(block.header.beaconEntries.length)).toBe(gap);
      expect(block.header.timestamp - tipSet1.timestamp).toBe(gap * PARAMS.blockDelaySecs);
      await expect(validator.validateBlock(block)).resolves.toBeUndefined();
    },
    5 * 60_000,
  );

  test('a fresh validator checks a block (PoSt verification included) well within a block time', async () => {
    const fresh = validatorOf(mc);
    const started = performance.now();
    await fresh.validateBlock(block2);
    expect(performance.now() - started).toBeLessThan(Number(PARAMS.blockDelaySecs) * 1000);
  });

  test('a validated block is remembered, not verified again', async () => {
    const started = performance.now();
    await validator.validateBlock(block2);
    expect(performance.now() - started).toBeLessThan(20);
  });

  test('MinerGetBaseInfo has Lotus’s shape, with the challenged sector and the lookback powers', async () => {
    const info = await getMiningBaseInfo(mc.ctx, MINER, tipSet1.height + 1n, tipSet1);
    const json = miningBaseInfoToLotusJson(info!);
    const qaPower = powerState(StateTree.load(mc.chain.blockstore, tipSet1.parentStateRoot)).totalQualityAdjPower;
    expect(qaPower).toBeGreaterThan(0n);
    expect(json).toMatchObject({
      MinerPower: qaPower.toString(),
      NetworkPower: qaPower.toString(),
      SectorSize: 2048,
      EligibleForMining: true,
    });
    expect(json.Sectors).toHaveLength(1);
    expect(json.WorkerKey).toBe(worker.address.toString());
    expect(json.PrevBeaconEntry.Round).toBe(Number(block1.header.beaconEntries.at(-1)!.round));
  });
});

describe('the validator rejects, each for its own reason', () => {
  test('a bad ticket', async () => {
    const ticket = { vrfProof: bls.sign(worker.privateKey, new TextEncoder().encode('not the ticket input')) };
    await expectOnly(resigned(block2, { ticket }), BlockErrorCode.BadTicket, /ticket VRF does not verify/);
  });

  test('a bad election proof', async () => {
    const electionProof = {
      winCount: block2.header.electionProof!.winCount,
      vrfProof: bls.sign(worker.privateKey, new TextEncoder().encode('not the election input')),
    };
    await expectOnly(resigned(block2, { electionProof }), BlockErrorCode.BadElectionProof, /election proof VRF/);
  });

  test('an election proof claiming more wins than it has', async () => {
    const proof = block2.header.electionProof!;
    const electionProof = { winCount: proof.winCount + 1n, vrfProof: proof.vrfProof };
    await expectOnly(resigned(block2, { electionProof }), BlockErrorCode.BadElectionProof, /wrong number of wins/);
  });

  test('a forged winning PoSt', async () => {
    const real = block2.header.winPoStProof[0]!;
    const forged = Uint8Array.from(real.proofBytes);
    forged[17] = (forged[17] as number) ^ 0x01;
    const winPoStProof = [{ postProof: real.postProof, proofBytes: forged }];
    await expectOnly(
      resigned(block2, { winPoStProof }),
      BlockErrorCode.BadWinningPoSt,
      /winning PoSt proof does not verify/,
    );
    // Block 1's genuine proof answers another challenge.
    await expectOnly(
      resigned(block2, { winPoStProof: block1.header.winPoStProof }),
      BlockErrorCode.BadWinningPoSt,
      /does not verify/,
    );
  });

  test('a bad block signature', async () => {
    const blockSig = {
      type: SignatureType.BLS,
      data: bls.sign(carol.privateKey, blockSigningBytes({ ...block2.header, blockSig: null })),
    };
    await expectOnly(
      { ...block2, header: { ...block2.header, blockSig } },
      BlockErrorCode.BadBlockSignature,
      /block signature/,
    );
  });

  test('a wrong parent state root', async () => {
    await expectOnly(
      resigned(block2, { parentStateRoot: tipSet1.parentStateRoot }),
      BlockErrorCode.WrongParentState,
      /parent state root did not match/,
    );
  });

  test('a wrong parent receipts root', async () => {
    await expectOnly(
      resigned(block2, { parentMessageReceipts: block1.header.parentMessageReceipts }),
      BlockErrorCode.WrongParentState,
      /receipts root did not match/,
    );
  });

  test('a wrong parent weight', async () => {
    await expectOnly(
      resigned(block2, { parentWeight: block2.header.parentWeight + 1n }),
      BlockErrorCode.WrongParentWeight,
      /parent weight different/,
    );
  });

  test('a wrong base fee', async () => {
    await expectOnly(
      resigned(block2, { parentBaseFee: block2.header.parentBaseFee + 1n }),
      BlockErrorCode.WrongBaseFee,
      /base fee/,
    );
  });

  test('a block from the future, as a temporal failure', async () => {
    const early = validatorOf(mc, () => Number(block2.header.timestamp - 5n) * 1000);
    const error = await rejection(early, block2);
    expect(error.code).toBe(BlockErrorCode.FromFuture);
    expect(error.failures.map((f) => f.code)).toEqual([BlockErrorCode.FromFuture]);
    expect(error.temporal).toBe(true);
    expect(error.message).toMatch(/from the future/);
    // One second of drift is allowed.
    const drifting = validatorOf(mc, () => Number(block2.header.timestamp - 1n) * 1000);
    await expect(drifting.validateBlock(block2)).resolves.toBeUndefined();
  });

  test('a wrong BLS aggregate', async () => {
    // Carol's second message signed over other bytes: still a valid BLS signature by her key.
    const [first, second] = block2.blsMessages;
    const signatures = [
      bls.sign(carol.privateKey, messageCid(first!).bytes),
      bls.sign(carol.privateKey, messageCid({ ...second!, value: 4n }).bytes),
    ];
    const blsAggregate = { type: SignatureType.BLS, data: bls.aggregate(signatures) };
    await expectOnly(
      resigned(block2, { blsAggregate }),
      BlockErrorCode.BadBlsAggregate,
      /BLS aggregate does not verify/,
    );
  });

  test('a message with a nonce out of order', async () => {
    const signed = await signMessage(alice.address, { ...block2.secpkMessages[0]!.message, nonce: 5n });
    const messages = txMetaCidOf(block2.blsMessages.map(messageCid), [signedMessageCid(signed)]);
    const forged = { ...resigned(block2, { messages }), secpkMessages: [signed] };
    await expectOnly(forged, BlockErrorCode.BadMessages, /wrong nonce 5 from .* \(expected 1\)/);
  });

  test('other messages under an accepted header', async () => {
    const signed = await signMessage(alice.address, { ...block2.secpkMessages[0]!.message, value: 7n });
    await expectOnly({ ...block2, secpkMessages: [signed] }, BlockErrorCode.BadMessages, /is not the TxMeta/);
  });

  test('a block by a miner without power, and a block missing its election proof', async () => {
    const stranger = await rejection(validator, resigned(block2, { miner: Address.newId(1001n) }));
    expect(stranger.code).toBe(BlockErrorCode.BadMiner);
    expect(stranger.message).toMatch(/f01001/);
    const bare = await rejection(validator, resigned(block2, { electionProof: null }));
    expect(bare.failures).toEqual([{ code: BlockErrorCode.Malformed, reason: 'block has no election proof' }]);
  });

  test('a wrong timestamp and an unknown parent, before any expensive check', async () => {
    const late = await rejection(validator, resigned(block2, { timestamp: block2.header.timestamp + 1n }));
    expect(late.code).toBe(BlockErrorCode.BadTimestamp);
    const orphan = await rejection(validator, resigned(block2, { parents: [messageCid(block2.blsMessages[0]!)] }));
    expect(orphan.code).toBe(BlockErrorCode.UnknownParent);
  });
});
