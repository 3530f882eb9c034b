/**
 * Storage-miner methods (filecoin-project/lotus `api/api_storage.go`, permissions from its `perm` tags):
 * PledgeSector, SectorsList, SectorsStatus and ActorAddress under Lotus's names, and ours where a
 * lotus-miner has no equivalent because it runs one miner: StorageMinerList, StorageMinerAdd,
 * ProvingPause, ProvingResume and ProvingStatus. Every method that acts on one miner takes it as its
 * last parameter, null for the first the node runs (on a devnet, its genesis miner).
 */
import type { SealingSector } from '../../miner/index.js';
import { sealedCid, unsealedCid } from '../../proofs/index.js';
import {
  type Address,
  addressToLotusJson,
  bytesToLotusJson,
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  TipSetKey,
  toJsonInteger,
} from '../../types/index.js';
import { minerSector, minerSectorLocation } from '../../vm/index.js';
import type { LocalMinerStatus, StorageContext } from '../context.js';
import { methodsNeeding, type ParamDeclaration } from '../method.js';
import { addressParam, booleanParam } from '../params.js';
import { addressResult, jsonResult } from '../results.js';
import { addressSchema } from '../schemas.js';
import { failCall, parentStateOf, type SectorJson, sectorJson, sectorNumberParam } from './state-miner-common.js';

const declareStorageMethod = methodsNeeding('storage');
const declareStorageChainMethod = methodsNeeding('storage', 'chain');

/** The miner a call acts on: an address, or null for the node's first miner. */
const localMinerParam: ParamDeclaration<Address | undefined, string | null> = {
  name: 'miner',
  description: 'the miner, or null for the first one the node runs',
  schema: { oneOf: [addressSchema, { type: 'null' }] },
  decode: (json, path) => (json === null ? undefined : addressParam('miner', '').decode(json, path)),
  optional: true,
};

type WindowPostStatus = ReturnType<StorageContext['provingPause']>;

export interface ProvingStatusJson {
  Miner: string;
  Running: boolean;
  Paused: boolean;
  Height: JsonInteger | null;
  ProvenDeadlines: JsonInteger[];
  Submissions: { Deadline: JsonInteger; Open: JsonInteger; Partitions: JsonInteger[]; Message: CidJson }[];
  Recoveries: { Deadline: JsonInteger; Message: CidJson }[];
}

function provingStatusJson(status: WindowPostStatus): ProvingStatusJson {
  return {
    Miner: addressToLotusJson(status.miner),
    Running: status.running,
    Paused: status.paused,
    Height: status.height === undefined ? null : toJsonInteger(status.height),
    ProvenDeadlines: status.proven.map(toJsonInteger),
    Submissions: status.submissions.map((submission) => ({
      Deadline: toJsonInteger(submission.deadline),
      Open: toJsonInteger(submission.open),
      Partitions: submission.partitions.map(toJsonInteger),
      Message: cidToLotusJson(submission.message),
    })),
    Recoveries: status.recoveries.map((recovery) => ({
      Deadline: toJsonInteger(recovery.deadline),
      Message: cidToLotusJson(recovery.message),
    })),
  };
}

const provingStatusSchema = {
  title: 'ProvingStatus',
  type: 'object',
  properties: {
    Miner: addressSchema,
    Running: { type: 'boolean' },
    Paused: { type: 'boolean' },
    Height: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
    ProvenDeadlines: { type: 'array', items: { type: 'integer' } },
    Submissions: { type: 'array', items: { type: 'object' } },
    Recoveries: { type: 'array', items: { type: 'object' } },
  },
};

export interface LocalMinerJson {
  Address: string;
  Worker: string;
  SectorDirectory: string;
  Proving: ProvingStatusJson;
}

function localMinerJson(miner: LocalMinerStatus): LocalMinerJson {
  return {
    Address: addressToLotusJson(miner.address),
    Worker: addressToLotusJson(miner.worker),
    SectorDirectory: miner.sectorDirectory,
    Proving: provingStatusJson(miner.proving),
  };
}

const localMinerSchema = {
  title: 'LocalMiner',
  type: 'object',
  properties: {
    Address: addressSchema,
    Worker: addressSchema,
    SectorDirectory: { type: 'string' },
    Proving: provingStatusSchema,
  },
};

/** The sector, or a clear error: Lotus's `SectorsStatus` fails the same way for a number it does not know. */
function localSector(storage: StorageContext, sectorNumber: bigint, miner: Address | undefined): SealingSector {
  const sector = storage.sectors(miner).find((candidate) => candidate.sectorNumber === sectorNumber);
  if (sector === undefined) {
    failCall(`sector ${sectorNumber} not found: this node has not sealed it for ${miner ?? 'its first miner'}`);
  }
  return sector;
}

