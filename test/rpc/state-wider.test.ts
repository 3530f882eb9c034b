/**
 * StateReadState, StateListActors, StateLookupRobustAddress, StateGetNetworkParams,
 * StateCirculatingSupply, StateVMCirculatingSupplyInternal and StateGetBeaconEntry over HTTP,
 * served by a real RPC server over the chain fixture (genesis by the real builder, executed tipsets).
 */
import { blake2b256, drawRandomnessFromDigest } from '../../src/crypto/index.js';
import { getBlock } from '../../src/ipld/index.js';
import {
  ACTOR_CODES,
  actorNameOf,
  INIT_ACTOR_ID,
  REWARD_ACTOR_ID,
  StateTree,
  SYSTEM_ACTOR_ID,
} from '../../src/state/index.js';
import {
  Address,
  actorToLotusJson,
  type BeaconEntry,
  cidOfCbor,
  cidToLotusJson,
  encodeCbor,
  type TipSet,
} from '../../src/types/index.js';
import { toBase64 } from '../../src/utils/bytes.js';
import {
  availableBalance,
  circulatingSupply,
  minerStateCodec,
  minerStateStruct,
  powerStateCodec,
} from '../../src/vm/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { FIL, GENESIS_TIMESTAMP, MINER, PARAMS } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { call, post } from './harness.js';

let c: ChainServer;

beforeAll(async () => {
  c = await startChainServer();
  await c.t.mine();
  await c.t.mine();
});
afterAll(() => c.close());

const headState = () => StateTree.load(c.t.chain.blockstore, c.t.chain.head().parentStateRoot);

describe('StateReadState', () => {
  test("a miner's state with go-state-types' field names, its balance and code", async () => {
    const tree = headState();
    const actor = tree.getActor(MINER.id())!;
    const answer = (await call(c.url(), 'Filecoin.StateReadState', ['t01000', null])).result as Record<string, object>;
    expect(answer.Balance).toBe(actor.balance.toString());
    expect(answer.Code).toEqual(cidToLotusJson(ACTOR_CODES.storageminer));
    expect(Object.keys(answer.State as object)).toEqual([
      'Info',
      'PreCommitDeposits',
      'LockedFunds',
      'VestingFunds',
      'FeeDebt',
      'InitialPledge',
      'PreCommittedSectors',
      'PreCommittedSectorsCleanUp',
      'AllocatedSectors',
      'Sectors',
      'ProvingPeriodStart',
      'CurrentDeadline',
      'Deadlines',
      'EarlyTerminations',
      'DeadlineCronActive',
    ]);
    const state = minerStateCodec.decode(getBlock(tree.store, actor.head));
    expect(answer.State).toEqual(JSON.parse(JSON.stringify(minerStateStruct.toLotusJson(state))));
  });

  test("an account's and the init actor's state; v0 answers the same", async () => {
    const alice = (await call(c.url(), 'Filecoin.StateReadState', [keys.alice.address.toString(), null])).result;
    expect(alice).toMatchObject({
      Code: cidToLotusJson(ACTOR_CODES.account),
      State: { Address: keys.alice.address.toString() },
    });
    const init = (await call(c.url(0), 'Filecoin.StateReadState', ['t01', null])).result;
    expect(init).toMatchObject({
      Balance: '0',
      State: {
        AddressMap: expect.anything(),
        NextID: expect.any(Number),
        NetworkName: headState().initState().networkName,
      },
    });
  });

  test('no actor is error code 11; a malformed address is -32602', async () => {
    expect((await call(c.url(), 'Filecoin.StateReadState', ['t099999', null])).error).toEqual({
      code: 11,
      message: 'actor not found: t099999',
    });
    expect((await call(c.url(), 'Filecoin.StateReadState', ['nope', null])).error?.code).toBe(-32602);
  });
});

describe('StateListActors and StateLookupRobustAddress', () => {
  test('every actor of the state, as ID addresses', async () => {
    const listed = (await call(c.url(), 'Filecoin.StateListActors', [null])).result as string[];
    expect(listed).toEqual([...headState().actors()].map(([id]) => `t0${id}`));
    expect(listed).toEqual(expect.arrayContaining(['t00', 't01', 't02', 't01000']));
  });

  test('the robust address the init actor maps to an ID; errors for a robust input or an unmapped ID (v1 only)', async () => {
    const tree = headState();
    const aliceId = tree.lookupId(keys.alice.address)!;
    expect((await call(c.url(), 'Filecoin.StateLookupRobustAddress', [`t0${aliceId}`, null])).result).toBe(
      keys.alice.address.toString(),
    );
    expect(
      (await call(c.url(), 'Filecoin.StateLookupRobustAddress', [keys.alice.address.toString(), null])).error,
    ).toEqual({ code: 1, message: expect.stringContaining('is not an ID address') });
    expect((await call(c.url(), 'Filecoin.StateLookupRobustAddress', [`t0${INIT_ACTOR_ID}`, null])).error).toEqual({
      code: 1,
      message: 'Address t01 not found',
    });
    expect((await call(c.url(0), 'Filecoin.StateLookupRobustAddress', ['t01', null])).error?.code).toBe(-32601);
  });
});

