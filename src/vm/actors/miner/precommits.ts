/**
 * Pre-committed sectors in the miner state (builtin-actors `actors/miner/src/state.rs`): the
 * pre-commit HAMT (keyed by the sector number's unsigned varint), the allocated sector numbers and
 * the clean-up queue that burns the deposit of a pre-commit never proven.
 */
import type { CID } from 'multiformats/cid';
import { BitField, type Blockstore, bitFieldKind, getBlock, Hamt } from '../../../ipld/index.js';
import type { MinerPolicy } from '../../../params/index.js';
import { putCborBytes } from '../../../state/index.js';
import { type CborNode, declareStruct, decodeCbor, encodeCbor, kinds, type StructValue } from '../../../types/index.js';
import { encodeUvarint } from '../../../types/uvarint.js';
import { illegalArgument, illegalState, notFound, orIllegalState } from './abort.js';
import { BitFieldQueue } from './bitfield-queue.js';
import { sectorPreCommitInfoStruct } from './params.js';
import { PRECOMMIT_HAMT_BITWIDTH } from './policy.js';
import { quantSpec } from './quantize.js';
import { MAX_SECTOR_NUMBER } from './sectors.js';
import type { MinerState } from './state.js';

/** builtin-actors `SectorPreCommitOnChainInfo`: a pre-commit, its deposit and when it landed. */
export const sectorPreCommitOnChainInfoStruct = declareStruct('SectorPreCommitOnChainInfo', [
  { key: 'info', json: 'Info', kind: sectorPreCommitInfoStruct.kind },
  { key: 'preCommitDeposit', json: 'PreCommitDeposit', kind: kinds.bigInt, description: 'attoFIL' },
  { key: 'preCommitEpoch', json: 'PreCommitEpoch', kind: kinds.int64, description: 'epoch' },
]);
export type SectorPreCommitOnChainInfo = StructValue<typeof sectorPreCommitOnChainInfoStruct>;

const hamtOptions = { bitWidth: PRECOMMIT_HAMT_BITWIDTH };
const sectorKey = (sectorNumber: bigint) => encodeUvarint(sectorNumber);

export function emptyPreCommitsRoot(store: Blockstore): CID {
  return Hamt.create(store, hamtOptions).flush();
}

export function emptyAllocatedSectorsRoot(store: Blockstore): CID {
  return putCborBytes(store, encodeCbor(bitFieldKind.toCbor(BitField.EMPTY, 'allocated sectors')));
}

function loadPreCommits(store: Blockstore, state: MinerState): Hamt {
  return orIllegalState('failed to load pre-commits', () => Hamt.load(store, state.preCommittedSectors, hamtOptions));
}

function decodePreCommit(node: unknown, sectorNumber: bigint): SectorPreCommitOnChainInfo {
  return orIllegalState(`failed to decode pre-commit ${sectorNumber}`, () =>
    sectorPreCommitOnChainInfoStruct.fromCborNode(node as CborNode),
  );
}

/** The pre-commit of `sectorNumber`, if there is one. */
export function getPrecommittedSector(
  store: Blockstore,
  state: MinerState,
  sectorNumber: bigint,
): SectorPreCommitOnChainInfo | undefined {
  const node = loadPreCommits(store, state).get(sectorKey(sectorNumber));
  return node === undefined ? undefined : decodePreCommit(node, sectorNumber);
}

/** The pre-commits of `sectorNumbers`, in that order; USR_NOT_FOUND for one that is missing. */
export function getPrecommittedSectors(
  store: Blockstore,
  state: MinerState,
  sectorNumbers: Iterable<bigint>,
): SectorPreCommitOnChainInfo[] {
  const map = loadPreCommits(store, state);
  const found: SectorPreCommitOnChainInfo[] = [];
  for (const sectorNumber of sectorNumbers) {
    if (sectorNumber > MAX_SECTOR_NUMBER) illegalArgument('sector number greater than maximum');
    const node = map.get(sectorKey(sectorNumber));
    if (node === undefined) notFound(`sector ${sectorNumber} not found`);
    found.push(decodePreCommit(node, sectorNumber));
  }
  return found;
}

