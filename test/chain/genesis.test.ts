import { PassThrough } from 'node:stream';
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import {
  buildGenesis,
  exportGenesisCar,
  FILECOIN_GENESIS_BLOCK_BYTES,
  FILECOIN_GENESIS_CID,
  GenesisError,
  type GenesisTemplate,
  genesisTemplateFromLotusJson,
  genesisTicket,
} from '../../src/chain/genesis/index.js';
import { getBlock, importCar, MemoryBlockstore } from '../../src/ipld/index.js';
import { actorNameOf, StateTree } from '../../src/state/index.js';
import { Address, decodeCbor, txMetaCid } from '../../src/types/index.js';
import { Deadlines } from '../../src/vm/actors/miner/deadlines.js';
import {
  cronStateCodec,
  initStateCodec,
  minerEligibleToMine,
  minerInfo,
  minerPower,
  minerSectors,
  minerState,
  multisigStateCodec,
  powerState,
  preCommitDepositForPower,
  qaPowerMax,
  rewardStateCodec,
  winningPoStProofOfSealProof,
} from '../../src/vm/index.js';
import { accountOf, devnetTemplate, FIL, genesisMiner, multisigAccount, PARAMS } from '../helpers/genesis.js';
import { blsKey, secpKey } from '../helpers/keys.js';
import { totalBalance } from '../helpers/state.js';

const alice = secpKey('alice');
const bob = secpKey('bob');
const worker = blsKey('worker');
const signerA = secpKey('signer-a');
const signerB = blsKey('signer-b');
const EMPTY_V0_AMT = 'bafy2bzacedswlcz5ddgqnyo3sak3jmhmkxashisnlpq6ujgyhe4mlobzpnhs6';

function template(overrides: Partial<GenesisTemplate> = {}): GenesisTemplate {
  return devnetTemplate({
    accounts: [
      accountOf(alice.address, 100n * FIL),
      multisigAccount([signerA.address, signerB.address], 2n, 50n * FIL),
      accountOf(worker.address, 10_000n * FIL),
      accountOf(bob.address, 7n * FIL),
    ],
    miners: [genesisMiner(0, worker.address, worker.address, 2)],
    ...overrides,
  });
}

function build(t: GenesisTemplate) {
  const store = new MemoryBlockstore();
  const genesis = buildGenesis(store, t, PARAMS);
  return { store, genesis, tree: StateTree.load(store, genesis.stateRoot) };
}