describe('StateGetNetworkParams', () => {
  test("Lotus's NetworkParams: every upgrade up to the genesis network version before genesis, the next never", async () => {
    const reply = await post(c.url(), { jsonrpc: '2.0', id: 1, method: 'Filecoin.StateGetNetworkParams', params: [] });
    const params = JSON.parse(reply.text).result;
    expect(params).toMatchObject({
      NetworkName: headState().initState().networkName,
      BlockDelaySecs: Number(PARAMS.blockDelaySecs),
      ConsensusMinerMinPower: PARAMS.consensusMinerMinPower.toString(),
      PreCommitChallengeDelay: Number(PARAMS.minerPolicy.preCommitChallengeDelay),
      Eip155ChainID: PARAMS.eip155ChainId,
      GenesisTimestamp: Number(GENESIS_TIMESTAMP),
    });
    // Lotus api.ForkUpgradeParams, in its field order.
    expect(Object.keys(params.ForkUpgradeParams)).toEqual([
      'UpgradeSmokeHeight',
      'UpgradeBreezeHeight',
      'UpgradeIgnitionHeight',
      'UpgradeLiftoffHeight',
      'UpgradeAssemblyHeight',
      'UpgradeRefuelHeight',
      'UpgradeTapeHeight',
      'UpgradeKumquatHeight',
      'BreezeGasTampingDuration',
      'UpgradeCalicoHeight',
      'UpgradePersianHeight',
      'UpgradeOrangeHeight',
      'UpgradeClausHeight',
      'UpgradeTrustHeight',
      'UpgradeNorwegianHeight',
      'UpgradeTurboHeight',
      'UpgradeHyperdriveHeight',
      'UpgradeChocolateHeight',
      'UpgradeOhSnapHeight',
      'UpgradeSkyrHeight',
      'UpgradeSharkHeight',
      'UpgradeHyggeHeight',
      'UpgradeLightningHeight',
      'UpgradeThunderHeight',
      'UpgradeWatermelonHeight',
      'UpgradeDragonHeight',
      'UpgradePhoenixHeight',
      'UpgradeWaffleHeight',
      'UpgradeTuktukHeight',
      'UpgradeTeepHeight',
      'UpgradeTockHeight',
      'UpgradeGoldenWeekHeight',
      'UpgradeFireHorseHeight',
      'UpgradeXxHeight',
    ]);
    expect(params.ForkUpgradeParams).toMatchObject({ UpgradeFireHorseHeight: -1, BreezeGasTampingDuration: 0 });
    // math.MaxInt64 − 1, written exactly (a JavaScript number could not hold it).
    expect(reply.text).toContain('"UpgradeXxHeight":9223372036854775806');
  });
});

describe('circulating supply', () => {
  test('StateCirculatingSupply: accounts in full, miners less what they hold locked; the protocol’s actors not', async () => {
    const tree = headState();
    let expected = 0n;
    for (const [, actor] of tree.actors()) {
      const name = actorNameOf(actor.code);
      if (name === 'account' && actor.balance > 0n) expected += actor.balance;
      if (name === 'storageminer') {
        expected += availableBalance(minerStateCodec.decode(getBlock(tree.store, actor.head)), actor.balance);
      }
    }
    // Protocol accounts (burnt funds f099, the f090 reserve) hold tokens but never circulate.
    for (const id of [99n, 90n]) expected -= tree.getActor(id)?.balance ?? 0n;
    expect((await call(c.url(), 'Filecoin.StateCirculatingSupply', [null])).result).toBe(expected.toString());
  });

  test('StateVMCirculatingSupplyInternal: the VM’s figure and parts that add up to it', async () => {
    const tree = headState();
    const supply = (await call(c.url(), 'Filecoin.StateVMCirculatingSupplyInternal', [null])).result as Record<
      string,
      string
    >;
    expect(Object.keys(supply)).toEqual([
      'FilVested',
      'FilMined',
      'FilBurnt',
      'FilLocked',
      'FilCirculating',
      'FilReserveDisbursed',
    ]);
    const [vested, mined, burnt, locked, circulating, disbursed] = Object.values(supply).map(BigInt) as bigint[];
    expect(circulating).toBe(circulatingSupply(tree, PARAMS));
    expect(vested! + mined! + disbursed! - burnt! - locked!).toBe(circulating);
    const power = tree.getActor(4n)!;
    expect(locked).toBe(powerStateCodec.decode(getBlock(tree.store, power.head)).totalPledgeCollateral);
    expect(mined).toBe(PARAMS.initialRewardBalance - tree.getActor(REWARD_ACTOR_ID)!.balance);
    expect(mined).toBeGreaterThan(0n);
  });

  test('an unknown tipset is an error', async () => {
    const unknown = [cidToLotusJson(c.t.chain.genesis.parentStateRoot)];
    expect((await call(c.url(), 'Filecoin.StateCirculatingSupply', [unknown])).error?.code).toBe(1);
    expect((await call(c.url(), 'Filecoin.StateVMCirculatingSupplyInternal', [unknown])).error?.code).toBe(1);
  });
});

