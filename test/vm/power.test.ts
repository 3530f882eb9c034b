/**
 * The storage power actor as builtin-actors v18 has it (`actors/power/src/lib.rs`, `state.rs`,
 * `runtime/src/util/multimap.rs`). State level: the cron event queue (zigzag-varint epoch keys, a
 * HAMT of AMTs, both of bit width 6), the walk over the due epochs, and claim accounting around the
 * consensus minimum, on the production preset's 10 TiB as well as the devnet's 2 KiB. Through the VM:
 * EnrollCronEvent's caller rule and OnEpochTickEnd's order, with a miner whose callback fails.
 */
import { Amt, getBlock, Hamt, MemoryBlockstore } from '../../src/ipld/index.js';
import { DEVNET_2K, MAINNET } from '../../src/params/index.js';
import { CRON_ACTOR_ID, REWARD_ACTOR_ID, STORAGE_POWER_ACTOR_ID } from '../../src/state/index.js';
import { cidOfCbor } from '../../src/types/cid.js';
import { Address, type CID, decodeCbor } from '../../src/types/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { enrollCronEventParams } from '../../src/vm/actors/method-params.js';
import { deferredCronEventParams } from '../../src/vm/actors/miner/params.js';
import * as Power from '../../src/vm/actors/power-state.js';
import type { ActorError } from '../../src/vm/errors.js';
import {
  CronMethod,
  ExitCode,
  MinerMethod,
  PowerMethod,
  powerStateCodec,
  RewardMethod,
  rewardStateCodec,
  Vm,
} from '../../src/vm/index.js';
import { applyAt, block } from '../helpers/apply-tipset.js';
import { GENESIS_TIMESTAMP, type GenesisState, MINER, PARAMS, standardGenesis } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { loadTree } from '../helpers/state.js';

const TiB = 1n << 40n;
/** The empty HAMT every builtin actor starts its maps with (Lotus `adt.EmptyMap`). */
const EMPTY_HAMT = 'bafy2bzaceamp42wmmgr2g2ymg46euououzfyck7szknvfacqscohrvaikwfay';

const miner = (id: bigint) => Address.newId(id);
const event = (id: bigint, payload: number[]): Power.CronEvent => ({
  minerAddr: miner(id),
  callbackPayload: Uint8Array.from(payload),
});

function exitCodeOf(action: () => void): ExitCode | undefined {
  try {
    action();
  } catch (error) {
    return (error as ActorError).exitCode;
  }
  return undefined;
}

/** A power state whose claims are `ids`, each with no power (as CreateMiner leaves them). */
function withClaims(store: MemoryBlockstore, ids: readonly bigint[]): Power.PowerState {
  const state = Power.newPowerState(store);
  const claims = Power.loadClaims(store, state);
  for (const id of ids)
    Power.setClaim(claims, miner(id), { windowPoStProofType: 13n, rawBytePower: 0n, qualityAdjPower: 0n });
  state.claims = claims.flush();
  state.minerCount = BigInt(ids.length);
  return state;
}