interface TicketJson {
  Value: string | null;
  Epoch: JsonInteger;
}

function ticketJson(value: Uint8Array | null, epoch: bigint | null): TicketJson {
  return { Value: value === null ? null : bytesToLotusJson(value), Epoch: toJsonInteger(epoch ?? 0n) };
}

/** Lotus `api.SectorInfo`: the pipeline's record, and with `showOnChainInfo` the sector as the chain has it. */
export interface SectorInfoJson {
  SectorID: JsonInteger;
  State: string;
  CommD: CidJson | null;
  CommR: CidJson | null;
  Proof: string | null;
  Ticket: TicketJson;
  Seed: TicketJson;
  PreCommitMsg: CidJson | null;
  CommitMsg: CidJson | null;
  SealProof: number;
  LastErr: string;
  /** With showOnChainInfo, once the sector is on chain (Lotus: SealProof … Early; ours adds its location). */
  OnChain?: (SectorJson & { Deadline: JsonInteger; Partition: JsonInteger }) | null;
}

function sectorInfoJson(sector: SealingSector): SectorInfoJson {
  return {
    SectorID: toJsonInteger(sector.sectorNumber),
    State: sector.state,
    CommD: sector.commD === null ? null : cidToLotusJson(unsealedCid(sector.commD)),
    CommR: sector.commR === null ? null : cidToLotusJson(sealedCid(sector.commR)),
    Proof: sector.proof === null ? null : bytesToLotusJson(sector.proof),
    Ticket: ticketJson(sector.ticket, sector.ticketEpoch),
    Seed: ticketJson(sector.seed, sector.seedEpoch),
    PreCommitMsg: sector.preCommitMessage === null ? null : cidToLotusJson(sector.preCommitMessage),
    CommitMsg: sector.commitMessage === null ? null : cidToLotusJson(sector.commitMessage),
    SealProof: sector.sealProof,
    LastErr: sector.failure ?? '',
  };
}

const cidOrNull = { oneOf: [{ type: 'object' }, { type: 'null' }] };
const ticketSchema = {
  type: 'object',
  properties: { Value: { type: ['string', 'null'] }, Epoch: { type: 'integer' } },
};

const sectorInfoSchema = {
  title: 'SectorInfo',
  type: 'object',
  properties: {
    SectorID: { type: 'integer' },
    State: { type: 'string' },
    CommD: cidOrNull,
    CommR: cidOrNull,
    Proof: { type: ['string', 'null'] },
    Ticket: ticketSchema,
    Seed: ticketSchema,
    PreCommitMsg: cidOrNull,
    CommitMsg: cidOrNull,
    SealProof: { type: 'integer' },
    LastErr: { type: 'string' },
    OnChain: { oneOf: [{ type: 'object' }, { type: 'null' }] },
  },
};

export const pledgeSector = declareStorageMethod({
  name: 'PledgeSector',
  description:
    'Allocates a committed-capacity sector and starts sealing it (PC1, PC2, pre-commit, seed, C1, C2, prove-commit); returns its abi.SectorID.',
  permission: 'write',
  params: [localMinerParam],
  result: jsonResult<{ Miner: JsonInteger; Number: JsonInteger }>('sectorId', 'Lotus abi.SectorID', {
    title: 'SectorID',
    type: 'object',
    properties: { Miner: { type: 'integer' }, Number: { type: 'integer' } },
  }),
  handler: async ([miner], { storage }) => {
    const sector = await storage.pledgeSector(miner);
    return { Miner: toJsonInteger(sector.miner), Number: toJsonInteger(sector.sectorNumber) };
  },
});

export const sectorsList = declareStorageMethod({
  name: 'SectorsList',
  description: 'Returns the numbers of the sectors the node is sealing or has sealed for the miner.',
  permission: 'read',
  params: [localMinerParam],
  result: jsonResult<JsonInteger[]>('sectorNumbers', 'sector numbers, ascending', {
    type: 'array',
    items: { type: 'integer' },
  }),
  handler: ([miner], { storage }) =>
    storage
      .sectors(miner)
      .map((sector) => sector.sectorNumber)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map(toJsonInteger),
});