describe('StateGetBeaconEntry', () => {
  let b: ChainServer;
  const entry = (round: bigint): BeaconEntry => ({ round, data: new Uint8Array(96).fill(Number(round % 256n)) });
  // The beacon round an epoch reads: a schedule as a drand network's (a fixed offset here).
  const roundOf = (epoch: bigint) => epoch + 100n;

  beforeAll(async () => {
    b = await startChainServer({ chain: { beaconSchedule: roundOf } });
    for (let i = 1n; i <= 3n; i++) await b.t.mine([{ beaconEntries: [entry(roundOf(i))] }]);
  });
  afterAll(() => b.close());

  test('the entry an epoch reads, from the canonical chain; v1 only', async () => {
    const json = (round: bigint) => ({ Round: Number(round), Data: toBase64(entry(round).data) });
    expect((await call(b.url(), 'Filecoin.StateGetBeaconEntry', [2])).result).toEqual(json(102n));
    expect((await call(b.url(), 'Filecoin.StateGetBeaconEntry', [3])).result).toEqual(json(103n));
    expect((await call(b.url(0), 'Filecoin.StateGetBeaconEntry', [2])).error?.code).toBe(-32601);
    expect((await call(b.url(), 'Filecoin.StateGetBeaconEntry', [{ epoch: 2 }])).error?.code).toBe(-32602);
  });

  test('an epoch above the head waits for the chain to get there', async () => {
    const answer = call(b.url(), 'Filecoin.StateGetBeaconEntry', [4]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await b.t.mine([{ beaconEntries: [entry(104n)] }]);
    expect((await answer).result).toEqual({ Round: 104, Data: toBase64(entry(104n).data) });
  });
});

const keyJson = (tipSet: TipSet) => tipSet.cids.map(cidToLotusJson);

describe('StateGetRandomnessDigestFromTickets, StateGetRandomnessDigestFromBeacon', () => {
  let b: ChainServer;
  const entry = (round: bigint): BeaconEntry => ({ round, data: new Uint8Array(96).fill(Number(round % 200n) + 1) });
  const roundOf = (epoch: bigint) => epoch + 100n;

  beforeAll(async () => {
    b = await startChainServer({ chain: { beaconSchedule: roundOf } });
    for (let i = 1n; i <= 3n; i++) await b.t.mine([{ beaconEntries: [entry(roundOf(i))] }]);
  });
  afterAll(() => b.close());

  test('the ticket digest hashes the min ticket at the epoch; drawn with a tag and entropy it is StateGetRandomnessFromTickets', async () => {
    const head = b.t.chain.head();
    const digest = (await call(b.url(), 'Filecoin.StateGetRandomnessDigestFromTickets', [2, keyJson(head)])).result;
    const atTwo = b.t.chain.getTipSetByHeight(2n, head, false);
    expect(digest).toBe(toBase64(blake2b256(atTwo.minTicketBlock.ticket!.vrfProof)));
    const entropy = new Uint8Array([1, 2, 3]);
    const drawn = await call(b.url(), 'Filecoin.StateGetRandomnessFromTickets', [5, 2, toBase64(entropy), null]);
    expect(drawn.result).toBe(
      toBase64(drawRandomnessFromDigest(Buffer.from(digest as string, 'base64'), 5n, 2n, entropy)),
    );
  });

  test('the beacon digest hashes the entry the epoch reads; drawn it is StateGetRandomnessFromBeacon', async () => {
    const digest = (await call(b.url(), 'Filecoin.StateGetRandomnessDigestFromBeacon', [3, null])).result;
    expect(digest).toBe(toBase64(blake2b256(entry(roundOf(3n)).data)));
    const drawn = await call(b.url(), 'Filecoin.StateGetRandomnessFromBeacon', [2, 3, null, null]);
    expect(drawn.result).toBe(
      toBase64(drawRandomnessFromDigest(Buffer.from(digest as string, 'base64'), 2n, 3n, new Uint8Array(0))),
    );
  });

  test('an epoch above the tipset is an error; v1 only; a bad epoch is an invalid parameter', async () => {
    const genesisKey = keyJson(b.t.chain.genesis);
    expect((await call(b.url(), 'Filecoin.StateGetRandomnessDigestFromTickets', [1, genesisKey])).error).toEqual({
      code: 1,
      message: expect.stringContaining('cannot draw randomness from the future'),
    });
    expect((await call(b.url(0), 'Filecoin.StateGetRandomnessDigestFromBeacon', [1, null])).error?.code).toBe(-32601);
    expect((await call(b.url(), 'Filecoin.StateGetRandomnessDigestFromBeacon', ['one', null])).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('randEpoch'),
    });
  });
});