describe('the cron event queue', () => {
  test('keys are zigzag varints of the epoch (builtin-actors epoch_key_test)', () => {
    expect([101n, 102n, 103n, -1n].map((epoch) => toHex(Power.cronEpochKey(epoch)))).toEqual([
      'ca01',
      'cc01',
      'ce01',
      '01',
    ]);
  });

  test('a new state’s queue is the empty map', () => {
    expect(Power.newPowerState(new MemoryBlockstore()).cronEventQueue.toString()).toBe(EMPTY_HAMT);
  });

  test('events are appended per epoch to AMTs of bit width 6 under a HAMT of bit width 6', () => {
    const store = new MemoryBlockstore();
    const state = withClaims(store, [1000n]);
    state.firstCronEpoch = 50n;
    Power.appendCronEvent(store, state, 60n, event(1000n, [0x81, 0x01]));
    Power.appendCronEvent(store, state, 60n, event(1000n, [0x81, 0x02]));
    expect(state.firstCronEpoch).toBe(50n);
    expect(Power.cronEventsAt(store, state, 60n)).toEqual([event(1000n, [0x81, 0x01]), event(1000n, [0x81, 0x02])]);

    // The layout, read with the plain IPLD structures: key → AMT root → [address bytes, payload].
    const queue = Hamt.load(store, state.cronEventQueue, { bitWidth: 6 });
    const listRoot = queue.get(Power.cronEpochKey(60n)) as CID;
    const list = Amt.load(store, listRoot);
    expect([list.bitWidth, list.count]).toEqual([6, 2]);
    expect(list.get(1)).toEqual([miner(1000n).bytes, Uint8Array.from([0x81, 0x02])]);
    expect(decodeCbor(getBlock(store, listRoot))).toEqual([6, 0, 2, expect.anything()]);
  });

  test('an event for an epoch before firstCronEpoch (even a past one) moves it back', () => {
    const store = new MemoryBlockstore();
    const state = withClaims(store, [1000n]);
    state.firstCronEpoch = 101n;
    Power.appendCronEvent(store, state, 40n, event(1000n, [0x81, 0x01]));
    expect(state.firstCronEpoch).toBe(40n);
    Power.appendCronEvent(store, state, 70n, event(1000n, [0x81, 0x01]));
    expect(state.firstCronEpoch).toBe(40n);
    // The next cron (at 100) still calls it.
    expect(Power.takeDueCronEvents(store, state, 100n).map((e) => e.callbackPayload)).toHaveLength(2);
  });

  test('the walk takes every due epoch in order, skips miners without a claim, and leaves later ones', () => {
    const store = new MemoryBlockstore();
    const state = withClaims(store, [1000n, 1001n]);
    state.firstCronEpoch = 5n;
    Power.appendCronEvent(store, state, 7n, event(1001n, [0x81, 0x01]));
    Power.appendCronEvent(store, state, 5n, event(1000n, [0x81, 0x01]));
    Power.appendCronEvent(store, state, 7n, event(1002n, [0x81, 0x01])); // no claim: dropped, never called
    Power.appendCronEvent(store, state, 7n, event(1000n, [0x81, 0x02]));
    Power.appendCronEvent(store, state, 9n, event(1000n, [0x81, 0x01]));

    const due = Power.takeDueCronEvents(store, state, 8n);
    expect(due).toEqual([event(1000n, [0x81, 0x01]), event(1001n, [0x81, 0x01]), event(1000n, [0x81, 0x02])]);
    expect(state.firstCronEpoch).toBe(9n);
    expect([Power.cronEventsAt(store, state, 5n), Power.cronEventsAt(store, state, 7n)]).toEqual([[], []]);
    expect(Power.cronEventsAt(store, state, 9n)).toEqual([event(1000n, [0x81, 0x01])]);

    // Nothing due: only firstCronEpoch moves.
    const root = state.cronEventQueue;
    expect(Power.takeDueCronEvents(store, state, 8n)).toEqual([]);
    expect([state.cronEventQueue.equals(root), state.firstCronEpoch]).toEqual([true, 9n]);
    expect(Power.takeDueCronEvents(store, state, 9n)).toHaveLength(1);
    expect(state.cronEventQueue.toString()).toBe(EMPTY_HAMT);
  });
});

