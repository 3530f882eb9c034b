/**
 * The storage miner's State methods over HTTP, served by a real RPC server over a real chain whose
 * genesis miner t01000 has two 2 KiB sectors in its deadlines: Lotus's JSON shapes (field names,
 * string amounts, bitfield runs, nulls), values checked against the state the chain holds, Lotus's
 * 110% estimators, and Lotus's errors for a miner or sector that is not there.
 */
import { base58btc } from 'multiformats/bases/base58';
import { getBlock } from '../../src/ipld/index.js';
import { dummyPeerId } from '../../src/proofs/genesis-miner.js';
import { allMethods, JsonRpcError, RpcClient } from '../../src/rpc/index.js';
import { stateMinerMethods } from '../../src/rpc/methods/state-miner.js';
import { stateMinerPledgeMethods } from '../../src/rpc/methods/state-miner-pledge.js';
import { stateMinerProvingMethods } from '../../src/rpc/methods/state-miner-proving.js';
import { REWARD_ACTOR_ID, STORAGE_POWER_ACTOR_ID, StateTree } from '../../src/state/index.js';
import { cidToLotusJson, setDefaultNetwork, signedMessageCid, tipSetKeyToLotusJson } from '../../src/types/index.js';
import { changeWorkerAddressParams } from '../../src/vm/actors/miner/actor.js';
import { loadVestingFunds } from '../../src/vm/actors/vesting-funds.js';
import {
  circulatingSupply,
  initialPledgeForPower,
  MinerMethod,
  minerState,
  minerVestedFunds,
  type PledgeInputs,
  powerStateCodec,
  preCommitDepositForPower,
  preCommitSectorBatch2Params,
  qaPowerForWeight,
  qaPowerMax,
  rewardStateCodec,
} from '../../src/vm/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { accountOf, commitmentCid, FIL, fundedTemplate, genesisMiner, MINER, PARAMS } from '../helpers/genesis.js';
import { keys, secpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = any;

const MINER_JSON = 't01000';
const SECTOR_SIZE = 2048n;
const policy = PARAMS.minerPolicy;
/** A libp2p peer ID as lotus-seed makes one: Lotus shows it base58, here in the miner's info. */
const PEER_ID = dummyPeerId();

let c: ChainServer;
let v1: RpcClient;
let v0: RpcClient;

function call(method: string, params: unknown[], client = v1): Promise<Json> {
  return client.request(`Filecoin.${method}`, params);
}

async function callError(method: string, params: unknown[], client = v1): Promise<{ code: number; message: string }> {
  const error = await call(method, params, client).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof JsonRpcError)) throw new Error(`${method} did not fail with a JSON-RPC error: ${error}`);
  return { code: error.rpcCode, message: error.message };
}

/** The state the methods read at the head: its parent state. */
function headState(): { tree: StateTree; height: bigint } {
  const head = c.t.chain.head();
  return { tree: StateTree.load(c.t.chain.blockstore, head.parentStateRoot), height: head.height };
}

beforeAll(async () => {
  // carol (BLS) can become the miner's worker.
  const template = fundedTemplate([accountOf(keys.carol.address, 5n * FIL)]);
  const miner = {
    ...genesisMiner(0, keys.worker.address, keys.worker.address, 2),
    peerId: base58btc.baseDecode(PEER_ID),
  };
  c = await startChainServer({ chain: { template: { ...template, miners: [miner] } } });
  v1 = new RpcClient({ url: c.url(1) });
  v0 = new RpcClient({ url: c.url(0) });
  await c.t.mine();
  await c.t.mine();
});
afterAll(async () => {
  await c.close();
  setDefaultNetwork('f');
});

test('every method is declared with read permission on v0 and v1, as in lotus api/api_full.go', () => {
  const names: string[] = [...stateMinerMethods, ...stateMinerPledgeMethods, ...stateMinerProvingMethods].map(
    (m) => m.name,
  );
  const served = allMethods.filter((m) => names.includes(m.name));
  expect(new Set(served.map((m) => m.name))).toEqual(new Set(names));
  expect(served.every((m) => m.permission === 'read')).toBe(true);
  for (const name of names) {
    expect(
      served
        .filter((m) => m.name === name)
        .flatMap((m) => m.apiVersions)
        .sort(),
    ).toEqual([0, 1]);
  }
});

