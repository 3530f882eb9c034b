/**
 * Params and returns of the storage miner's sector lifecycle methods (builtin-actors v18
 * `actors/miner/src/types.rs`; JSON names as go-state-types `builtin/v18/miner`). The node's sealing
 * pipeline and window PoSt scheduler build them; the actor reads them.
 */
import { bitFieldKind } from '../../../ipld/index.js';
import { addressKind, declareStruct, kinds, postProofStruct, type StructValue } from '../../../types/index.js';

export type { PoStProof } from '../../../types/index.js';

import { filterEstimateStruct } from '../cbor.js';

/** `SectorPreCommitInfo`: what a miner commits to before proving a sector. */
export const sectorPreCommitInfoStruct = declareStruct('SectorPreCommitInfo', [
  { key: 'sealProof', json: 'SealProof', kind: kinds.int64 },
  { key: 'sectorNumber', json: 'SectorNumber', kind: kinds.uint64 },
  { key: 'sealedCid', json: 'SealedCID', kind: kinds.cid },
  { key: 'sealRandEpoch', json: 'SealRandEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'dealIds', json: 'DealIDs', kind: kinds.array(kinds.uint64) },
  { key: 'expiration', json: 'Expiration', kind: kinds.int64, description: 'epoch' },
  // A CompactCommD: null stands for the zero CommD of the seal proof (a committed-capacity sector).
  { key: 'unsealedCid', json: 'UnsealedCid', kind: kinds.nullable(kinds.cid) },
]);
export type SectorPreCommitInfo = StructValue<typeof sectorPreCommitInfoStruct>;

/** PreCommitSectorBatch2 (method 28). */
export const preCommitSectorBatch2Params = declareStruct('PreCommitSectorBatchParams2', [
  { key: 'sectors', json: 'Sectors', kind: kinds.array(sectorPreCommitInfoStruct.kind) },
]);

/** `VerifiedAllocationKey`: a verified-registry allocation a piece claims. */
const verifiedAllocationKeyStruct = declareStruct('VerifiedAllocationKey', [
  { key: 'client', json: 'Client', kind: kinds.uint64, description: 'actor ID' },
  { key: 'id', json: 'ID', kind: kinds.uint64 },
]);

/** `DataActivationNotification`: an actor to tell that a piece was activated. */
const dataActivationNotificationStruct = declareStruct('DataActivationNotification', [
  { key: 'address', json: 'Address', kind: addressKind },
  { key: 'payload', json: 'Payload', kind: kinds.bytes },
]);

/** `PieceActivationManifest`. */
export const pieceActivationManifestStruct = declareStruct('PieceActivationManifest', [
  { key: 'cid', json: 'CID', kind: kinds.cid },
  { key: 'size', json: 'Size', kind: kinds.uint64, description: 'padded bytes' },
  {
    key: 'verifiedAllocationKey',
    json: 'VerifiedAllocationKey',
    kind: kinds.nullable(verifiedAllocationKeyStruct.kind),
  },
  { key: 'notify', json: 'Notify', kind: kinds.array(dataActivationNotificationStruct.kind) },
]);

/** `SectorActivationManifest`: a committed-capacity sector has no pieces. */
export const sectorActivationManifestStruct = declareStruct('SectorActivationManifest', [
  { key: 'sectorNumber', json: 'SectorNumber', kind: kinds.uint64 },
  { key: 'pieces', json: 'Pieces', kind: kinds.array(pieceActivationManifestStruct.kind) },
]);
export type SectorActivationManifest = StructValue<typeof sectorActivationManifestStruct>;

/** ProveCommitSectors3 (method 34): one proof per sector, or one aggregate (type 1, SnarkPackV2). */
export const proveCommitSectors3Params = declareStruct('ProveCommitSectors3Params', [
  { key: 'sectorActivations', json: 'SectorActivations', kind: kinds.array(sectorActivationManifestStruct.kind) },
  { key: 'sectorProofs', json: 'SectorProofs', kind: kinds.array(kinds.bytes) },
  { key: 'aggregateProof', json: 'AggregateProof', kind: kinds.bytes },
  { key: 'aggregateProofType', json: 'AggregateProofType', kind: kinds.nullable(kinds.int64) },
  { key: 'requireActivationSuccess', json: 'RequireActivationSuccess', kind: kinds.bool },
  { key: 'requireNotificationSuccess', json: 'RequireNotificationSuccess', kind: kinds.bool },
]);
export type ProveCommitSectors3Params = StructValue<typeof proveCommitSectors3Params>;

/** builtin-actors `runtime/src/util/batch_return.rs` `BatchReturn`: which items of a batch failed, and why. */
export const batchReturnStruct = declareStruct('BatchReturn', [
  { key: 'successCount', json: 'SuccessCount', kind: kinds.uint64 },
  {
    key: 'failCodes',
    json: 'FailCodes',
    kind: kinds.array(
      declareStruct('FailCode', [
        { key: 'idx', json: 'Idx', kind: kinds.uint64 },
        { key: 'code', json: 'Code', kind: kinds.uint64 },
      ]).kind,
    ),
  },
]);
export type BatchReturn = StructValue<typeof batchReturnStruct>;

/** `PoStPartition`: a partition proven by a window PoSt, less the sectors it skips (declared faulty). */
export const poStPartitionStruct = declareStruct('PoStPartition', [
  { key: 'index', json: 'Index', kind: kinds.uint64 },
  { key: 'skipped', json: 'Skipped', kind: bitFieldKind },
]);
export type PoStPartition = StructValue<typeof poStPartitionStruct>;

/** SubmitWindowedPoSt (method 5). */
export const submitWindowedPoStParams = declareStruct('SubmitWindowedPoStParams', [
  { key: 'deadline', json: 'Deadline', kind: kinds.uint64 },
  { key: 'partitions', json: 'Partitions', kind: kinds.array(poStPartitionStruct.kind) },
  { key: 'proofs', json: 'Proofs', kind: kinds.array(postProofStruct.kind) },
  { key: 'chainCommitEpoch', json: 'ChainCommitEpoch', kind: kinds.int64, description: 'epoch' },
  { key: 'chainCommitRand', json: 'ChainCommitRand', kind: kinds.bytes },
]);
export type SubmitWindowedPoStParams = StructValue<typeof submitWindowedPoStParams>;

/** Sectors of one partition: the unit of fault, recovery and termination declarations. */
const sectorLocationStruct = declareStruct('FaultDeclaration', [
  { key: 'deadline', json: 'Deadline', kind: kinds.uint64 },
  { key: 'partition', json: 'Partition', kind: kinds.uint64 },
  { key: 'sectors', json: 'Sectors', kind: bitFieldKind },
]);
export type SectorLocation = StructValue<typeof sectorLocationStruct>;

/** DeclareFaults (method 10). */
export const declareFaultsParams = declareStruct('DeclareFaultsParams', [
  { key: 'faults', json: 'Faults', kind: kinds.array(sectorLocationStruct.kind) },
]);

/** DeclareFaultsRecovered (method 11). */
export const declareFaultsRecoveredParams = declareStruct('DeclareFaultsRecoveredParams', [
  { key: 'recoveries', json: 'Recoveries', kind: kinds.array(sectorLocationStruct.kind) },
]);

/** TerminateSectors (method 9). */
export const terminateSectorsParams = declareStruct('TerminateSectorsParams', [
  { key: 'terminations', json: 'Terminations', kind: kinds.array(sectorLocationStruct.kind) },
]);

/** TerminateSectors' return: false while early terminations remain to be processed by cron. */
export const terminateSectorsReturn = declareStruct('TerminateSectorsReturn', [
  { key: 'done', json: 'Done', kind: kinds.bool },
]);

/** CompactPartitions (method 19). */
export const compactPartitionsParams = declareStruct('CompactPartitionsParams', [
  { key: 'deadline', json: 'Deadline', kind: kinds.uint64 },
  { key: 'partitions', json: 'Partitions', kind: bitFieldKind },
]);

/** DisputeWindowedPoSt (method 24). */
export const disputeWindowedPoStParams = declareStruct('DisputeWindowedPoStParams', [
  { key: 'deadline', json: 'Deadline', kind: kinds.uint64 },
  { key: 'poStIndex', json: 'PoStIndex', kind: kinds.uint64 },
]);

/** `SectorClaim`: verified claims to keep or drop when extending a sector that has them. */
const sectorClaimStruct = declareStruct('SectorClaim', [
  { key: 'sectorNumber', json: 'SectorNumber', kind: kinds.uint64 },
  { key: 'maintainClaims', json: 'MaintainClaims', kind: kinds.array(kinds.uint64) },
  { key: 'dropClaims', json: 'DropClaims', kind: kinds.array(kinds.uint64) },
]);

/** `ExpirationExtension2`. */
export const expirationExtension2Struct = declareStruct('ExpirationExtension2', [
  { key: 'deadline', json: 'Deadline', kind: kinds.uint64 },
  { key: 'partition', json: 'Partition', kind: kinds.uint64 },
  { key: 'sectors', json: 'Sectors', kind: bitFieldKind },
  { key: 'sectorsWithClaims', json: 'SectorsWithClaims', kind: kinds.array(sectorClaimStruct.kind) },
  { key: 'newExpiration', json: 'NewExpiration', kind: kinds.int64, description: 'epoch' },
]);

/** ExtendSectorExpiration2 (method 32). */
export const extendSectorExpiration2Params = declareStruct('ExtendSectorExpiration2Params', [
  { key: 'extensions', json: 'Extensions', kind: kinds.array(expirationExtension2Struct.kind) },
]);

/** OnDeferredCronEvent (method 12), from the power actor. */
export const deferredCronEventParams = declareStruct('DeferredCronEventParams', [
  { key: 'eventPayload', json: 'EventPayload', kind: kinds.bytes },
  { key: 'rewardSmoothed', json: 'RewardSmoothed', kind: filterEstimateStruct.kind },
  { key: 'qualityAdjPowerSmoothed', json: 'QualityAdjPowerSmoothed', kind: filterEstimateStruct.kind },
]);

/** `CronEventPayload`, a one-element tuple: `[1]` proving deadline, `[2]` early terminations. */
export const cronEventPayloadStruct = declareStruct('CronEventPayload', [
  { key: 'eventType', json: 'EventType', kind: kinds.int64 },
]);
export const CronEventType = { ProvingDeadline: 1n, ProcessEarlyTerminations: 2n } as const;