/** The pre-commits of `sectorNumbers` that exist, skipping the others (genesis set-up). */
export function findPrecommittedSectors(
  store: Blockstore,
  state: MinerState,
  sectorNumbers: Iterable<bigint>,
): SectorPreCommitOnChainInfo[] {
  const map = loadPreCommits(store, state);
  const found: SectorPreCommitOnChainInfo[] = [];
  for (const sectorNumber of sectorNumbers) {
    const node = map.get(sectorKey(sectorNumber));
    if (node !== undefined) found.push(decodePreCommit(node, sectorNumber));
  }
  return found;
}

export function putPrecommittedSectors(
  store: Blockstore,
  state: MinerState,
  precommits: readonly SectorPreCommitOnChainInfo[],
): void {
  const map = loadPreCommits(store, state);
  for (const precommit of precommits) {
    const sectorNumber = precommit.info.sectorNumber;
    if (!map.setIfAbsent(sectorKey(sectorNumber), sectorPreCommitOnChainInfoStruct.toCborNode(precommit))) {
      illegalState(`sector ${sectorNumber} already pre-committed`);
    }
  }
  state.preCommittedSectors = map.flush();
}

export function deletePrecommittedSectors(store: Blockstore, state: MinerState, sectorNumbers: Iterable<bigint>): void {
  const map = loadPreCommits(store, state);
  for (const sectorNumber of sectorNumbers) {
    if (!map.delete(sectorKey(sectorNumber))) illegalState(`sector ${sectorNumber} not pre-committed`);
  }
  state.preCommittedSectors = map.flush();
}

/** Marks `sectorNumbers` used for good; USR_ILLEGAL_ARGUMENT if any already was. */
export function allocateSectorNumbers(store: Blockstore, state: MinerState, sectorNumbers: BitField): void {
  const prior = orIllegalState('failed to load allocated sectors bitfield', () =>
    bitFieldKind.fromCbor(decodeCbor(getBlock(store, state.allocatedSectors)) as CborNode, 'allocated sectors'),
  );
  const collisions = prior.intersect(sectorNumbers);
  if (!collisions.isEmpty()) illegalArgument(`sector numbers ${[...collisions.values()].join(', ')} already allocated`);
  state.allocatedSectors = putCborBytes(
    store,
    encodeCbor(bitFieldKind.toCbor(prior.union(sectorNumbers), 'allocated sectors')),
  );
}

/** Clean-ups are quantized to the end of each deadline (builtin-actors `quant_spec_every_deadline`). */
function cleanUpQueue(store: Blockstore, state: MinerState, policy: MinerPolicy): BitFieldQueue {
  return BitFieldQueue.load(
    store,
    state.preCommittedSectorsCleanUp,
    quantSpec(policy.wPoStChallengeWindow, state.provingPeriodStart),
  );
}

export function addPreCommitCleanUps(
  store: Blockstore,
  state: MinerState,
  policy: MinerPolicy,
  events: Iterable<readonly [epoch: bigint, sectorNumber: bigint]>,
): void {
  const queue = cleanUpQueue(store, state, policy);
  queue.addManyToQueueValues(events);
  state.preCommittedSectorsCleanUp = queue.flush();
}

/** Deletes the pre-commits whose prove-commit window has passed; returns their deposits, to burn. */
export function cleanUpExpiredPreCommits(
  store: Blockstore,
  state: MinerState,
  policy: MinerPolicy,
  epoch: bigint,
): bigint {
  const queue = cleanUpQueue(store, state, policy);
  const { popped, modified } = queue.popUntil(epoch);
  if (modified) state.preCommittedSectorsCleanUp = queue.flush();
  const expired = findPrecommittedSectors(store, state, popped.values());
  if (expired.length > 0)
    deletePrecommittedSectors(
      store,
      state,
      expired.map((p) => p.info.sectorNumber),
    );
  const depositToBurn = expired.reduce((sum, p) => sum + p.preCommitDeposit, 0n);
  state.preCommitDeposits -= depositToBurn;
  if (state.preCommitDeposits < 0n)
    illegalState(`pre-commit clean up caused negative deposits: ${state.preCommitDeposits}`);
  return depositToBurn;
}

/** Pre-commits, decoded, for RPC queries. */
export function allPrecommittedSectors(store: Blockstore, root: CID): SectorPreCommitOnChainInfo[] {
  const map = Hamt.load(store, root, hamtOptions);
  return Array.from(map.entries(), ([, node]) => sectorPreCommitOnChainInfoStruct.fromCborNode(node as CborNode));
}