describe('StateMinerInfo', () => {
  test("is Lotus's api.MinerInfo: no pending worker is <empty> and -1, the peer ID is base58", async () => {
    const worker = await call('StateLookupID', [keys.worker.address.toString(), null]);
    const info = await call('StateMinerInfo', [MINER_JSON, null]);
    expect(Object.keys(info)).toEqual([
      'Owner',
      'Worker',
      'NewWorker',
      'ControlAddresses',
      'WorkerChangeEpoch',
      'PeerId',
      'Multiaddrs',
      'WindowPoStProofType',
      'SectorSize',
      'WindowPoStPartitionSectors',
      'ConsensusFaultElapsed',
      'PendingOwnerAddress',
      'Beneficiary',
      'BeneficiaryTerm',
      'PendingBeneficiaryTerm',
    ]);
    expect(info).toEqual({
      Owner: worker,
      Worker: worker,
      NewWorker: '<empty>',
      ControlAddresses: null,
      WorkerChangeEpoch: -1,
      PeerId: PEER_ID,
      Multiaddrs: null,
      WindowPoStProofType: expect.any(Number),
      SectorSize: 2048,
      WindowPoStPartitionSectors: 2,
      ConsensusFaultElapsed: -1,
      PendingOwnerAddress: null,
      Beneficiary: worker,
      BeneficiaryTerm: { Quota: '0', UsedQuota: '0', Expiration: 0 },
      PendingBeneficiaryTerm: null,
    });
  });

  test('an unknown miner, an unresolvable key address and a non-miner actor get Lotus’s code-1 errors', async () => {
    expect(await callError('StateMinerInfo', ['t09999', null])).toEqual({
      code: 1,
      message: 'failed to load miner actor: actor not found',
    });
    const stranger = secpKey('nobody').address.toString();
    expect(await callError('StateMinerInfo', [stranger, null])).toEqual({
      code: 1,
      message: `failed to load miner actor: resolution lookup failed (${stranger}): actor not found`,
    });
    expect(await callError('StateMinerAvailableBalance', [keys.alice.address.toString(), null])).toEqual({
      code: 1,
      message: 'failed to load miner actor state: actor code is not miner: account',
    });
  });
});

describe('sectors', () => {
  test('StateMinerSectors lists the genesis sectors without DeprecatedDealIDs, amounts as strings', async () => {
    const sectors = await call('StateMinerSectors', [MINER_JSON, null, null]);
    expect(sectors.map((s: Json) => s.SectorNumber)).toEqual([0, 1]);
    expect(sectors[1]).toEqual({
      SectorNumber: 1,
      SealProof: 5,
      SealedCID: cidToLotusJson(commitmentCid('sealed', '0/1')),
      Activation: 0,
      Expiration: expect.any(Number),
      DealWeight: '0',
      VerifiedDealWeight: '0',
      InitialPledge: expect.stringMatching(/^[1-9][0-9]*$/),
      ExpectedDayReward: null,
      ExpectedStoragePledge: null,
      PowerBaseEpoch: 0,
      ReplacedDayReward: null,
      SectorKeyCID: null,
      Flags: 1,
      DailyFee: expect.stringMatching(/^[0-9]+$/),
    });
    // The pledge the state locks is the sum of the sectors' pledges.
    const pledged = sectors.reduce((sum: bigint, s: Json) => sum + BigInt(s.InitialPledge), 0n);
    expect(pledged).toBe(minerState(headState().tree, MINER).initialPledge);
  });

  test('StateMinerSectors with a bitfield selects; a number with no sector is an error', async () => {
    const all = await call('StateMinerSectors', [MINER_JSON, null, null]);
    expect(await call('StateMinerSectors', [MINER_JSON, [1, 1], null])).toEqual([all[1]]);
    expect(await callError('StateMinerSectors', [MINER_JSON, [1, 1, 3, 1], null])).toEqual({
      code: 1,
      message: "failed to load sectors: can't find sector 5",
    });
    // Not RLE+ runs: refused as invalid params naming the parameter.
    const refused = await callError('StateMinerSectors', [MINER_JSON, [1, 0, 1], null]);
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(/sectors/);
  });

  test('StateSectorGetInfo is the sector or null', async () => {
    const all = await call('StateMinerSectors', [MINER_JSON, null, null]);
    expect(await call('StateSectorGetInfo', [MINER_JSON, 0, null])).toEqual(all[0]);
    expect(await call('StateSectorGetInfo', [MINER_JSON, 7, null])).toBeNull();
    expect(await callError('StateSectorGetInfo', ['t09999', 0, null])).toEqual({
      code: 1,
      message: '(get sset) failed to load miner actor: actor not found',
    });
  });

  test('StateSectorPreCommitInfo of a sector not pre-committed is null on v1, an error on v0', async () => {
    expect(await call('StateSectorPreCommitInfo', [MINER_JSON, 0, null])).toBeNull();
    expect(await callError('StateSectorPreCommitInfo', [MINER_JSON, 0, null], v0)).toEqual({
      code: 1,
      message: 'precommit info does not exist',
    });
  });

  test('StateMinerAllocated holds every sector number; StateMinerSectorAllocated agrees with it', async () => {
    expect(await call('StateMinerAllocated', [MINER_JSON, null])).toEqual([0, 2]);
    for (const [n, allocated] of [
      [0, true],
      [1, true],
      [2, false],
      [100, false],
    ] as const) {
      expect(await call('StateMinerSectorAllocated', [MINER_JSON, n, null])).toBe(allocated);
    }
  });
});

