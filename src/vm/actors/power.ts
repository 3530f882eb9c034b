/**
 * Storage power actor (f04): creates miners and keeps their power claims and the network's totals
 * (builtin-actors `actors/power`). A claim counts towards the totals once the miner reaches the
 * consensus minimum power (or, while fewer than four miners have, from its first byte). Miners enroll
 * callbacks at future epochs (their deadline ends); cron ends every epoch here by calling the ones
 * due, then the totals become "this epoch's" and the reward actor learns the power.
 */
import { ACTOR_CODES, CRON_ACTOR_ID, INIT_ACTOR_ID, REWARD_ACTOR_ID, SYSTEM_ACTOR_ID } from '../../state/index.js';
import { Address, addressKind, declareStruct, kinds, type StructValue } from '../../types/index.js';
import { ActorError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { InitMethod, MinerMethod, PowerMethod, RewardMethod } from '../methods.js';
import type { Runtime } from '../runtime.js';
import {
  callForReturn,
  decodeParams,
  defineActor,
  encodeReturn,
  extractSendResult,
  type MethodHandler,
} from './actor.js';
import { bigInt, bytesListKind, readBigInt, readUint64 } from './cbor.js';
import {
  currentTotalPowerReturn,
  enrollCronEventParams,
  execParams,
  execReturn,
  minerConstructorParams,
  thisEpochRewardReturn,
  updateClaimedPowerParams,
} from './method-params.js';
import { deferredCronEventParams } from './miner/params.js';
import {
  addToClaim,
  appendCronEvent,
  type Claim,
  currentTotalPower,
  deleteClaim,
  getClaim,
  loadClaims,
  meetsConsensusMinimum,
  newPowerState,
  type PowerState,
  powerStateCodec,
  setClaim,
  takeDueCronEvents,
} from './power-state.js';
import { nextEstimate } from './smoothing.js';

/** builtin-actors `CreateMinerParams`. */
export const createMinerParams = declareStruct('CreateMinerParams', [
  { key: 'owner', json: 'Owner', kind: addressKind },
  { key: 'worker', json: 'Worker', kind: addressKind },
  { key: 'windowPoStProofType', json: 'WindowPoStProofType', kind: kinds.int64 },
  { key: 'peer', json: 'Peer', kind: kinds.bytes },
  { key: 'multiaddrs', json: 'Multiaddrs', kind: bytesListKind },
]);
export type CreateMinerParams = StructValue<typeof createMinerParams>;
export const encodeCreateMinerParams = createMinerParams.encode;

/** builtin-actors `MinerRawPowerReturn`. */
const minerRawPowerReturn = declareStruct('MinerRawPowerReturn', [
  { key: 'rawBytePower', json: 'RawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'meetsConsensusMinimum', json: 'MeetsConsensusMinimum', kind: kinds.bool },
]);

/** builtin-actors `MinerPowerReturn`. */
const minerPowerReturn = declareStruct('MinerPowerReturn', [
  { key: 'rawBytePower', json: 'RawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qualityAdjPower', json: 'QualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
]);

function createMiner(rt: Runtime, params: Uint8Array | null): Uint8Array {
  const create = decodeParams(params, createMinerParams);
  rt.validateImmediateCallerAcceptAny();
  const constructorParams = minerConstructorParams.encode({ ...create, controlAddresses: [], peerId: create.peer });
  const exec = execParams.encode({ code: ACTOR_CODES.storageminer, constructorParams });
  const created = extractSendResult(
    rt.send(Address.newId(INIT_ACTOR_ID), InitMethod.Exec, exec, rt.valueReceived),
    'init Exec of a miner',
  );
  const { idAddress, robustAddress } = decodeParams(created, execReturn);
  rt.transaction(powerStateCodec, (state) => {
    const claims = loadClaims(rt.store, state);
    setClaim(claims, idAddress, {
      windowPoStProofType: create.windowPoStProofType,
      rawBytePower: 0n,
      qualityAdjPower: 0n,
    });
    state.claims = claims.flush();
    state.minerCount += 1n;
    if (rt.networkParams.consensusMinerMinPower <= 0n) state.minerAboveMinPowerCount += 1n;
  });
  // CreateMinerReturn has ExecReturn's fields.
  return execReturn.encode({ idAddress, robustAddress });
}

function updateClaimedPower(rt: Runtime, params: Uint8Array | null): null {
  const delta = decodeParams(params, updateClaimedPowerParams);
  rt.validateImmediateCallerType('storageminer');
  rt.transaction(powerStateCodec, (state) => {
    const claims = loadClaims(rt.store, state);
    const minPower = rt.networkParams.consensusMinerMinPower;
    addToClaim(state, claims, Address.newId(rt.caller), delta.rawByteDelta, delta.qualityAdjustedDelta, minPower);
    state.claims = claims.flush();
  });
  return null;
}

function enrollCronEvent(rt: Runtime, params: Uint8Array | null): null {
  const { eventEpoch, payload } = decodeParams(params, enrollCronEventParams);
  rt.validateImmediateCallerType('storageminer');
  // A large negative epoch would make the next cron walk every epoch up to now.
  if (eventEpoch < 0n) rt.abort(ExitCode.UsrIllegalArgument, `cron event epoch ${eventEpoch} cannot be less than zero`);
  rt.transaction(powerStateCodec, (state) =>
    appendCronEvent(rt.store, state, eventEpoch, { minerAddr: Address.newId(rt.caller), callbackPayload: payload }),
  );
  return null;
}

function updatePledgeTotal(rt: Runtime, params: Uint8Array | null): null {
  const delta = decodeParams(params, 'UpdatePledgeTotalParams', readBigInt);
  rt.validateImmediateCallerType('storageminer');
  rt.transaction(powerStateCodec, (state) => {
    if (getClaim(loadClaims(rt.store, state), Address.newId(rt.caller)) === undefined) {
      rt.abort(ExitCode.UsrForbidden, `unknown miner f0${rt.caller} forbidden to interact with power actor`);
    }
    state.totalPledgeCollateral += delta;
    if (state.totalPledgeCollateral < 0n) {
      rt.abort(ExitCode.UsrIllegalState, `negative total pledge collateral ${state.totalPledgeCollateral}`);
    }
  });
  return null;
}

/**
 * End of epoch, in builtin-actors' order: read this epoch's reward, run the miners' callbacks that are
 * due, freeze the totals as this epoch's and smooth the QA power estimate, then report the raw power to
 * the reward actor.
 */
function onEpochTickEnd(rt: Runtime): null {
  rt.validateImmediateCallerIs(CRON_ACTOR_ID);
  const reward = callForReturn(
    rt,
    REWARD_ACTOR_ID,
    RewardMethod.ThisEpochReward,
    thisEpochRewardReturn,
    'failed to check epoch baseline power',
  );
  processDeferredCronEvents(rt, reward);
  const rawPower = rt.transaction(powerStateCodec, (state) => {
    const { raw, qa } = currentTotalPower(state);
    state.thisEpochPledgeCollateral = state.totalPledgeCollateral;
    state.thisEpochQualityAdjPower = qa;
    state.thisEpochRawBytePower = raw;
    // Cron runs every epoch, null rounds included, so one epoch has passed.
    state.thisEpochQaPowerSmoothed = nextEstimate(state.thisEpochQaPowerSmoothed, qa, 1n);
    return raw;
  });
  extractSendResult(
    rt.send(Address.newId(REWARD_ACTOR_ID), RewardMethod.UpdateNetworkKPI, encodeReturn(bigInt(rawPower)), 0n),
    'failed to update network KPI with reward actor',
  );
  return null;
}

/**
 * builtin-actors `process_deferred_cron_events`: calls OnDeferredCronEvent of each miner whose event
 * is due, with the QA power estimate as it stood before this epoch's update. A miner whose callback
 * fails loses its claim (its power leaves the totals) and stops counting as a miner; its event is not
 * retried.
 */
function processDeferredCronEvents(rt: Runtime, reward: StructValue<typeof thisEpochRewardReturn>): void {
  const qualityAdjPowerSmoothed = rt.state(powerStateCodec).thisEpochQaPowerSmoothed;
  const due = rt.transaction(powerStateCodec, (state) => takeDueCronEvents(rt.store, state, rt.epoch));
  const failed: Address[] = [];
  for (const event of due) {
    const params = deferredCronEventParams.encode({
      eventPayload: event.callbackPayload,
      rewardSmoothed: reward.thisEpochRewardSmoothed,
      qualityAdjPowerSmoothed,
    });
    const result = rt.send(event.minerAddr, MinerMethod.OnDeferredCronEvent, params, 0n);
    if (result.exitCode !== ExitCode.Ok) failed.push(event.minerAddr);
  }
  if (failed.length === 0) return;
  rt.transaction(powerStateCodec, (state) => {
    const claims = loadClaims(rt.store, state);
    for (const miner of failed) {
      try {
        deleteClaim(state, claims, miner, rt.networkParams.consensusMinerMinPower);
      } catch (error) {
        // builtin-actors logs a claim it cannot delete and goes on with the next one.
        if (error instanceof ActorError) continue;
        throw error;
      }
      state.minerCount -= 1n;
    }
    state.claims = claims.flush();
  });
}

function reportCurrentTotalPower(rt: Runtime): Uint8Array {
  rt.validateImmediateCallerAcceptAny();
  const state = rt.state(powerStateCodec);
  return currentTotalPowerReturn.encode({
    rawBytePower: state.thisEpochRawBytePower,
    qualityAdjPower: state.thisEpochQualityAdjPower,
    pledgeCollateral: state.thisEpochPledgeCollateral,
    qualityAdjPowerSmoothed: state.thisEpochQaPowerSmoothed,
    rampStartEpoch: state.rampStartEpoch,
    rampDurationEpochs: state.rampDurationEpochs,
  });
}

function requireClaim(rt: Runtime, state: PowerState, minerId: bigint, code: ExitCode): Claim {
  const claim = getClaim(loadClaims(rt.store, state), Address.newId(minerId));
  if (claim === undefined) rt.abort(code, `no claim for actor: f0${minerId}`);
  return claim;
}

/** A method anyone may call that returns one value read from the state. */
function stateGetter(read: (state: PowerState) => unknown): MethodHandler {
  return (rt) => {
    rt.validateImmediateCallerAcceptAny();
    return encodeReturn(read(rt.state(powerStateCodec)));
  };
}

export const powerActor = defineActor('storagepower', PowerMethod, {
  Constructor: (rt) => {
    rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
    rt.createState(powerStateCodec, newPowerState(rt.store));
    return null;
  },
  CreateMiner: createMiner,
  UpdateClaimedPower: updateClaimedPower,
  EnrollCronEvent: enrollCronEvent,
  OnEpochTickEnd: onEpochTickEnd,
  UpdatePledgeTotal: updatePledgeTotal,
  CurrentTotalPower: reportCurrentTotalPower,
  NetworkRawPowerExported: stateGetter((state) => bigInt(state.thisEpochRawBytePower)),
  MinerRawPowerExported: (rt, params) => {
    const minerId = decodeParams(params, 'MinerRawPowerParams', readUint64);
    rt.validateImmediateCallerAcceptAny();
    const state = rt.state(powerStateCodec);
    const claim = requireClaim(rt, state, minerId, ExitCode.UsrIllegalArgument);
    const meets = meetsConsensusMinimum(state, claim, rt.networkParams.consensusMinerMinPower);
    return minerRawPowerReturn.encode({ rawBytePower: claim.rawBytePower, meetsConsensusMinimum: meets });
  },
  MinerCountExported: stateGetter((state) => state.minerCount),
  MinerConsensusCountExported: stateGetter((state) => state.minerAboveMinPowerCount),
  MinerPowerExported: (rt, params) => {
    const minerId = decodeParams(params, 'MinerPowerParams', readUint64);
    rt.validateImmediateCallerAcceptAny();
    const claim = requireClaim(rt, rt.state(powerStateCodec), minerId, ExitCode.UsrNotFound);
    return minerPowerReturn.encode(claim);
  },
});
