/**
 * The params and returns that one actor writes and another reads, declared once for both sides
 * (builtin-actors `actors/<name>/src/types.rs`; JSON names as go-state-types `builtin/v16/<name>`).
 * Those only one actor touches stay beside it.
 */
import { addressKind, declareStruct, kinds } from '../../types/index.js';
import { addressListKind, bytesListKind, filterEstimateStruct } from './cbor.js';

/** Init `ExecParams`: the power actor creates miners through it. */
export const execParams = declareStruct('ExecParams', [
  { key: 'code', json: 'CodeCID', kind: kinds.cid },
  { key: 'constructorParams', json: 'ConstructorParams', kind: kinds.bytes },
]);

/** Init `Exec4Params` (from the EAM): Exec's, plus the f4 subaddress under the calling address manager. */
export const exec4Params = declareStruct('Exec4Params', [
  { key: 'code', json: 'CodeCID', kind: kinds.cid },
  { key: 'constructorParams', json: 'ConstructorParams', kind: kinds.bytes },
  { key: 'subaddress', json: 'SubAddress', kind: kinds.bytes },
]);

/** Init `ExecReturn` (and Exec4's). */
export const execReturn = declareStruct('ExecReturn', [
  { key: 'idAddress', json: 'IDAddress', kind: addressKind },
  { key: 'robustAddress', json: 'RobustAddress', kind: addressKind },
]);

/** Miner `MinerConstructorParams`, as the power actor's CreateMiner passes them on. */
export const minerConstructorParams = declareStruct('MinerConstructorParams', [
  { key: 'owner', json: 'OwnerAddr', kind: addressKind },
  { key: 'worker', json: 'WorkerAddr', kind: addressKind },
  { key: 'controlAddresses', json: 'ControlAddrs', kind: addressListKind },
  { key: 'windowPoStProofType', json: 'WindowPoStProofType', kind: kinds.int64 },
  { key: 'peerId', json: 'PeerId', kind: kinds.bytes },
  { key: 'multiaddrs', json: 'Multiaddrs', kind: bytesListKind },
]);

/** Power `UpdateClaimedPowerParams`, from a miner. */
export const updateClaimedPowerParams = declareStruct('UpdateClaimedPowerParams', [
  { key: 'rawByteDelta', json: 'RawByteDelta', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qualityAdjustedDelta', json: 'QualityAdjustedDelta', kind: kinds.bigInt, description: 'bytes' },
]);

/** Power `CurrentTotalPowerReturn`: this epoch's totals, for a miner's pledge. */
export const currentTotalPowerReturn = declareStruct('CurrentTotalPowerReturn', [
  { key: 'rawBytePower', json: 'RawBytePower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'qualityAdjPower', json: 'QualityAdjPower', kind: kinds.bigInt, description: 'bytes' },
  { key: 'pledgeCollateral', json: 'PledgeCollateral', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'qualityAdjPowerSmoothed', json: 'QualityAdjPowerSmoothed', kind: filterEstimateStruct.kind },
  { key: 'rampStartEpoch', json: 'RampStartEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'rampDurationEpochs', json: 'RampDurationEpochs', kind: kinds.uint64, description: 'epochs' },
]);

/** Reward `ThisEpochRewardReturn`, for a miner's pledge. */
export const thisEpochRewardReturn = declareStruct('ThisEpochRewardReturn', [
  { key: 'thisEpochRewardSmoothed', json: 'ThisEpochRewardSmoothed', kind: filterEstimateStruct.kind },
  { key: 'thisEpochBaselinePower', json: 'ThisEpochBaselinePower', kind: kinds.bigInt, description: 'bytes' },
]);

/** Miner `ApplyRewardParams`, from the reward actor. */
export const applyRewardParams = declareStruct('ApplyRewardParams', [
  { key: 'reward', json: 'Reward', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'penalty', json: 'Penalty', kind: kinds.bigInt, description: 'attoFIL' },
]);

/** Power `EnrollCronEventParams`, from a miner: call its OnDeferredCronEvent with `payload` at `eventEpoch`. */
export const enrollCronEventParams = declareStruct('EnrollCronEventParams', [
  { key: 'eventEpoch', json: 'EventEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'payload', json: 'Payload', kind: kinds.bytes },
]);