describe('deadlines and partitions', () => {
  test('StateMinerDeadlines has one entry per deadline, nothing posted yet', async () => {
    const deadlines = await call('StateMinerDeadlines', [MINER_JSON, null]);
    expect(deadlines).toHaveLength(Number(policy.wPoStPeriodDeadlines));
    for (const deadline of deadlines) {
      expect(deadline).toEqual({
        PostSubmissions: [0],
        DisputableProofCount: 0,
        DailyFee: expect.stringMatching(/^[0-9]+$/),
      });
    }
  });

  test('StateMinerPartitions: the sectors sit in one partition, other deadlines are null, 48 is an error', async () => {
    const where = await call('StateSectorPartition', [MINER_JSON, 1, null]);
    expect(await call('StateSectorPartition', [MINER_JSON, 0, null])).toEqual(where);
    const partitions = await call('StateMinerPartitions', [MINER_JSON, where.Deadline, null]);
    expect(partitions[where.Partition]).toEqual({
      AllSectors: [0, 2],
      FaultySectors: [0],
      RecoveringSectors: [0],
      LiveSectors: [0, 2],
      ActiveSectors: [0, 2],
    });
    const other = (where.Deadline + 1) % Number(policy.wPoStPeriodDeadlines);
    expect(await call('StateMinerPartitions', [MINER_JSON, other, null])).toBeNull();
    expect(await callError('StateMinerPartitions', [MINER_JSON, 48, null])).toEqual({
      code: 1,
      message: 'failed to load the deadline: invalid deadline 48',
    });
    expect(await callError('StateSectorPartition', [MINER_JSON, 9, null])).toEqual({
      code: 1,
      message: 'sector 9 not due at any deadline',
    });
  });

  test('StateMinerSectorCount counts the genesis sectors; faults and recoveries are empty bitfields', async () => {
    expect(await call('StateMinerSectorCount', [MINER_JSON, null])).toEqual({ Live: 2, Active: 2, Faulty: 0 });
    expect(await call('StateMinerFaults', [MINER_JSON, null])).toEqual([0]);
    expect(await call('StateMinerRecoveries', [MINER_JSON, null])).toEqual([0]);
    expect(await call('StateMinerActiveSectors', [MINER_JSON, null])).toEqual(
      await call('StateMinerSectors', [MINER_JSON, null, null]),
    );
  });

  test('StateSectorExpiration is the end of the sector’s deadline at or after its expiration', async () => {
    const sector = await call('StateSectorGetInfo', [MINER_JSON, 0, null]);
    const where = await call('StateSectorPartition', [MINER_JSON, 0, null]);
    const expiration = await call('StateSectorExpiration', [MINER_JSON, 0, null]);
    expect(expiration.Early).toBe(0);
    const onTime = BigInt(expiration.OnTime);
    expect(onTime).toBeGreaterThanOrEqual(BigInt(sector.Expiration));
    expect(onTime - BigInt(sector.Expiration)).toBeLessThan(policy.wPoStProvingPeriod);
    const { provingPeriodStart } = minerState(headState().tree, MINER);
    const deadlineLast = provingPeriodStart + (BigInt(where.Deadline) + 1n) * policy.wPoStChallengeWindow - 1n;
    const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;
    expect(mod(onTime - deadlineLast, policy.wPoStProvingPeriod)).toBe(0n);
    expect(await callError('StateSectorExpiration', [MINER_JSON, 9, null])).toEqual({
      code: 1,
      message: 'failed to find sector 9',
    });
  });

  test('StateMinerProvingDeadline is the recorded deadline, not yet closed, at the head height', async () => {
    const info = await call('StateMinerProvingDeadline', [MINER_JSON, null]);
    const { tree, height } = headState();
    const state = minerState(tree, MINER);
    expect(info).toEqual({
      CurrentEpoch: Number(height),
      PeriodStart: expect.any(Number),
      Index: Number(state.currentDeadline),
      Open: info.PeriodStart + info.Index * Number(policy.wPoStChallengeWindow),
      Close: info.Open + Number(policy.wPoStChallengeWindow),
      Challenge: info.Open - Number(policy.wPoStChallengeLookback),
      FaultCutoff: info.Open - Number(policy.faultDeclarationCutoff),
      WPoStPeriodDeadlines: Number(policy.wPoStPeriodDeadlines),
      WPoStProvingPeriod: Number(policy.wPoStProvingPeriod),
      WPoStChallengeWindow: Number(policy.wPoStChallengeWindow),
      WPoStChallengeLookback: Number(policy.wPoStChallengeLookback),
      FaultDeclarationCutoff: Number(policy.faultDeclarationCutoff),
    });
    expect(info.Close).toBeGreaterThan(info.CurrentEpoch);
    expect((BigInt(info.PeriodStart) - state.provingPeriodStart) % policy.wPoStProvingPeriod).toBe(0n);
  });
});

