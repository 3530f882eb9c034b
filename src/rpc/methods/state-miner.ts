/**
 * State queries about a storage miner (filecoin-project/lotus `api/api_full.go`, `node/impl/full/state.go`,
 * `chain/stmgr/actors.go`, `chain/actors/builtin/miner/v18.go`): its info, sectors, pre-commits, sector
 * numbers, balance and proving deadline, and the list of miners. Like every State query they read the
 * parent state of the tipset named; deadlines and partitions are in state-miner-proving.ts, the
 * pledge estimators in state-miner-pledge.ts.
 */
import { base58btc } from 'multiformats/bases/base58';
import * as Digest from 'multiformats/hashes/digest';
import { type BitField, bitFieldKind } from '../../ipld/index.js';
import { type Address, addressToLotusJson, type StructJson } from '../../types/index.js';
import {
  availableBalance,
  deadlineInfoStruct,
  listMiners,
  type MinerInfo,
  minerAllocatedSectors,
  minerAllSectors,
  minerInfo,
  minerInfoStruct,
  minerPreCommit,
  minerSector,
  minerState,
  minerVestedFunds,
  newDeadlineInfo,
  type SectorOnChainInfo,
  type SectorPreCommitOnChainInfo,
  sectorPreCommitOnChainInfoStruct,
} from '../../vm/index.js';
import { bigIntResult } from '../chain-codecs.js';
import type { ParamDeclaration } from '../method.js';
import { addressListResult, booleanResult, jsonResult } from '../results.js';
import { addressSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';
import {
  bitFieldResult,
  declareMinerMethod,
  declareMinerMethodWith,
  failCall,
  type MinerAt,
  nullable,
  parentStateOf,
  schemaProperties,
  sectorJson,
  sectorListResult,
  sectorNumberParam,
  sectorSchema,
  tipSetParam,
} from './state-miner-common.js';

/** Lotus's `api.MinerInfo`: MinerInfo with the pending worker key flattened and the peer ID in base58. */
export type ApiMinerInfoJson = Omit<StructJson<typeof minerInfoStruct>, 'PendingWorkerKey' | 'PeerId'> & {
  NewWorker: string;
  WorkerChangeEpoch: number | bigint;
  PeerId: string | null;
};

/** go-address's JSON of `address.Undef`: Lotus's NewWorker when no worker change is pending. */
const UNDEF_ADDRESS_JSON = '<empty>';

/** libp2p `peer.IDFromBytes`: a peer ID is a multihash; Lotus shows anything else as null. */
function peerIdJson(bytes: Uint8Array): string | null {
  try {
    Digest.decode(bytes);
  } catch {
    return null;
  }
  return base58btc.baseEncode(bytes);
}

function apiMinerInfoJson(info: MinerInfo): ApiMinerInfoJson {
  const json = minerInfoStruct.toLotusJson(info);
  return {
    Owner: json.Owner,
    Worker: json.Worker,
    NewWorker: json.PendingWorkerKey?.NewWorker ?? UNDEF_ADDRESS_JSON,
    ControlAddresses: json.ControlAddresses,
    WorkerChangeEpoch: json.PendingWorkerKey?.EffectiveAt ?? -1,
    PeerId: peerIdJson(info.peerId),
    Multiaddrs: json.Multiaddrs,
    WindowPoStProofType: json.WindowPoStProofType,
    SectorSize: json.SectorSize,
    WindowPoStPartitionSectors: json.WindowPoStPartitionSectors,
    ConsensusFaultElapsed: json.ConsensusFaultElapsed,
    PendingOwnerAddress: json.PendingOwnerAddress,
    Beneficiary: json.Beneficiary,
    BeneficiaryTerm: json.BeneficiaryTerm,
    PendingBeneficiaryTerm: json.PendingBeneficiaryTerm,
  };
}

const { PendingWorkerKey: _pendingWorkerKey, ...infoProperties } = schemaProperties(minerInfoStruct.schema);
const apiMinerInfoSchema = {
  title: 'MinerInfo',
  type: 'object',
  properties: {
    ...infoProperties,
    NewWorker: { type: 'string', description: 'the pending worker, or "<empty>"' },
    WorkerChangeEpoch: { type: 'integer', description: 'when the pending worker takes over; -1 when none' },
    PeerId: { type: ['string', 'null'], description: 'base58 libp2p peer ID' },
  },
};

export const stateMinerInfo = declareMinerMethod({
  name: 'StateMinerInfo',
  description:
    "Returns a miner's owner, worker (and a pending new one), control addresses, peer ID, multiaddresses, proof type, sector size and beneficiary.",
  result: jsonResult<ApiMinerInfoJson>('minerInfo', 'Lotus api.MinerInfo', apiMinerInfoSchema),
  read: ({ tree, miner }) => apiMinerInfoJson(minerInfo(tree, miner)),
});

/** A bitfield of sector numbers, or null for all (Lotus's `*bitfield.BitField`). */
const sectorSelectionParam: ParamDeclaration<BitField | undefined, unknown> = {
  name: 'sectors',
  description: 'the sector numbers (RLE+ runs), or null for all',
  schema: nullable(bitFieldKind.schema),
  decode: (json, path) => (json === null ? undefined : bitFieldKind.fromJson(json, path)),
};

export const stateMinerSectors = declareMinerMethodWith(sectorSelectionParam, {
  name: 'StateMinerSectors',
  description:
    "Returns the on-chain info of a miner's sectors numbered in a bitfield, or of all its sectors for null; a number with no sector is an error.",
  result: sectorListResult('the sectors in number order'),
  read: ({ tree, miner }, selection) => minerAllSectors(tree, miner, selection),
});

/** The prefix of Lotus's `chain/stmgr/actors.go` MinerSectorInfo and PreCommitInfo errors. */
const SECTOR_SET_CONTEXT = '(get sset) failed to load miner actor';

export const stateSectorGetInfo = declareMinerMethodWith(sectorNumberParam, {
  name: 'StateSectorGetInfo',
  description: "Returns a sector's on-chain info, or null when the miner has no sector of that number.",
  loadContext: SECTOR_SET_CONTEXT,
  result: {
    name: 'sector',
    description: 'the sector, or null',
    schema: nullable(sectorSchema),
    encode: (info: SectorOnChainInfo | undefined) => (info === undefined ? null : sectorJson(info)),
  },
  read: ({ tree, miner }, sectorNumber) => minerSector(tree, miner, sectorNumber),
});

type PreCommitJson = StructJson<typeof sectorPreCommitOnChainInfoStruct>;
const PRE_COMMIT_DESCRIPTION = "Returns a sector's pending pre-commit: its info, deposit and epoch.";
const readPreCommit = ({ tree, miner }: MinerAt, sectorNumber: bigint) => minerPreCommit(tree, miner, sectorNumber);

export const stateSectorPreCommitInfo = declareMinerMethodWith(sectorNumberParam, {
  name: 'StateSectorPreCommitInfo',
  description: `${PRE_COMMIT_DESCRIPTION} Null when the sector is not pre-committed (proven, expired or never).`,
  apiVersions: [1],
  loadContext: SECTOR_SET_CONTEXT,
  result: {
    name: 'preCommit',
    description: 'the pre-commit, or null',
    schema: nullable(sectorPreCommitOnChainInfoStruct.schema),
    encode: (preCommit: SectorPreCommitOnChainInfo | undefined): PreCommitJson | null =>
      preCommit === undefined ? null : sectorPreCommitOnChainInfoStruct.toLotusJson(preCommit),
  },
  read: readPreCommit,
});

export const stateSectorPreCommitInfoV0 = declareMinerMethodWith(sectorNumberParam, {
  name: 'StateSectorPreCommitInfo',
  description: `${PRE_COMMIT_DESCRIPTION} The v0 form: an error when the sector is not pre-committed.`,
  apiVersions: [0],
  loadContext: SECTOR_SET_CONTEXT,
  result: {
    name: 'preCommit',
    description: 'the pre-commit',
    schema: sectorPreCommitOnChainInfoStruct.schema,
    encode: sectorPreCommitOnChainInfoStruct.toLotusJson,
  },
  read: (at, sectorNumber) => {
    // filecoin-project/lotus api/v0api/v1_wrapper.go
    return readPreCommit(at, sectorNumber) ?? failCall('precommit info does not exist');
  },
});

export const stateMinerSectorAllocated = declareMinerMethodWith(sectorNumberParam, {
  name: 'StateMinerSectorAllocated',
  description: 'Returns whether a sector number has been used by the miner (pre-committed at some point).',
  result: booleanResult('whether the number is allocated'),
  read: ({ tree, miner }, sectorNumber) => minerAllocatedSectors(tree, miner).has(sectorNumber),
});

export const stateMinerAllocated = declareMinerMethod({
  name: 'StateMinerAllocated',
  description: 'Returns the sector numbers the miner has used, as a bitfield.',
  result: bitFieldResult('the allocated sector numbers (RLE+ runs)'),
  read: ({ tree, miner }) => minerAllocatedSectors(tree, miner),
});

export const stateMinerAvailableBalance = declareMinerMethod({
  name: 'StateMinerAvailableBalance',
  description:
    "Returns what a miner could withdraw: its balance less locked rewards, pre-commit deposits, pledge and fee debt, plus the rewards that have vested by the tipset's height but are not unlocked yet.",
  result: bigIntResult('attoFIL'),
  read: ({ tree, miner, actor, tipSet }) => {
    const state = minerState(tree, miner);
    return availableBalance(state, actor.balance) + minerVestedFunds(tree, state, tipSet.height);
  },
});

export const stateMinerProvingDeadline = declareMinerMethod({
  name: 'StateMinerProvingDeadline',
  description:
    "Returns the miner's current proving deadline at the tipset's height: the deadline its state records (kept by the deadline cron), moved to its next instance that has not closed.",
  result: jsonResult<StructJson<typeof deadlineInfoStruct>>(
    'deadlineInfo',
    'go-state-types dline.Info',
    deadlineInfoStruct.schema,
  ),
  read: ({ tree, miner, tipSet }, chain) => {
    const state = minerState(tree, miner);
    // Lotus `RecordedDeadlineInfo(height).NextNotElapsed()` (chain/actors/builtin/miner/v18.go).
    const policy = chain.params.minerPolicy;
    const recorded = newDeadlineInfo(policy, state.provingPeriodStart, state.currentDeadline, tipSet.height);
    return deadlineInfoStruct.toLotusJson(recorded.nextNotElapsed());
  },
});

export const stateListMiners = declareChainMethod({
  name: 'StateListMiners',
  description: 'Returns the ID addresses of every miner with a power claim; null when there is none.',
  permission: 'read',
  params: [tipSetParam],
  result: {
    ...addressListResult('the miners, in the power actor claims order'),
    schema: nullable({ type: 'array', items: addressSchema }),
    encode: (miners: Address[]) => (miners.length === 0 ? null : miners.map(addressToLotusJson)),
  },
  handler: ([key], { chain }) => listMiners(parentStateOf(chain, key).tree),
});

export const stateMinerMethods = [
  stateMinerInfo,
  stateMinerSectors,
  stateSectorGetInfo,
  stateSectorPreCommitInfo,
  stateSectorPreCommitInfoV0,
  stateMinerSectorAllocated,
  stateMinerAllocated,
  stateMinerAvailableBalance,
  stateMinerProvingDeadline,
  stateListMiners,
];
