/**
 * Storage power actor (f04): creates miners and keeps their power claims and the network's totals
 * (builtin-actors `actors/power`). A claim counts towards the totals once the miner reaches the
 * consensus minimum power (or, while fewer than four miners have, from its first byte). Cron ends
 * every epoch here: the totals become "this epoch's" and the reward actor learns the power.
 */
import { ACTOR_CODES, CRON_ACTOR_ID, INIT_ACTOR_ID, REWARD_ACTOR_ID, SYSTEM_ACTOR_ID } from '../../state/index.js';
import { Address, addressKind, declareStruct, kinds, type StructValue } from '../../types/index.js';
import { ExitCode } from '../exit-code.js';
import { InitMethod, PowerMethod, RewardMethod } from '../methods.js';
import type { Runtime } from '../runtime.js';
import { decodeParams, defineActor, encodeReturn, extractSendResult, type MethodHandler } from './actor.js';
import { bigInt, bytesListKind, readBigInt, readUint64 } from './cbor.js';
import {
  currentTotalPowerReturn,
  execParams,
  execReturn,
  minerConstructorParams,
  updateClaimedPowerParams,
} from './method-params.js';
import {
  type Claim,
  claimStruct,
  currentTotalPower,
  getClaim,
  loadClaims,
  meetsConsensusMinimum,
  newPowerState,
  type PowerState,
  powerStateCodec,
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

function setClaim(rt: Runtime, state: PowerState, miner: Address, claim: Claim): void {
  if (claim.rawBytePower < 0n) rt.abort(ExitCode.UsrIllegalState, `negative claim raw power ${claim.rawBytePower}`);
  if (claim.qualityAdjPower < 0n) {
    rt.abort(ExitCode.UsrIllegalState, `negative claim quality-adjusted power ${claim.qualityAdjPower}`);
  }
  const claims = loadClaims(rt.store, state);
  claims.set(miner.bytes, claimStruct.toCborNode(claim));
  state.claims = claims.flush();
}

/** builtin-actors `State::add_to_claim`: changes a claim and the totals it counts towards. */
function addToClaim(rt: Runtime, state: PowerState, miner: Address, raw: bigint, qa: bigint): void {
  const old = getClaim(loadClaims(rt.store, state), miner);
  if (old === undefined) rt.abort(ExitCode.UsrNotFound, `no claim for actor ${miner}`);
  state.totalQaBytesCommitted += qa;
  state.totalBytesCommitted += raw;
  const updated: Claim = {
    windowPoStProofType: old.windowPoStProofType,
    rawBytePower: old.rawBytePower + raw,
    qualityAdjPower: old.qualityAdjPower + qa,
  };
  const minPower = rt.networkParams.consensusMinerMinPower;
  const wasBelow = old.rawBytePower < minPower;
  const stillBelow = updated.rawBytePower < minPower;
  if (wasBelow && !stillBelow) {
    state.minerAboveMinPowerCount += 1n;
    state.totalQualityAdjPower += updated.qualityAdjPower;
    state.totalRawBytePower += updated.rawBytePower;
  } else if (!wasBelow && stillBelow) {
    state.minerAboveMinPowerCount -= 1n;
    state.totalQualityAdjPower -= old.qualityAdjPower;
    state.totalRawBytePower -= old.rawBytePower;
  } else if (!wasBelow && !stillBelow) {
    state.totalQualityAdjPower += qa;
    state.totalRawBytePower += raw;
  }
  if (state.minerAboveMinPowerCount < 0n) {
    rt.abort(ExitCode.UsrIllegalState, `negative amount of miners larger than min: ${state.minerAboveMinPowerCount}`);
  }
  setClaim(rt, state, miner, updated);
}

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
    setClaim(rt, state, idAddress, {
      windowPoStProofType: create.windowPoStProofType,
      rawBytePower: 0n,
      qualityAdjPower: 0n,
    });
    state.minerCount += 1n;
    if (rt.networkParams.consensusMinerMinPower <= 0n) state.minerAboveMinPowerCount += 1n;
  });
  // CreateMinerReturn has ExecReturn's fields.
  return execReturn.encode({ idAddress, robustAddress });
}

function updateClaimedPower(rt: Runtime, params: Uint8Array | null): null {
  const delta = decodeParams(params, updateClaimedPowerParams);
  rt.validateImmediateCallerType('storageminer');
  rt.transaction(powerStateCodec, (state) =>
    addToClaim(rt, state, Address.newId(rt.caller), delta.rawByteDelta, delta.qualityAdjustedDelta),
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
 * End of epoch: snapshot the totals as this epoch's, smooth the QA power estimate, and report the
 * raw power to the reward actor. builtin-actors first runs the miners' deferred cron events; none
 * are ever enrolled here (no window PoSt deadlines), so only the bookkeeping of that step remains.
 */
function onEpochTickEnd(rt: Runtime): null {
  rt.validateImmediateCallerIs(CRON_ACTOR_ID);
  const rawPower = rt.transaction(powerStateCodec, (state) => {
    state.firstCronEpoch = rt.epoch + 1n;
    const { raw, qa } = currentTotalPower(state);
    state.thisEpochPledgeCollateral = state.totalPledgeCollateral;
    state.thisEpochQualityAdjPower = qa;
    state.thisEpochRawBytePower = raw;
    state.thisEpochQaPowerSmoothed = nextEstimate(state.thisEpochQaPowerSmoothed, qa, 1n);
    return raw;
  });
  extractSendResult(
    rt.send(Address.newId(REWARD_ACTOR_ID), RewardMethod.UpdateNetworkKPI, encodeReturn(bigInt(rawPower)), 0n),
    'failed to update network KPI with reward actor',
  );
  return null;
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