describe('balance and estimators', () => {
  /** The inputs Lotus reads, decoded here straight from the reward and power actors' states. */
  function lotusPledgeInputs(): PledgeInputs {
    const { tree, height } = headState();
    const stateOf = (id: bigint) => getBlock(tree.store, tree.requireActor(id, 'reading its state').head);
    const reward = rewardStateCodec.decode(stateOf(REWARD_ACTOR_ID));
    const power = powerStateCodec.decode(stateOf(STORAGE_POWER_ACTOR_ID));
    const ramp = power.rampStartEpoch > 0n;
    return {
      rewardEstimate: reward.thisEpochRewardSmoothed,
      baselinePower: reward.thisEpochBaselinePower,
      networkQaPowerEstimate: power.thisEpochQaPowerSmoothed,
      circulatingSupply: circulatingSupply(tree, PARAMS),
      epochsSinceRampStart: ramp ? height - power.rampStartEpoch : 0n,
      rampDurationEpochs: ramp ? power.rampDurationEpochs : 0n,
    };
  }

  test('StateMinerAvailableBalance is the balance less locked funds, deposits, pledge and fee debt, plus what has vested', async () => {
    const { tree, height } = headState();
    const state = minerState(tree, MINER);
    const balance = tree.getActor(MINER.id())?.balance ?? 0n;
    // The block rewards t01000 won vest later: Lotus adds the entries due before the height, none yet.
    const vesting = loadVestingFunds(tree.store, state.vestingFunds);
    expect(vesting.length).toBeGreaterThan(0);
    const vested = vesting.filter((fund) => fund.epoch < height).reduce((sum, fund) => sum + fund.amount, 0n);
    const expected =
      balance - state.lockedFunds - state.preCommitDeposits - state.initialPledge - state.feeDebt + vested;
    expect(await call('StateMinerAvailableBalance', [MINER_JSON, null])).toBe(expected.toString());
  });

  test('the vesting term counts the entries due strictly before the epoch, as go-state-types CheckVestedFunds', () => {
    const { tree } = headState();
    const state = minerState(tree, MINER);
    const [first, second] = loadVestingFunds(tree.store, state.vestingFunds);
    if (first === undefined) throw new Error('t01000 has no vesting funds');
    expect(minerVestedFunds(tree, state, first.epoch)).toBe(0n);
    expect(minerVestedFunds(tree, state, first.epoch + 1n)).toBe(
      first.amount + (second !== undefined && second.epoch < first.epoch + 1n ? second.amount : 0n),
    );
  });

  test('StateMinerInitialPledgeForSector is 110% of the pledge of the sector’s QA power', async () => {
    const duration = 180n * 2880n;
    const inputs = lotusPledgeInputs();
    for (const verified of [0n, SECTOR_SIZE]) {
      const pledge = initialPledgeForPower(qaPowerForWeight(SECTOR_SIZE, duration, verified * duration), inputs);
      expect(pledge).toBeGreaterThan(0n);
      const answer = await call('StateMinerInitialPledgeForSector', [Number(duration), 2048, Number(verified), null]);
      expect(answer).toBe(((pledge * 110n) / 100n).toString());
    }
  });

  test('StateMinerInitialPledgeForSector refuses bad input with Lotus’s messages', async () => {
    expect(await callError('StateMinerInitialPledgeForSector', [0, 2048, 0, null])).toEqual({
      code: 1,
      message: 'sector duration must greater than 0',
    });
    expect(await callError('StateMinerInitialPledgeForSector', [100, 0, 0, null])).toEqual({
      code: 1,
      message: 'sector size must be non-zero',
    });
    expect(await callError('StateMinerInitialPledgeForSector', [100, 2048, 2049, null])).toEqual({
      code: 1,
      message: 'verified size must be less than or equal to sector size',
    });
  });

  test('StateMinerPreCommitDepositForPower is 110% of the deposit for the maximum QA power of the size', async () => {
    const inputs = lotusPledgeInputs();
    const deposit = preCommitDepositForPower(
      inputs.rewardEstimate,
      inputs.networkQaPowerEstimate,
      qaPowerMax(SECTOR_SIZE),
    );
    const preCommit = {
      SealProof: 5,
      SectorNumber: 2,
      SealedCID: cidToLotusJson(commitmentCid('sealed', 'new')),
      SealRandEpoch: 1,
      DealIDs: null,
      Expiration: 600000,
      UnsealedCid: null,
    };
    expect(await call('StateMinerPreCommitDepositForPower', [MINER_JSON, preCommit, null])).toBe(
      ((deposit * 110n) / 100n).toString(),
    );
    expect(
      await callError('StateMinerPreCommitDepositForPower', [MINER_JSON, { ...preCommit, SealProof: 99 }, null]),
    ).toEqual({
      code: 1,
      message: 'failed to resolve sector size for seal proof: unsupported proof type: 99',
    });
  });

  test('StateListMiners lists the miners with a power claim', async () => {
    expect(await call('StateListMiners', [null])).toEqual([MINER_JSON]);
  });
});