describe('genesis', () => {
  test('the same template gives the same genesis CID; any change gives another', () => {
    const base = build(template()).genesis.cid.toString();
    expect(build(template()).genesis.cid.toString()).toBe(base);
    expect(build(template({ timestamp: 1_700_000_001n })).genesis.cid.toString()).not.toBe(base);
    expect(build(template({ networkName: 'other' })).genesis.cid.toString()).not.toBe(base);
    expect(
      build(
        template({ accounts: [accountOf(alice.address, 101n * FIL), accountOf(worker.address, 10_000n * FIL)] }),
      ).genesis.cid.toString(),
    ).not.toBe(base);
  });

  test('the header has Lotus’s genesis shape, with a ticket derived from the state', () => {
    const { store, genesis } = build(template());
    const h = genesis.header;
    expect(h.miner.toString()).toBe('f00');
    expect(h.height).toBe(0n);
    expect(h.parents.map(String)).toEqual([FILECOIN_GENESIS_CID.toString()]);
    expect(h.parentBaseFee).toBe(100_000_000n);
    expect(h.beaconEntries).toEqual([{ round: 0n, data: new Uint8Array(32) }]);
    expect(h.electionProof).toEqual({ winCount: 0n, vrfProof: new Uint8Array(0) });
    expect(h.parentMessageReceipts.toString()).toBe(EMPTY_V0_AMT);
    expect(
      h.messages.equals(txMetaCid({ blsMessages: CID.parse(EMPTY_V0_AMT), secpkMessages: CID.parse(EMPTY_V0_AMT) })),
    ).toBe(true);
    expect([h.blsAggregate, h.blockSig]).toEqual([null, null]);
    expect(h.ticket!.vrfProof).toEqual(genesisTicket(genesis.stateRoot, h.timestamp));
    expect(store.has(genesis.cid) && store.has(h.messages) && store.has(FILECOIN_GENESIS_CID)).toBe(true);
  });

  test('the "Filecoin genesis" parent block hashes to its sha2-256 CID', async () => {
    const digest = await sha256.digest(FILECOIN_GENESIS_BLOCK_BYTES);
    expect(CID.createV1(0x71, digest).equals(FILECOIN_GENESIS_CID)).toBe(true);
  });

  test('singletons, accounts from f0100, multisigs after them, the remainder at f090, miners from f01000', () => {
    const { store, tree } = build(template());
    const type = (id: bigint) => actorNameOf(tree.getActor(id)!.code);
    expect([0n, 1n, 2n, 3n, 4n, 99n, 90n].map(type)).toEqual([
      'system',
      'init',
      'reward',
      'cron',
      'storagepower',
      'account',
      'account',
    ]);
    expect([alice, signerA, signerB, worker, bob].map((k) => tree.lookupId(k.address))).toEqual([
      100n,
      101n,
      102n,
      103n,
      104n,
    ]);
    expect(type(105n)).toBe('multisig');
    const msig = multisigStateCodec.decode(getBlock(store, tree.getActor(105n)!.head));
    expect(msig.signers.map(String)).toEqual(['f0101', 'f0102']);
    expect(msig.numApprovalsThreshold).toBe(2n);
    expect(tree.getActor(105n)!.balance).toBe(50n * FIL);
    expect(type(1000n)).toBe('storageminer');
    const init = initStateCodec.decode(getBlock(store, tree.getActor(1n)!.head));
    expect(init.networkName).toBe('ledger-test');
    expect(init.nextId).toBe(1001n);
    const cron = cronStateCodec.decode(getBlock(store, tree.getActor(3n)!.head));
    expect(cron.entries.map((e) => [e.receiver.toString(), e.methodNum])).toEqual([['f04', 5n]]);
    expect(tree.getActor(2n)!.balance).toBe(PARAMS.initialRewardBalance);
  });

  test('the balances sum to exactly 2e9 FIL; the remainder account holds the rest', () => {
    const { tree } = build(template());
    expect(totalBalance(tree)).toBe(2_000_000_000n * FIL);
    const others = [...tree.actors()].filter(([id]) => id !== 90n).reduce((sum, [, a]) => sum + a.balance, 0n);
    expect(tree.getActor(90n)!.balance).toBe(2_000_000_000n * FIL - others);
    expect(tree.lookupId(secpKey('remainder').address)).toBe(90n);
  });

  test('the genesis miner has its pre-sealed sectors and their power, and may mine', () => {
    const { tree } = build(template());
    const miner = Address.newId(1000n);
    const sectors = minerSectors(tree, miner);
    expect(sectors.map((s) => [s.sectorNumber, s.sealProof])).toEqual([
      [0n, 5n],
      [1n, 5n],
    ]);
    // StackedDrg2KiBV1_1 sectors prove with StackedDrgWinning2KiBV1 (0).
    expect(winningPoStProofOfSealProof(Number(sectors[0]!.sealProof))).toBe(0);
    const manifest = genesisMiner(0, worker.address, worker.address, 2);
    expect(sectors.map((s) => s.sealedCid.toString())).toEqual(manifest.sectors.map((s) => s.commR.toString()));
    const power = minerPower(tree, miner, PARAMS)!;
    expect(power.miner.rawBytePower).toBe(4096n);
    // Committed-capacity sectors (this chain has no market for Lotus's pre-seal deals): QA power = raw power.
    expect(power.miner.qualityAdjPower).toBe(4096n);
    expect(power.hasMinPower).toBe(true);
    expect(power.total).toEqual({ raw: 4096n, qa: 4096n });
    const ps = powerState(tree);
    expect([ps.thisEpochRawBytePower, ps.thisEpochQualityAdjPower, ps.minerCount, ps.minerAboveMinPowerCount]).toEqual([
      4096n,
      4096n,
      1n,
      1n,
    ]);
    expect(minerEligibleToMine(tree, tree, 1n, miner, PARAMS)).toBe(true);
    expect(minerEligibleToMine(tree, tree, 1n, Address.newId(1001n), PARAMS)).toBe(false);
    const info = minerInfo(tree, miner);
    const workerId = Address.newId(tree.lookupId(worker.address)!);
    expect([info.owner.toString(), info.worker.toString(), info.sectorSize]).toEqual([
      workerId.toString(),
      workerId.toString(),
      2048n,
    ]);
    const state = minerState(tree, miner);
    expect(state.initialPledge).toBeGreaterThan(0n);
    expect(state.lockedFunds).toBeGreaterThan(0n);
    expect(ps.totalPledgeCollateral).toBe(state.initialPledge);
    // Lotus's genesis sends each pre-commit its deposit and pledge; activation frees the deposit.
    const reward = rewardStateCodec.decode(getBlock(tree.store, tree.getActor(2n)!.head));
    const deposit = preCommitDepositForPower(
      reward.thisEpochRewardSmoothed,
      ps.thisEpochQaPowerSmoothed,
      qaPowerMax(2048n),
    );
    expect(tree.getActor(1000n)!.balance).toBe(state.initialPledge + state.lockedFunds + 2n * deposit);
    // As Lotus's genesis leaves it: pre-commits consumed, sectors proven in a partition, the deadline cron running.
    expect(state.preCommitDeposits).toBe(0n);
    expect(state.deadlineCronActive).toBe(true);
    const deadlines = Deadlines.load(tree.store, state.deadlines);
    const located = sectors.map((s) => deadlines.findSector(tree.store, s.sectorNumber));
    const partition = deadlines
      .loadDeadline(tree.store, located[0]!.deadline)
      .loadPartition(tree.store, located[0]!.partition);
    expect([...partition.activeSectors().values()]).toEqual([0n, 1n]);
    expect(partition.unproven.isEmpty()).toBe(true);
  });

  test('reads Lotus JSON templates and lotus-seed miner manifests', () => {
    const json = {
      NetworkVersion: 28,
      Accounts: [
        { Type: 'account', Balance: '50000000000000000000000000', Meta: { Owner: worker.address.toString() } },
        {
          Type: 'multisig',
          Balance: '1000',
          Meta: { Signers: [alice.address.toString()], Threshold: 1, VestingDuration: 0, VestingStart: 0 },
        },
      ],
      Miners: [
        {
          ID: 't01000',
          Owner: worker.address.toString('t'),
          Worker: worker.address.toString('t'),
          PeerId: '12D3KooWQXTuW8mfVE3ZPnQNVBUkMK7fKX5sdGPGhxMbrVcJmAAP',
          MarketBalance: '0',
          PowerBalance: '0',
          SectorSize: 2048,
          Sectors: genesisMiner(0, worker.address, worker.address, 1).sectors.map((s) => ({
            CommR: { '/': s.commR.toString() },
            CommD: { '/': s.commD.toString() },
            SectorID: 0,
            Deal: { PieceCID: { '/': s.commD.toString() }, PieceSize: 2048, VerifiedDeal: false },
            DealClientKey: { Type: 'bls', PrivateKey: '' },
            ProofType: 5,
          })),
        },
      ],
      NetworkName: 'localnet-test',
      Timestamp: 1700000000,
      VerifregRootKey: { Type: 'account', Balance: '0', Meta: { Owner: alice.address.toString() } },
      RemainderAccount: { Type: 'account', Balance: '0', Meta: { Owner: bob.address.toString() } },
    };
    const parsed = genesisTemplateFromLotusJson(json, PARAMS.networkVersion);
    expect(parsed.miners[0]!.sectors[0]!.commR.toString()).toBe(json.Miners[0]!.Sectors[0]!.CommR['/']);
    const { tree } = build(parsed);
    expect(minerPower(tree, Address.newId(1000n), PARAMS)!.miner.rawBytePower).toBe(2048n);
    expect(() => genesisTemplateFromLotusJson({ ...json, NetworkVersion: 21 }, PARAMS.networkVersion)).toThrow(
      GenesisError,
    );
    const withMarket = { ...json, Miners: [{ ...json.Miners[0]!, MarketBalance: '5' }] };
    expect(() => genesisTemplateFromLotusJson(withMarket, PARAMS.networkVersion)).toThrow(/no storage market/);
  });

  test('refuses templates that cannot make a genesis', () => {
    expect(() => build(template({ miners: [genesisMiner(1, worker.address, worker.address, 1)] }))).toThrow(
      /must be f01000/,
    );
    expect(() => build(template({ miners: [genesisMiner(0, secpKey('nobody').address, worker.address, 1)] }))).toThrow(
      /must be one of the template's accounts/,
    );
    expect(() => build(template({ accounts: [accountOf(alice.address, 3_000_000_000n * FIL)], miners: [] }))).toThrow(
      /more than the total supply/,
    );
    expect(() => build(template({ miners: [genesisMiner(0, worker.address, alice.address, 1)] }))).toThrow(
      GenesisError,
    );
  });

  test('exports as a CAR rooted at the genesis block that holds the whole genesis', async () => {
    const { store, genesis } = build(template());
    const out = new PassThrough();
    const chunks: Uint8Array[] = [];
    out.on('data', (chunk: Uint8Array) => chunks.push(chunk));
    await exportGenesisCar(store, genesis.cid, out);
    const copy = new MemoryBlockstore();
    const { roots, blockCount } = await importCar(
      copy,
      (async function* () {
        yield* chunks;
      })(),
    );
    expect(roots.map(String)).toEqual([genesis.cid.toString()]);
    expect(blockCount).toBe(copy.size);
    expect(totalBalance(StateTree.load(copy, genesis.stateRoot))).toBe(2_000_000_000n * FIL);
    expect(decodeCbor(getBlock(copy, genesis.cid))).toBeDefined();
  });
});