describe('claims and the consensus minimum', () => {
  const minimum = MAINNET.consensusMinerMinPower;

  test('the production preset’s minimum is 10 TiB', () => {
    expect([MAINNET.consensusMinerMinPower, DEVNET_2K.consensusMinerMinPower]).toEqual([10n * TiB, 2048n]);
  });

  test('a claim joins the totals whole when it reaches the minimum and leaves them whole below it', () => {
    const store = new MemoryBlockstore();
    const state = withClaims(store, [1000n]);
    const claims = Power.loadClaims(store, state);
    Power.addToClaim(state, claims, miner(1000n), 4n * TiB, 40n * TiB, minimum);
    expect([state.minerAboveMinPowerCount, state.totalRawBytePower, state.totalBytesCommitted]).toEqual([
      0n,
      0n,
      4n * TiB,
    ]);
    Power.addToClaim(state, claims, miner(1000n), 6n * TiB, 6n * TiB, minimum);
    expect(state.minerAboveMinPowerCount).toBe(1n);
    expect([state.totalRawBytePower, state.totalQualityAdjPower]).toEqual([10n * TiB, 46n * TiB]);
    Power.addToClaim(state, claims, miner(1000n), 1n * TiB, 1n * TiB, minimum);
    expect([state.totalRawBytePower, state.totalQualityAdjPower]).toEqual([11n * TiB, 47n * TiB]);
    Power.addToClaim(state, claims, miner(1000n), -2n * TiB, -2n * TiB, minimum);
    expect([state.minerAboveMinPowerCount, state.totalRawBytePower, state.totalQualityAdjPower]).toEqual([0n, 0n, 0n]);
    expect([state.totalBytesCommitted, state.totalQaBytesCommitted]).toEqual([9n * TiB, 45n * TiB]);
    expect(Power.getClaim(claims, miner(1000n))).toEqual({
      windowPoStProofType: 13n,
      rawBytePower: 9n * TiB,
      qualityAdjPower: 45n * TiB,
    });
  });

  test('below four miners at the minimum every byte counts; from four on, only theirs', () => {
    const store = new MemoryBlockstore();
    const state = withClaims(store, [1000n, 1001n, 1002n, 1003n, 1004n]);
    const claims = Power.loadClaims(store, state);
    Power.addToClaim(state, claims, miner(1004n), TiB, TiB, minimum);
    for (const id of [1000n, 1001n, 1002n]) Power.addToClaim(state, claims, miner(id), 10n * TiB, 10n * TiB, minimum);
    const small = Power.getClaim(claims, miner(1004n))!;
    expect(Power.currentTotalPower(state)).toEqual({ raw: 31n * TiB, qa: 31n * TiB });
    expect(Power.meetsConsensusMinimum(state, small, minimum)).toBe(true);

    Power.addToClaim(state, claims, miner(1003n), 10n * TiB, 10n * TiB, minimum);
    expect(state.minerAboveMinPowerCount).toBe(4n);
    expect(Power.currentTotalPower(state)).toEqual({ raw: 40n * TiB, qa: 40n * TiB });
    expect(Power.meetsConsensusMinimum(state, small, minimum)).toBe(false);
    expect(Power.meetsConsensusMinimum(state, Power.getClaim(claims, miner(1003n))!, minimum)).toBe(true);

    // One drops below again: back to counting everything.
    Power.addToClaim(state, claims, miner(1003n), -1n, -1n, minimum);
    expect(state.minerAboveMinPowerCount).toBe(3n);
    expect(Power.currentTotalPower(state)).toEqual({ raw: 41n * TiB - 1n, qa: 41n * TiB - 1n });
  });

  test('a missing claim is USR_NOT_FOUND; power below zero is USR_ILLEGAL_STATE', () => {
    const store = new MemoryBlockstore();
    const state = withClaims(store, [1000n]);
    const claims = Power.loadClaims(store, state);
    expect(exitCodeOf(() => Power.addToClaim(state, claims, miner(1001n), 1n, 1n, minimum))).toBe(ExitCode.UsrNotFound);
    expect(exitCodeOf(() => Power.addToClaim(state, claims, miner(1000n), -1n, 0n, minimum))).toBe(
      ExitCode.UsrIllegalState,
    );
    expect(exitCodeOf(() => Power.addToClaim(state, claims, miner(1000n), 0n, -1n, minimum))).toBe(
      ExitCode.UsrIllegalState,
    );
    expect(Power.getClaim(claims, miner(1000n))!.rawBytePower).toBe(0n);
  });

  test('deleting a claim takes its power out of every total first', () => {
    const store = new MemoryBlockstore();
    const state = withClaims(store, [1000n, 1001n]);
    const claims = Power.loadClaims(store, state);
    Power.addToClaim(state, claims, miner(1000n), 10n * TiB, 100n * TiB, minimum);
    Power.addToClaim(state, claims, miner(1001n), TiB, TiB, minimum);
    Power.deleteClaim(state, claims, miner(1000n), minimum);
    expect(Power.getClaim(claims, miner(1000n))).toBeUndefined();
    expect(state.minerAboveMinPowerCount).toBe(0n);
    expect([state.totalRawBytePower, state.totalQualityAdjPower]).toEqual([0n, 0n]);
    expect([state.totalBytesCommitted, state.totalQaBytesCommitted]).toEqual([TiB, TiB]);
    Power.deleteClaim(state, claims, miner(1000n), minimum); // already gone: nothing happens
    expect(state.totalBytesCommitted).toBe(TiB);
  });
});

function readPowerState(chain: GenesisState, root: CID): Power.PowerState {
  const tree = loadTree(chain, root);
  return powerStateCodec.decode(getBlock(chain.store, tree.getActor(STORAGE_POWER_ACTOR_ID)!.head));
}

/**
 * Runs EnrollCronEvent with the genesis miner as the caller (an implicit message from it, as its own
 * methods would send) on `root` at epoch 0; returns the exit code and the new root.
 */