test('a node with a miner whose peer ID is not a multihash shows it as null', async () => {
  const other = await startChainServer();
  try {
    const info = await new RpcClient({ url: other.url(1) }).request('Filecoin.StateMinerInfo', [MINER_JSON, null]);
    expect((info as Json).PeerId).toBeNull();
  } finally {
    await other.close();
  }
});

describe('a pre-commit landing on chain (runs last: it changes the miner)', () => {
  test('StateSectorPreCommitInfo shows it, and its deposit is StateMinerPreCommitDepositForPower less the 10%', async () => {
    const height = c.t.chain.head().height + 1n;
    const info = {
      sealProof: 5n,
      sectorNumber: 2n,
      sealedCid: commitmentCid('sealed', 'pre-committed'),
      sealRandEpoch: height - 1n,
      dealIds: [],
      expiration: height + 700_000n,
      unsealedCid: null,
    };
    const signed = signSecp(
      keys.worker,
      message({
        from: keys.worker.address,
        to: MINER,
        method: MinerMethod.PreCommitSectorBatch2,
        params: preCommitSectorBatch2Params.encode({ sectors: [info] }),
        gasLimit: 100_000_000n,
      }),
    );
    const included = await c.t.mine([{ secp: [signed] }]);
    await c.t.mine();
    const lookup = await call('StateSearchMsg', [null, cidToLotusJson(signedMessageCid(signed)), -1, false]);
    expect(lookup.Receipt.ExitCode).toBe(0);

    const preCommit = await call('StateSectorPreCommitInfo', [MINER_JSON, 2, null]);
    expect(preCommit).toEqual({
      Info: {
        SealProof: 5,
        SectorNumber: 2,
        SealedCID: cidToLotusJson(info.sealedCid),
        SealRandEpoch: Number(height - 1n),
        DealIDs: null,
        Expiration: Number(info.expiration),
        UnsealedCid: null,
      },
      PreCommitDeposit: expect.stringMatching(/^[1-9][0-9]*$/),
      PreCommitEpoch: Number(height),
    });
    expect(await call('StateSectorPreCommitInfo', [MINER_JSON, 2, null], v0)).toEqual(preCommit);
    // The estimate at the tipset that included the message reads the state the message ran on.
    const estimate = await call('StateMinerPreCommitDepositForPower', [
      MINER_JSON,
      preCommit.Info,
      tipSetKeyToLotusJson(included.key),
    ]);
    expect(estimate).toBe(((BigInt(preCommit.PreCommitDeposit) * 110n) / 100n).toString());
    expect(await call('StateMinerAllocated', [MINER_JSON, null])).toEqual([0, 3]);
    expect(await call('StateMinerSectorAllocated', [MINER_JSON, 2, null])).toBe(true);
    // Pre-committed is not yet a sector.
    expect(await call('StateSectorGetInfo', [MINER_JSON, 2, null])).toBeNull();
    expect(await call('StateMinerSectorCount', [MINER_JSON, null])).toEqual({ Live: 2, Active: 2, Faulty: 0 });
  });
});

