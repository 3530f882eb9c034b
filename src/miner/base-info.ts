/**
 * Lotus `MinerGetBaseInfo` (filecoin-project/lotus `chain/stmgr/actors.go`, `api/api_full.go`):
 * what a miner needs to mine `round` on `base` — the beacon entries the block will carry and the
 * one before them, the lookback state's powers and worker key, the challenged winning PoSt sectors
 * and whether the miner may mine. Null (not an error) when the miner does not exist at the lookback
 * or has no sectors to prove.
 */
import { beaconForEpoch, latestBeaconRound, maxBeaconRoundForEpoch } from '../beacon/index.js';
import {
  beaconEntriesForBlock,
  chainClockOf,
  lookbackForRound,
  minerWorkerKey,
  randomnessBase,
  winningPoStChallenge,
  winningPoStRandomness,
} from '../consensus/index.js';
import type { PoStSector, RegisteredPoStProof } from '../proofs/index.js';
import { StateTree } from '../state/index.js';
import {
  type Address,
  addressToLotusJson,
  type BeaconEntry,
  type BeaconEntryJson,
  beaconEntryToLotusJson,
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  type TipSet,
  toJsonInteger,
} from '../types/index.js';
import { minerEligibleToMine, minerInfo, minerPower, type SectorOnChainInfo } from '../vm/index.js';
import type { MinerContext } from './context.js';
import { MinerError, MinerErrorCode } from './errors.js';

/**
 * The most epochs MinerGetBaseInfo serves between its base and its round over RPC: one beacon
 * entry is made (and answered) per epoch in between, about a millisecond and 200 bytes each.
 * A day of mainnet epochs (Lotus `builtin.EpochsInDay`); a miner mines on a recent head.
 */
export const MAX_BASE_INFO_EPOCHS_AFTER_BASE = 2880n;

export interface MiningBaseInfo {
  /** Quality-adjusted power at the lookback state. */
  readonly minerPower: bigint;
  readonly networkPower: bigint;
  /** The sectors the winning PoSt challenges, with their on-chain records. */
  readonly sectors: readonly SectorOnChainInfo[];
  readonly workerKey: Address;
  readonly sectorSize: bigint;
  readonly prevBeaconEntry: BeaconEntry;
  readonly beaconEntries: readonly BeaconEntry[];
  readonly eligibleForMining: boolean;
  /** Not in Lotus's JSON: what winning PoSt generation needs. */
  readonly minerId: bigint;
  readonly winningPoStProofType: RegisteredPoStProof;
  readonly postSectors: readonly PoStSector[];
  readonly winningPoStRandomness: Uint8Array;
}

export interface MiningBaseInfoJson {
  MinerPower: string;
  NetworkPower: string;
  Sectors: { SealProof: JsonInteger; SectorNumber: JsonInteger; SectorKey: CidJson | null; SealedCID: CidJson }[];
  WorkerKey: string;
  SectorSize: JsonInteger;
  PrevBeaconEntry: BeaconEntryJson;
  BeaconEntries: BeaconEntryJson[];
  EligibleForMining: boolean;
}

/**
 * Refuses what Lotus cannot serve, before any work: a round whose beacon entry the beacon has
 * not published yet. Lotus fetches the entries from drand (`chain/beacon/drand`), whose relays
 * wait for the next round and answer an error for any later one; the devnet's local beacon
 * could sign rounds of any time, so the limit is held here: at most one round past the latest
 * one due now. Also a round more than MAX_BASE_INFO_EPOCHS_AFTER_BASE after its base, or at or
 * below it.
 */
