/**
 * The storage power actor's state (builtin-actors `actors/power/src/state.rs`, 17 fields, exact
 * shape): network power totals, the smoothed quality-adjusted power estimate, each miner's claim in
 * a HAMT keyed by its ID address, and the queue of the miners' deferred cron events. The functions
 * here are `State`'s methods: they change a decoded state and abort as builtin-actors does.
 */
import { type Blockstore, Hamt } from '../../ipld/index.js';
import { type Address, addressKind, declareStruct, kinds, type StructValue } from '../../types/index.js';
import { encodeUvarint } from '../../types/uvarint.js';
import { ActorError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { Mutable, StateCodec } from '../runtime.js';
import { filterEstimateStruct } from './cbor.js';
import { Multimap } from './multimap.js';
import { newFilterEstimate } from './smoothing.js';

/** Below this many miners at the consensus minimum, every miner's power counts (builtin-actors policy). */
const CONSENSUS_MINER_MIN_MINERS = 4n;
/** The cron event queue: a HAMT of epochs whose values are AMTs of events (builtin-actors CRON_QUEUE_*_BITWIDTH). */
const CRON_QUEUE_HAMT_BITWIDTH = 6;
const CRON_QUEUE_AMT_BITWIDTH = 6;

/** builtin-actors `actors/power/src/state.rs` `State`; JSON names as go-state-types `builtin/v16/power`. */
export const powerStateStruct = declareStruct('PowerState', [
  { key: 'totalRawBytePower', json: 'TotalRawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalBytesCommitted', json: 'TotalBytesCommitted', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalQualityAdjPower', json: 'TotalQualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalQaBytesCommitted', json: 'TotalQABytesCommitted', kind: kinds.bigInt, description: 'bytes' },
  { key: 'totalPledgeCollateral', json: 'TotalPledgeCollateral', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'thisEpochRawBytePower', json: 'ThisEpochRawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'thisEpochQualityAdjPower', json: 'ThisEpochQualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'thisEpochPledgeCollateral', json: 'ThisEpochPledgeCollateral', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'thisEpochQaPowerSmoothed', json: 'ThisEpochQAPowerSmoothed', kind: filterEstimateStruct.kind },
  { key: 'minerCount', json: 'MinerCount', kind: kinds.int64 },
  { key: 'minerAboveMinPowerCount', json: 'MinerAboveMinPowerCount', kind: kinds.int64 },
  { key: 'rampStartEpoch', json: 'RampStartEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'rampDurationEpochs', json: 'RampDurationEpochs', kind: kinds.uint64, description: 'epochs' },
  // Multimap: zigzag-varint epoch → AMT of CronEvent.
  { key: 'cronEventQueue', json: 'CronEventQueue', kind: kinds.cid },
  { key: 'firstCronEpoch', json: 'FirstCronEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'claims', json: 'Claims', kind: kinds.cid },
  { key: 'proofValidationBatch', json: 'ProofValidationBatch', kind: kinds.nullable(kinds.cid) },
]);
export type PowerState = Mutable<StructValue<typeof powerStateStruct>>;

/** A miner's callback at an epoch (builtin-actors `CronEvent`; go-state-types `builtin/v18/power`). */
export const cronEventStruct = declareStruct('CronEvent', [
  { key: 'minerAddr', json: 'MinerAddr', kind: addressKind },
  { key: 'callbackPayload', json: 'CallbackPayload', kind: kinds.bytes },
]);
export type CronEvent = StructValue<typeof cronEventStruct>;

/** A miner's power (builtin-actors `actors/power/src/state.rs` `Claim`). */
export const claimStruct = declareStruct('Claim', [
  { key: 'windowPoStProofType', json: 'WindowPoStProofType', kind: kinds.int64 },
  { key: 'rawBytePower', json: 'RawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qualityAdjPower', json: 'QualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
]);
export type Claim = StructValue<typeof claimStruct>;

export const powerStateCodec: StateCodec<PowerState> = powerStateStruct;

const INITIAL_QA_POWER_ESTIMATE_POSITION = 750_000n << 30n;
const INITIAL_QA_POWER_ESTIMATE_VELOCITY = 3_840n << 30n;

export function newPowerState(store: Blockstore): PowerState {
  return {
    totalRawBytePower: 0n,
    totalBytesCommitted: 0n,
    totalQualityAdjPower: 0n,
    totalQaBytesCommitted: 0n,
    totalPledgeCollateral: 0n,
    thisEpochRawBytePower: 0n,
    thisEpochQualityAdjPower: 0n,
    thisEpochPledgeCollateral: 0n,
    thisEpochQaPowerSmoothed: newFilterEstimate(INITIAL_QA_POWER_ESTIMATE_POSITION, INITIAL_QA_POWER_ESTIMATE_VELOCITY),
    minerCount: 0n,
    minerAboveMinPowerCount: 0n,
    rampStartEpoch: 0n,
    rampDurationEpochs: 0n,
    cronEventQueue: Multimap.create(store, CRON_QUEUE_HAMT_BITWIDTH, CRON_QUEUE_AMT_BITWIDTH).flush(),
    firstCronEpoch: 0n,
    claims: Hamt.create(store).flush(),
    proofValidationBatch: null,
  };
}

export function loadClaims(store: Blockstore, state: PowerState): Hamt {
  return Hamt.load(store, state.claims);
}

export function getClaim(claims: Hamt, miner: Address): Claim | undefined {
  const bytes = claims.getBytes(miner.bytes);
  return bytes === undefined ? undefined : claimStruct.decode(bytes);
}

/** The network's power as consensus counts it: totals of miners above the minimum, or all while fewer than 4 are. */
export function currentTotalPower(state: PowerState): { raw: bigint; qa: bigint } {
  if (state.minerAboveMinPowerCount < CONSENSUS_MINER_MIN_MINERS) {
    return { raw: state.totalBytesCommitted, qa: state.totalQaBytesCommitted };
  }
  return { raw: state.totalRawBytePower, qa: state.totalQualityAdjPower };
}

/**
 * Whether a miner's raw power lets it win blocks (builtin-actors
 * `miner_nominal_power_meets_consensus_minimum`): at least the minimum, or any power while fewer
 * than 4 miners have the minimum.
 */
export function meetsConsensusMinimum(state: PowerState, claim: Claim, consensusMinerMinPower: bigint): boolean {
  if (claim.rawBytePower >= consensusMinerMinPower) return true;
  if (state.minerAboveMinPowerCount >= CONSENSUS_MINER_MIN_MINERS) return false;
  return claim.rawBytePower > 0n;
}

/** The claim `miner` must already have; its absence aborts with `code`. */
function requireClaim(claims: Hamt, miner: Address, code: ExitCode): Claim {
  const claim = getClaim(claims, miner);
  if (claim === undefined) throw new ActorError(code, `no claim for actor ${miner}`);
  return claim;
}

/** builtin-actors `set_claim`: a claim never holds negative power. */
export function setClaim(claims: Hamt, miner: Address, claim: Claim): void {
  if (claim.rawBytePower < 0n) {
    throw new ActorError(ExitCode.UsrIllegalState, `negative claim raw power ${claim.rawBytePower}`);
  }
  if (claim.qualityAdjPower < 0n) {
    throw new ActorError(ExitCode.UsrIllegalState, `negative claim quality-adjusted power ${claim.qualityAdjPower}`);
  }
  claims.set(miner.bytes, claimStruct.toCborNode(claim));
}

/**
 * builtin-actors `State::add_to_claim`: changes a miner's claim and the totals it counts towards. A
 * claim joins the consensus totals (whole) when its raw power reaches `consensusMinerMinPower` and
 * leaves them (whole) when it falls below. The totals are changed before the checks, as there.
 */
export function addToClaim(
  state: PowerState,
  claims: Hamt,
  miner: Address,
  raw: bigint,
  qa: bigint,
  consensusMinerMinPower: bigint,
): void {
  const old = requireClaim(claims, miner, ExitCode.UsrNotFound);
  state.totalQaBytesCommitted += qa;
  state.totalBytesCommitted += raw;
  const updated: Claim = {
    windowPoStProofType: old.windowPoStProofType,
    rawBytePower: old.rawBytePower + raw,
    qualityAdjPower: old.qualityAdjPower + qa,
  };
  const wasBelow = old.rawBytePower < consensusMinerMinPower;
  const stillBelow = updated.rawBytePower < consensusMinerMinPower;
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
  if (updated.rawBytePower < 0n) {
    throw new ActorError(ExitCode.UsrIllegalState, `negative claimed raw byte power: ${updated.rawBytePower}`);
  }
  if (updated.qualityAdjPower < 0n) {
    throw new ActorError(
      ExitCode.UsrIllegalState,
      `negative claimed quality adjusted power: ${updated.qualityAdjPower}`,
    );
  }
  if (state.minerAboveMinPowerCount < 0n) {
    throw new ActorError(
      ExitCode.UsrIllegalState,
      `negative amount of miners larger than min: ${state.minerAboveMinPowerCount}`,
    );
  }
  setClaim(claims, miner, updated);
}

/** builtin-actors `State::delete_claim`: takes the claim's power out of the totals, then drops it. */
export function deleteClaim(state: PowerState, claims: Hamt, miner: Address, consensusMinerMinPower: bigint): void {
  const claim = getClaim(claims, miner);
  if (claim === undefined) return;
  addToClaim(state, claims, miner, -claim.rawBytePower, -claim.qualityAdjPower, consensusMinerMinPower);
  claims.delete(miner.bytes);
}

/** The cron queue's key for `epoch`: its zigzag varint (builtin-actors `epoch_key`, integer-encoding's i64). */
export function cronEpochKey(epoch: bigint): Uint8Array {
  return encodeUvarint(epoch < 0n ? -2n * epoch - 1n : 2n * epoch);
}

function loadCronQueue(store: Blockstore, state: PowerState): Multimap {
  return Multimap.load(store, state.cronEventQueue, CRON_QUEUE_HAMT_BITWIDTH, CRON_QUEUE_AMT_BITWIDTH);
}

/** The events queued at `epoch`, in the order they were enrolled. */
export function cronEventsAt(store: Blockstore, state: PowerState, epoch: bigint): CronEvent[] {
  return loadCronQueue(store, state)
    .values(cronEpochKey(epoch))
    .map((node) => cronEventStruct.fromCborNode(node));
}

/** builtin-actors `State::append_cron_event`: an event for an earlier epoch moves `firstCronEpoch` back. */
export function appendCronEvent(store: Blockstore, state: PowerState, epoch: bigint, event: CronEvent): void {
  if (epoch < state.firstCronEpoch) state.firstCronEpoch = epoch;
  const queue = loadCronQueue(store, state);
  queue.add(cronEpochKey(epoch), cronEventStruct.toCborNode(event));
  state.cronEventQueue = queue.flush();
}

/**
 * The first half of builtin-actors `process_deferred_cron_events`: removes the queue's entries for
 * every epoch from `firstCronEpoch` to `now` and returns their events, in epoch then enrolment
 * order, except those of miners that no longer have a claim (skipped, never called).
 */
export function takeDueCronEvents(store: Blockstore, state: PowerState, now: bigint): CronEvent[] {
  const queue = loadCronQueue(store, state);
  const claims = loadClaims(store, state);
  const due: CronEvent[] = [];
  for (let epoch = state.firstCronEpoch; epoch <= now; epoch++) {
    const key = cronEpochKey(epoch);
    const events = queue.values(key);
    if (events.length === 0) continue;
    for (const node of events) {
      const event = cronEventStruct.fromCborNode(node);
      if (claims.has(event.minerAddr.bytes)) due.push(event);
    }
    queue.removeAll(key);
  }
  state.firstCronEpoch = now + 1n;
  state.cronEventQueue = queue.flush();
  return due;
}