describe('a worker change landing on chain (runs last: it changes the miner)', () => {
  test('StateMinerInfo shows the pending worker, when it takes over, and the new control addresses', async () => {
    const worker = keys.worker.address.toString();
    const { Nonce: nonce } = await call('StateGetActor', [worker, null]);
    const params = changeWorkerAddressParams.encode({
      newWorker: keys.carol.address,
      newControlAddresses: [keys.alice.address],
    });
    const signed = signSecp(
      keys.worker,
      message({
        from: keys.worker.address,
        to: MINER,
        nonce: BigInt(nonce),
        method: MinerMethod.ChangeWorkerAddress,
        params,
        gasLimit: 100_000_000n,
      }),
    );
    const included = await c.t.mine([{ secp: [signed] }]);
    await c.t.mine();
    const lookup = await call('StateSearchMsg', [null, cidToLotusJson(signedMessageCid(signed)), -1, false]);
    expect(lookup.Receipt.ExitCode).toBe(0);

    const info = await call('StateMinerInfo', [MINER_JSON, null]);
    expect(info.Worker).toBe(await call('StateLookupID', [worker, null]));
    expect(info.NewWorker).toBe(await call('StateLookupID', [keys.carol.address.toString(), null]));
    expect(info.WorkerChangeEpoch).toBe(Number(included.height + PARAMS.workerKeyChangeDelay));
    expect(info.ControlAddresses).toEqual([await call('StateLookupID', [keys.alice.address.toString(), null])]);
    // At the tipset that included it, the change had not run yet.
    const before = await call('StateMinerInfo', [MINER_JSON, tipSetKeyToLotusJson(included.key)]);
    expect([before.NewWorker, before.WorkerChangeEpoch, before.ControlAddresses]).toEqual(['<empty>', -1, null]);
  });
});