export function checkBaseInfoRound(ctx: MinerContext, round: bigint, base: TipSet, nowMs: number): void {
  const fail = (why: string): never => {
    throw new MinerError(
      MinerErrorCode.BadRound,
      `cannot serve round ${round} on the tipset at ${base.height}: ${why}`,
    );
  };
  if (round <= base.height) fail('the round must be above its base tipset');
  const { network } = beaconForEpoch(ctx.beacon, round);
  const needed = maxBeaconRoundForEpoch(network, chainClockOf(ctx.chain, ctx.params), round);
  const nowSecs = BigInt(Math.floor(nowMs / 1000));
  const latest = latestBeaconRound(network, nowSecs);
  if (needed > latest + 1n) {
    const dueIn = network.genesisTime + (needed - 1n) * network.periodSecs - nowSecs;
    fail(
      `it needs beacon round ${needed}, due in ${dueIn} s, and the beacon has reached round ${latest}: ask again when the round is due`,
    );
  }
  if (round - base.height > MAX_BASE_INFO_EPOCHS_AFTER_BASE) {
    fail(
      `more than ${MAX_BASE_INFO_EPOCHS_AFTER_BASE} epochs after its base (one beacon entry per epoch): mine on a recent tipset`,
    );
  }
}

/** `signal` (an RPC call's) stops the beacon work, which grows with the epochs between base and round. */
export async function getMiningBaseInfo(
  ctx: MinerContext,
  miner: Address,
  round: bigint,
  base: TipSet,
  signal?: AbortSignal,
): Promise<MiningBaseInfo | null> {
  const { chain, states, beacon, params } = ctx;
  const prevBeaconEntry = chain.latestBeaconEntry(base);
  const beaconEntries = await beaconEntriesForBlock(
    beacon,
    chainClockOf(chain, params),
    round,
    base.height,
    prevBeaconEntry,
    signal,
  );
  const rbase = randomnessBase(beaconEntries, prevBeaconEntry);
  const lookback = await lookbackForRound(chain, states, base, round);
  const lookbackTree = StateTree.load(chain.blockstore, lookback.stateRoot);
  const id = lookbackTree.lookupId(miner);
  if (id === undefined || lookbackTree.getActor(id) === undefined) return null;
  const randomness = winningPoStRandomness(rbase, miner, round);
  const challenge = await winningPoStChallenge(lookbackTree, miner, randomness);
  if (challenge.sectors.length === 0) return null;
  const power = minerPower(lookbackTree, miner, params);
  const baseTree = StateTree.load(chain.blockstore, base.parentStateRoot);
  return {
    minerPower: power?.miner.qualityAdjPower ?? 0n,
    networkPower: power?.total.qa ?? 0n,
    sectors: challenge.sectors,
    workerKey: minerWorkerKey(lookbackTree, miner),
    sectorSize: minerInfo(lookbackTree, miner).sectorSize,
    prevBeaconEntry,
    beaconEntries,
    // Lotus checks the minimum power in the lookback tipset's parent state.
    eligibleForMining: minerEligibleToMine(
      StateTree.load(chain.blockstore, lookback.tipSet.parentStateRoot),
      baseTree,
      base.height,
      miner,
      params,
    ),
    minerId: challenge.minerId,
    winningPoStProofType: challenge.proofType,
    postSectors: challenge.postSectors,
    winningPoStRandomness: randomness,
  };
}

export function miningBaseInfoToLotusJson(info: MiningBaseInfo): MiningBaseInfoJson {
  return {
    MinerPower: info.minerPower.toString(),
    NetworkPower: info.networkPower.toString(),
    Sectors: info.sectors.map((sector) => ({
      SealProof: toJsonInteger(sector.sealProof),
      SectorNumber: toJsonInteger(sector.sectorNumber),
      SectorKey: null,
      SealedCID: cidToLotusJson(sector.sealedCid),
    })),
    WorkerKey: addressToLotusJson(info.workerKey),
    SectorSize: toJsonInteger(info.sectorSize),
    PrevBeaconEntry: beaconEntryToLotusJson(info.prevBeaconEntry),
    BeaconEntries: info.beaconEntries.map(beaconEntryToLotusJson),
    EligibleForMining: info.eligibleForMining,
  };
}
