/**
 * Storage power actor (f04): creates miners and keeps their power claims and the network's totals
 * (builtin-actors `actors/power`). A claim counts towards the totals once the miner reaches the
 * consensus minimum power (or, while fewer than four miners have, from its first byte). Cron ends
 * every epoch here: the totals become "this epoch's" and the reward actor learns the power.
 */
import { ACTOR_CODES, CRON_ACTOR_ID, INIT_ACTOR_ID, REWARD_ACTOR_ID, SYSTEM_ACTOR_ID } from '../../state/index.js';
import { Address } from '../../types/index.js';
import { ExitCode } from '../exit-code.js';
import { InitMethod, METHOD_CONSTRUCTOR, PowerMethod, RewardMethod } from '../methods.js';
import type { Runtime } from '../runtime.js';
import {
  type ActorImplementation,
  decodeParams,
  encodeReturn,
  extractSendResult,
  type MethodHandler,
} from './actor.js';
import {
  bigInt,
  type CborNode,
  filterEstimateToCborNode,
  readAddress,
  readArray,
  readBigInt,
  readBytes,
  readInt64,
  readTuple,
  readUint64,
} from './cbor.js';
import {
  type Claim,
  claimToCborNode,
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
export interface CreateMinerParams {
  readonly owner: Address;
  readonly worker: Address;
  readonly windowPoStProofType: bigint;
  readonly peer: Uint8Array;
  readonly multiaddrs: readonly Uint8Array[];
}

export function encodeCreateMinerParams(params: CreateMinerParams): Uint8Array {
  return encodeReturn([
    params.owner.bytes,
    params.worker.bytes,
    params.windowPoStProofType,
    params.peer,
    params.multiaddrs,
  ]);
}

function readCreateMinerParams(node: CborNode, path: string): CreateMinerParams {
  const [owner, worker, proof, peer, multiaddrs] = readTuple(node, path, 5);
  return {
    owner: readAddress(owner, `${path}.Owner`),
    worker: readAddress(worker, `${path}.Worker`),
    windowPoStProofType: readInt64(proof, `${path}.WindowPoStProofType`),
    peer: readBytes(peer, `${path}.Peer`),
    multiaddrs: readArray(multiaddrs, `${path}.Multiaddrs`, readBytes),
  };
}

function setClaim(rt: Runtime, state: PowerState, miner: Address, claim: Claim): void {
  if (claim.rawBytePower < 0n) rt.abort(ExitCode.UsrIllegalState, `negative claim raw power ${claim.rawBytePower}`);
  if (claim.qualityAdjPower < 0n) {
    rt.abort(ExitCode.UsrIllegalState, `negative claim quality-adjusted power ${claim.qualityAdjPower}`);
  }
  const claims = loadClaims(rt.store, state);
  claims.set(miner.bytes, claimToCborNode(claim));
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
  const create = decodeParams(params, 'CreateMinerParams', readCreateMinerParams);
  rt.validateImmediateCallerAcceptAny();
  const constructorParams = encodeReturn([
    create.owner.bytes,
    create.worker.bytes,
    [],
    create.windowPoStProofType,
    create.peer,
    create.multiaddrs,
  ]);
  const execReturn = extractSendResult(
    rt.send(
      Address.newId(INIT_ACTOR_ID),
      InitMethod.Exec,
      encodeReturn([ACTOR_CODES.storageminer, constructorParams]),
      rt.valueReceived,
    ),
    'init Exec of a miner',
  );
  const { idAddress, robustAddress } = decodeParams(execReturn, 'ExecReturn', (node, path) => {
    const [id, robust] = readTuple(node, path, 2);
    return {
      idAddress: readAddress(id, `${path}.IDAddress`),
      robustAddress: readAddress(robust, `${path}.RobustAddress`),
    };
  });
  rt.transaction(powerStateCodec, (state) => {
    setClaim(rt, state, idAddress, {
      windowPoStProofType: create.windowPoStProofType,
      rawBytePower: 0n,
      qualityAdjPower: 0n,
    });
    state.minerCount += 1n;
    if (rt.networkParams.consensusMinerMinPower <= 0n) state.minerAboveMinPowerCount += 1n;
  });
  return encodeReturn([idAddress.bytes, robustAddress.bytes]);
}

function updateClaimedPower(rt: Runtime, params: Uint8Array | null): null {
  const { raw, qa } = decodeParams(params, 'UpdateClaimedPowerParams', (node, path) => {
    const [raw, qa] = readTuple(node, path, 2);
    return { raw: readBigInt(raw, `${path}.RawByteDelta`), qa: readBigInt(qa, `${path}.QualityAdjustedDelta`) };
  });
  rt.validateImmediateCallerType('storageminer');
  rt.transaction(powerStateCodec, (state) => addToClaim(rt, state, Address.newId(rt.caller), raw, qa));
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

/** builtin-actors `CurrentTotalPowerReturn`. */
function currentTotalPowerReturn(rt: Runtime): Uint8Array {
  rt.validateImmediateCallerAcceptAny();
  const state = rt.state(powerStateCodec);
  return encodeReturn([
    bigInt(state.thisEpochRawBytePower),
    bigInt(state.thisEpochQualityAdjPower),
    bigInt(state.thisEpochPledgeCollateral),
    filterEstimateToCborNode(state.thisEpochQaPowerSmoothed),
    state.rampStartEpoch,
    state.rampDurationEpochs,
  ]);
}

function requireClaim(rt: Runtime, state: PowerState, minerId: bigint, code: ExitCode): Claim {
  const claim = getClaim(loadClaims(rt.store, state), Address.newId(minerId));
  if (claim === undefined) rt.abort(code, `no claim for actor: f0${minerId}`);
  return claim;
}

export const powerActor: ActorImplementation = {
  type: 'storagepower',
  methods: new Map<bigint, MethodHandler>([
    [
      METHOD_CONSTRUCTOR,
      (rt) => {
        rt.validateImmediateCallerIs(SYSTEM_ACTOR_ID);
        rt.createState(powerStateCodec, newPowerState(rt.store));
        return null;
      },
    ],
    [PowerMethod.CreateMiner, createMiner],
    [PowerMethod.CreateMinerExported, createMiner],
    [PowerMethod.UpdateClaimedPower, updateClaimedPower],
    [PowerMethod.OnEpochTickEnd, onEpochTickEnd],
    [PowerMethod.UpdatePledgeTotal, updatePledgeTotal],
    [PowerMethod.CurrentTotalPower, currentTotalPowerReturn],
    [
      PowerMethod.NetworkRawPowerExported,
      (rt) => {
        rt.validateImmediateCallerAcceptAny();
        return encodeReturn(bigInt(rt.state(powerStateCodec).thisEpochRawBytePower));
      },
    ],
    [
      PowerMethod.MinerRawPowerExported,
      (rt, params) => {
        const minerId = decodeParams(params, 'MinerRawPowerParams', readUint64);
        rt.validateImmediateCallerAcceptAny();
        const state = rt.state(powerStateCodec);
        const claim = requireClaim(rt, state, minerId, ExitCode.UsrIllegalArgument);
        const meets = meetsConsensusMinimum(state, claim, rt.networkParams.consensusMinerMinPower);
        return encodeReturn([bigInt(claim.rawBytePower), meets]);
      },
    ],
    [
      PowerMethod.MinerCountExported,
      (rt) => {
        rt.validateImmediateCallerAcceptAny();
        return encodeReturn(rt.state(powerStateCodec).minerCount);
      },
    ],
    [
      PowerMethod.MinerConsensusCountExported,
      (rt) => {
        rt.validateImmediateCallerAcceptAny();
        return encodeReturn(rt.state(powerStateCodec).minerAboveMinPowerCount);
      },
    ],
    [
      PowerMethod.MinerPowerExported,
      (rt, params) => {
        const minerId = decodeParams(params, 'MinerPowerParams', readUint64);
        rt.validateImmediateCallerAcceptAny();
        const claim = requireClaim(rt, rt.state(powerStateCodec), minerId, ExitCode.UsrNotFound);
        return encodeReturn([bigInt(claim.rawBytePower), bigInt(claim.qualityAdjPower)]);
      },
    ],
  ]),
};