export const sectorsStatus = declareStorageChainMethod({
  name: 'SectorsStatus',
  description:
    "Returns a sector's sealing state, commitments, ticket, seed and messages (Lotus SectorInfo); with showOnChainInfo also its on-chain info and location at the head (null until it is on chain).",
  permission: 'read',
  params: [sectorNumberParam, booleanParam('showOnChainInfo', 'add the on-chain info'), localMinerParam],
  result: jsonResult<SectorInfoJson>('sectorInfo', 'Lotus SectorInfo', sectorInfoSchema),
  handler: ([sectorNumber, showOnChainInfo, miner], { storage, chain }) => {
    const sector = localSector(storage, sectorNumber, miner);
    const info = sectorInfoJson(sector);
    if (!showOnChainInfo) return info;
    const { tree } = parentStateOf(chain, TipSetKey.EMPTY);
    const minerAddress = storage.miners().find((local) => local.address.id() === sector.miner)?.address;
    const onChain = minerAddress === undefined ? undefined : minerSector(tree, minerAddress, sectorNumber);
    if (minerAddress === undefined || onChain === undefined) return { ...info, OnChain: null };
    const location = minerSectorLocation(tree, minerAddress, sectorNumber);
    return {
      ...info,
      OnChain: {
        ...sectorJson(onChain),
        Deadline: toJsonInteger(location.deadline),
        Partition: toJsonInteger(location.partition),
      },
    };
  },
});

export const actorAddress = declareStorageMethod({
  name: 'ActorAddress',
  description: "Returns the address of the node's first miner (on a devnet, its genesis miner).",
  permission: 'read',
  params: [],
  result: addressResult('the miner address'),
  handler: (_params, { storage }) => {
    const first = storage.miners()[0];
    if (first === undefined) failCall('this node runs no storage miner');
    return first.address;
  },
});

export const storageMinerList = declareStorageMethod({
  name: 'StorageMinerList',
  description: 'Returns the miners the node runs, in the order they were added, with their proving status.',
  permission: 'read',
  params: [],
  result: jsonResult<LocalMinerJson[]>('miners', 'the local miners', { type: 'array', items: localMinerSchema }),
  handler: (_params, { storage }) => storage.miners().map(localMinerJson),
});

export const storageMinerAdd = declareStorageMethod({
  name: 'StorageMinerAdd',
  description:
    'Starts running a miner whose worker key is in the wallet (sealing and window PoSt), and runs it again after a restart.',
  permission: 'write',
  params: [addressParam('miner', 'the miner address')],
  result: jsonResult<LocalMinerJson>('miner', 'the local miner', localMinerSchema),
  handler: async ([miner], { storage }) => localMinerJson(await storage.add(miner)),
});

function declareProvingMethod<const N extends string>(
  name: N,
  permission: 'read' | 'write',
  description: string,
  act: (storage: StorageContext, miner: Address | undefined) => WindowPostStatus,
) {
  return declareStorageMethod({
    name,
    description,
    permission,
    params: [localMinerParam],
    result: jsonResult<ProvingStatusJson>('status', 'the window PoSt scheduler status', provingStatusSchema),
    handler: ([miner], { storage }) => provingStatusJson(act(storage, miner)),
  });
}

export const provingPause = declareProvingMethod(
  'ProvingPause',
  'write',
  "Stops submitting the miner's window PoSts (its sectors turn faulty when their deadline closes unproven).",
  (storage, miner) => storage.provingPause(miner),
);

export const provingResume = declareProvingMethod(
  'ProvingResume',
  'write',
  "Resumes the miner's window PoSts (faulty sectors are declared recovered, then proven).",
  (storage, miner) => storage.provingResume(miner),
);

export const provingStatus = declareStorageChainMethod({
  name: 'ProvingStatus',
  description:
    "Returns the miner's window PoSt scheduler status: running, paused, deadlines proven, latest submissions.",
  permission: 'read',
  params: [localMinerParam],
  result: jsonResult<ProvingStatusJson>('status', 'the window PoSt scheduler status', provingStatusSchema),
  handler: ([miner], { storage, chain }) => {
    const local = storage.miners();
    const id = miner === undefined ? undefined : parentStateOf(chain, TipSetKey.EMPTY).tree.lookupId(miner);
    const found = miner === undefined ? local[0] : local.find((candidate) => candidate.address.id() === id);
    if (found === undefined) {
      failCall(miner === undefined ? 'this node runs no storage miner' : `this node does not run miner ${miner}`);
    }
    return provingStatusJson(found.proving);
  },
});

export const storageMethods = [
  pledgeSector,
  sectorsList,
  sectorsStatus,
  actorAddress,
  storageMinerList,
  storageMinerAdd,
  provingPause,
  provingResume,
  provingStatus,
];