describe('StateActorCodeCIDs', () => {
  test("the code CID of each actor by manifest name, for the node's network version, on v0 and v1", async () => {
    for (const version of [0, 1] as const) {
      const codes = (await call(c.url(version), 'Filecoin.StateActorCodeCIDs', [PARAMS.networkVersion])).result;
      expect(codes).toEqual(
        Object.fromEntries(Object.entries(ACTOR_CODES).map(([n, code]) => [n, cidToLotusJson(code)])),
      );
    }
    const alice = (await call(c.url(), 'Filecoin.StateGetActor', [keys.alice.address.toString(), null])).result;
    const codes = (await call(c.url(), 'Filecoin.StateActorCodeCIDs', [PARAMS.networkVersion])).result;
    expect((codes as Record<string, unknown>).account).toEqual((alice as { Code: unknown }).Code);
  });

  test('another network version is an error saying which one the node runs; a bad version is an invalid parameter', async () => {
    expect((await call(c.url(), 'Filecoin.StateActorCodeCIDs', [PARAMS.networkVersion - 1])).error).toEqual({
      code: 1,
      message: expect.stringContaining(`this node runs network version ${PARAMS.networkVersion}`),
    });
    expect((await call(c.url(), 'Filecoin.StateActorCodeCIDs', [-1])).error?.code).toBe(-32602);
  });
});

describe('StateChangedActors', () => {
  test("the actors a tipset's messages changed, by ID address, as StateGetActor has them after", async () => {
    const { alice, bob } = keys;
    const included = await c.t.mine([
      { secp: [signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL }))] },
    ]);
    const executed = await c.t.mine();
    const before = included.parentStateRoot;
    const after = executed.parentStateRoot;
    const changed = (
      await call(c.url(), 'Filecoin.StateChangedActors', [cidToLotusJson(before), cidToLotusJson(after)])
    ).result as Record<string, unknown>;

    const oldTree = StateTree.load(c.t.chain.blockstore, before);
    const newTree = StateTree.load(c.t.chain.blockstore, after);
    const idOf = (address: Address) => newTree.lookupId(address)!;
    for (const id of [idOf(alice.address), idOf(bob.address)]) {
      expect(changed[Address.newId(id).toString()]).toEqual(
        JSON.parse(JSON.stringify(actorToLotusJson(newTree.getActor(id)!))),
      );
    }
    // Exactly the actors whose record differs: the system actor's does not.
    expect(changed[Address.newId(SYSTEM_ACTOR_ID).toString()]).toBeUndefined();
    for (const [id, actor] of newTree.actors()) {
      const same =
        JSON.stringify(oldTree.getActor(id) && actorToLotusJson(oldTree.getActor(id)!)) ===
        JSON.stringify(actorToLotusJson(actor));
      expect(changed[Address.newId(id).toString()] === undefined).toBe(same);
    }
    expect(
      (await call(c.url(), 'Filecoin.StateChangedActors', [cidToLotusJson(after), cidToLotusJson(after)])).result,
    ).toEqual({});
  });

  test('a root that is not in the store is an error naming which; a malformed CID is an invalid parameter', async () => {
    const missing = cidToLotusJson(cidOfCbor(encodeCbor('no such state')));
    const root = cidToLotusJson(c.t.chain.head().parentStateRoot);
    expect((await call(c.url(), 'Filecoin.StateChangedActors', [missing, root])).error).toEqual({
      code: 1,
      message: expect.stringContaining('failed to load old state tree'),
    });
    expect((await call(c.url(), 'Filecoin.StateChangedActors', [root, missing])).error).toEqual({
      code: 1,
      message: expect.stringContaining('failed to load new state tree'),
    });
    expect((await call(c.url(), 'Filecoin.StateChangedActors', [root, 'bafy…'])).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('new'),
    });
  });
});