function enrollAsMiner(chain: GenesisState, root: CID, eventEpoch: bigint, payload: number[]) {
  const vm = new Vm(loadTree(chain, root), {
    networkParams: PARAMS,
    epoch: 0n,
    timestamp: GENESIS_TIMESTAMP,
    baseFee: PARAMS.minimumBaseFee,
    circulatingSupply: 0n,
    tracing: false,
  });
  const applied = vm.applyImplicitMessage(
    message({
      from: MINER,
      to: Address.newId(STORAGE_POWER_ACTOR_ID),
      method: PowerMethod.EnrollCronEvent,
      params: enrollCronEventParams.encode({ eventEpoch, payload: Uint8Array.from(payload) }),
    }),
  );
  return { exitCode: applied.receipt.exitCode, root: vm.flush() };
}

describe('through the VM', () => {
  test('EnrollCronEvent is for miners only, at epochs of zero or more', async () => {
    const chain = standardGenesis();
    const enroll = signSecp(
      keys.alice,
      message({
        from: keys.alice.address,
        to: Address.newId(STORAGE_POWER_ACTOR_ID),
        method: PowerMethod.EnrollCronEvent,
        params: enrollCronEventParams.encode({ eventEpoch: 10n, payload: Uint8Array.from([0x81, 0x01]) }),
        gasLimit: 100_000_000n,
      }),
    );
    const result = await applyAt(chain, chain.genesisRoot, 1n, [block([enroll])]);
    expect(result.receipts[0]!.exitCode).toBe(BigInt(ExitCode.UsrForbidden));

    const negative = enrollAsMiner(chain, chain.genesisRoot, -1n, [0x81, 0x01]);
    expect(negative.exitCode).toBe(BigInt(ExitCode.UsrIllegalArgument));
    const enrolled = enrollAsMiner(chain, chain.genesisRoot, 10n, [0x81, 0x01]);
    expect(enrolled.exitCode).toBe(0n);
    expect(Power.cronEventsAt(chain.store, readPowerState(chain, enrolled.root), 10n)).toEqual([
      { minerAddr: MINER, callbackPayload: Uint8Array.from([0x81, 0x01]) },
    ]);
  });

  test('cron calls the due miners between ThisEpochReward and UpdateNetworkKPI; a failing one loses its claim', async () => {
    const chain = standardGenesis();
    // An undecodable payload makes the miner's OnDeferredCronEvent fail.
    const { root } = enrollAsMiner(chain, chain.genesisRoot, 1n, [0xff]);
    const before = readPowerState(chain, root);
    const minerClaim = Power.getClaim(Hamt.load(chain.store, before.claims), MINER)!;
    expect(minerClaim.rawBytePower).toBeGreaterThan(0n);
    const reward = rewardStateCodec.decode(
      getBlock(chain.store, loadTree(chain, root).getActor(REWARD_ACTOR_ID)!.head),
    ).thisEpochRewardSmoothed;

    const result = await applyAt(chain, root, 1n, [block([])], { trace: true });
    const cron = result.invocResults.find(
      (r) => r.msg.to.equals(Address.newId(CRON_ACTOR_ID)) && r.msg.method === CronMethod.EpochTick,
    )!;
    const tick = cron.executionTrace.subcalls[0]!;
    expect(tick.msg.method).toBe(PowerMethod.OnEpochTickEnd);
    // Reward first and last; between them the due callbacks (the genesis miner's own deadline event may be due too).
    const calls = tick.subcalls.map((call) => [call.msg.to.toString(), call.msg.method]);
    expect([calls[0], calls.at(-1)]).toEqual([
      ['f02', RewardMethod.ThisEpochReward],
      ['f02', RewardMethod.UpdateNetworkKPI],
    ]);
    const callbacks = tick.subcalls.slice(1, -1);
    expect(callbacks.map((call) => [call.msg.to.toString(), call.msg.method])).toEqual(
      callbacks.map(() => ['f01000', MinerMethod.OnDeferredCronEvent]),
    );
    const sent = callbacks.map((call) => deferredCronEventParams.decode(call.msg.params));
    const bad = sent.findIndex((params) => params.eventPayload.length === 1 && params.eventPayload[0] === 0xff);
    expect(callbacks[bad]!.msgRct.exitCode).not.toBe(0);
    // Every miner gets this epoch's reward estimate and the power estimate from before this tick.
    for (const params of sent) {
      expect([params.rewardSmoothed, params.qualityAdjPowerSmoothed]).toEqual([
        reward,
        before.thisEpochQaPowerSmoothed,
      ]);
    }
    const failures = callbacks.filter((call) => call.msgRct.exitCode !== 0).length;

    const after = readPowerState(chain, result.stateRoot);
    expect(Power.getClaim(Hamt.load(chain.store, after.claims), MINER)).toBeUndefined();
    // One claim deletion per failed callback, and one miner less for each, as builtin-actors counts them.
    expect(after.minerCount).toBe(before.minerCount - BigInt(failures));
    expect(after.totalBytesCommitted).toBe(before.totalBytesCommitted - minerClaim.rawBytePower);
    expect(after.totalQaBytesCommitted).toBe(before.totalQaBytesCommitted - minerClaim.qualityAdjPower);
    expect(after.thisEpochRawBytePower).toBe(0n);
    expect(after.firstCronEpoch).toBe(2n);
    expect(Power.cronEventsAt(chain.store, after, 1n)).toEqual([]);
    expect(after.thisEpochQaPowerSmoothed).not.toEqual(before.thisEpochQaPowerSmoothed);
  });

  test('the genesis miner’s deadline event calls its OnDeferredCronEvent, which re-enrolls it', async () => {
    const chain = standardGenesis();
    const genesis = readPowerState(chain, chain.genesisRoot);
    // Genesis pre-commits the miner's sectors, which starts its deadline cron (builtin-actors PreCommitSectorBatch2).
    let epoch = genesis.firstCronEpoch;
    while (Power.cronEventsAt(chain.store, genesis, epoch).length === 0 && epoch < 1000n) epoch++;
    expect(Power.cronEventsAt(chain.store, genesis, epoch)).toEqual([
      { minerAddr: MINER, callbackPayload: Uint8Array.from([0x81, 0x01]) },
    ]);

    const result = await applyAt(chain, chain.genesisRoot, epoch, [block([])], { parentEpoch: 0n, trace: true });
    const ticks = result.invocResults
      .filter((r) => r.msg.to.equals(Address.newId(CRON_ACTOR_ID)) && r.msg.method === CronMethod.EpochTick)
      .map((r) => r.executionTrace.subcalls[0]!);
    const callbacks = ticks.flatMap((tick) =>
      tick.subcalls.filter((call) => call.msg.method === MinerMethod.OnDeferredCronEvent),
    );
    expect(callbacks.map((call) => [call.msg.to.toString(), call.msgRct.exitCode])).toEqual([['f01000', 0]]);
    const after = readPowerState(chain, result.stateRoot);
    expect(Power.getClaim(Hamt.load(chain.store, after.claims), MINER)).toBeDefined();
    expect(after.minerCount).toBe(genesis.minerCount);
    // The miner enrolled its next deadline's end, later than this epoch.
    expect(after.firstCronEpoch).toBe(epoch + 1n);
    let next = after.firstCronEpoch;
    while (Power.cronEventsAt(chain.store, after, next).length === 0 && next < epoch + 1000n) next++;
    expect(Power.cronEventsAt(chain.store, after, next)).toEqual([
      { minerAddr: MINER, callbackPayload: Uint8Array.from([0x81, 0x01]) },
    ]);
  });

  test('an event for an address without a claim is dropped without a call', async () => {
    const chain = standardGenesis();
    const tree = loadTree(chain, chain.genesisRoot);
    const alice = Address.newId(tree.lookupId(keys.alice.address)!);
    // Only a miner can enroll, so the event is written straight into the queue, as a deleted miner's would stay.
    const state = readPowerState(chain, chain.genesisRoot);
    Power.appendCronEvent(chain.store, state, 1n, { minerAddr: alice, callbackPayload: Uint8Array.from([0x81, 0x01]) });
    const bytes = powerStateCodec.encode(state);
    chain.store.put(cidOfCbor(bytes), bytes);
    tree.setActor(STORAGE_POWER_ACTOR_ID, { ...tree.getActor(STORAGE_POWER_ACTOR_ID)!, head: cidOfCbor(bytes) });

    const result = await applyAt(chain, tree.flush(), 1n, [block([])], { trace: true });
    const cron = result.invocResults.find(
      (r) => r.msg.to.equals(Address.newId(CRON_ACTOR_ID)) && r.msg.method === CronMethod.EpochTick,
    )!;
    const tick = cron.executionTrace.subcalls[0]!;
    expect(tick.subcalls.some((call) => call.msg.to.equals(alice))).toBe(false);
    expect([tick.subcalls[0]!.msg.method, tick.subcalls.at(-1)!.msg.method]).toEqual([
      RewardMethod.ThisEpochReward,
      RewardMethod.UpdateNetworkKPI,
    ]);
    const after = readPowerState(chain, result.stateRoot);
    expect([Power.cronEventsAt(chain.store, after, 1n), after.firstCronEpoch]).toEqual([[], 2n]);
  });
});
