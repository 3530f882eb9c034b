/**
 * The block production library without the cost of proving: base info, the election's refusals,
 * and MinerCreateBlock from Lotus JSON. Full elections with real winning PoSt, and the validator's
 * verdict on their blocks, are in test/consensus/block-validation.test.ts.
 */
import { txMetaCidOf } from '../../src/chain/index.js';
import { bls } from '../../src/crypto/index.js';
import {
  attemptElection,
  blockTemplateFromLotusJson,
  createBlock,
  getMiningBaseInfo,
  MinerErrorCode,
} from '../../src/miner/index.js';
import {
  Address,
  blockSigningBytes,
  cidToLotusJson,
  SignatureType,
  signedMessageToLotusJson,
  tipSetKeyToLotusJson,
} from '../../src/types/index.js';
import { MINER, PARAMS } from '../helpers/genesis.js';
import { alice, carol, type MiningChain, miningChain, sign, signMessage, worker } from '../helpers/mining-chain.js';

let mc: MiningChain;

beforeAll(async () => {
  mc = await miningChain();
}, 10 * 60_000);

afterAll(async () => {
  await mc?.remove();
  mc?.db.close();
});

function templateJson(overrides: Record<string, unknown> = {}) {
  const genesis = mc.chain.genesis;
  return {
    Miner: MINER.toString(),
    Parents: tipSetKeyToLotusJson(genesis.key),
    Ticket: { VRFProof: Buffer.from(bls.sign(worker.privateKey, new Uint8Array([1]))).toString('base64') },
    Eproof: { WinCount: 1, VRFProof: Buffer.from(bls.sign(worker.privateKey, new Uint8Array([2]))).toString('base64') },
    BeaconValues: [{ Round: 1, Data: Buffer.from(mc.beacon.entry(1n).data).toString('base64') }],
    Messages: null,
    Epoch: 1,
    Timestamp: Number(genesis.timestamp + PARAMS.blockDelaySecs),
    WinningPoStProof: [{ PoStProof: 0, ProofBytes: Buffer.alloc(192).toString('base64') }],
    ...overrides,
  };
}

describe('getMiningBaseInfo', () => {
  test('one beacon entry per epoch since the base, the previous entry, and the challenged sector', async () => {
    const genesis = mc.chain.genesis;
    const info = await getMiningBaseInfo(mc.ctx, MINER, 3n, genesis);
    expect(info).not.toBeNull();
    expect(info!.prevBeaconEntry.round).toBe(0n);
    expect(info!.beaconEntries.map((e) => e.round)).toEqual([1n, 2n, 3n]);
    expect(info!.sectors).toHaveLength(1);
    expect(info!.postSectors[0]!.sectorNumber).toBe(info!.sectors[0]!.sectorNumber);
    expect(info!.workerKey.equals(worker.address)).toBe(true);
    expect(info!.eligibleForMining).toBe(true);
    expect(info!.minerPower).toBe(info!.networkPower);
  });

  test('null for a miner that does not exist at the lookback', async () => {
    expect(await getMiningBaseInfo(mc.ctx, Address.newId(1999n), 1n, mc.chain.genesis)).toBeNull();
  });
});

describe('attemptElection', () => {
  test('null for a miner without power; an error for a round not above the base', async () => {
    expect(await attemptElection(mc.ctx, Address.newId(1999n), mc.chain.genesis, 1n, sign)).toBeNull();
    await expect(attemptElection(mc.ctx, MINER, mc.chain.genesis, 0n, sign)).rejects.toMatchObject({
      code: MinerErrorCode.BadRound,
    });
  });

  test('refuses a worker signature that is not BLS (a VRF must be)', async () => {
    const secpSign = async () => ({ type: SignatureType.Secp256k1, data: new Uint8Array(65) });
    await expect(attemptElection(mc.ctx, MINER, mc.chain.genesis, 1n, secpSign)).rejects.toMatchObject({
      code: MinerErrorCode.WorkerNotBls,
    });
  });
});

describe('createBlock (MinerCreateBlock)', () => {
  test('from a Lotus JSON template without messages: identity aggregate, parent values, worker signature', async () => {
    const template = blockTemplateFromLotusJson(templateJson());
    const block = await createBlock(mc.ctx, template, sign);
    const genesis = mc.chain.genesis;
    const h = block.header;
    expect(block.blsMessages).toEqual([]);
    expect(block.secpkMessages).toEqual([]);
    expect(h.blsAggregate).toEqual({ type: SignatureType.BLS, data: bls.IDENTITY_SIGNATURE });
    expect(h.messages.equals(txMetaCidOf([], []))).toBe(true);
    expect(h.parentStateRoot.equals(genesis.parentStateRoot)).toBe(true);
    expect(h.parentWeight).toBe(mc.chain.weightOf(genesis));
    expect(h.height).toBe(1n);
    expect(h.electionProof!.winCount).toBe(1n);
    expect(h.beaconEntries.map((e) => e.round)).toEqual([1n]);
    expect(bls.verify(worker.address.payload, blockSigningBytes({ ...h, blockSig: null }), h.blockSig!.data)).toBe(
      true,
    );
  });

  test('splits BLS from secp messages and aggregates the BLS signatures', async () => {
    const secp = await signMessage(alice.address, { nonce: 0n });
    const blsA = await signMessage(carol.address, { nonce: 0n });
    const blsB = await signMessage(carol.address, { nonce: 1n });
    const template = blockTemplateFromLotusJson(
      templateJson({ Messages: [blsA, secp, blsB].map(signedMessageToLotusJson) }),
    );
    const block = await createBlock(mc.ctx, template, sign);
    expect(block.secpkMessages).toHaveLength(1);
    expect(block.blsMessages).toHaveLength(2);
    expect(block.header.blsAggregate!.data).toEqual(bls.aggregate([blsA.signature.data, blsB.signature.data]));
    expect(block.header.messages.equals(txMetaCidOf(block.blsMessages, block.secpkMessages))).toBe(true);
  });

  test('a template with unknown parents, a stale epoch or no ticket is refused, saying why', async () => {
    const unknown = templateJson({ Parents: [cidToLotusJson(txMetaCidOf([], []))] });
    await expect(createBlock(mc.ctx, blockTemplateFromLotusJson(unknown), sign)).rejects.toMatchObject({
      code: MinerErrorCode.BadTemplate,
      message: expect.stringMatching(/parent tipset/),
    });
    await expect(
      createBlock(mc.ctx, blockTemplateFromLotusJson(templateJson({ Epoch: 0 })), sign),
    ).rejects.toMatchObject({
      code: MinerErrorCode.BadTemplate,
    });
    expect(() => blockTemplateFromLotusJson(templateJson({ Ticket: null }))).toThrow(/Ticket/);
  });
});
