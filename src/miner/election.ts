/**
 * One round's election (Lotus `miner.mineOne` up to the winning PoSt): the ticket, the election
 * proof and its WinCount, the beacon entries, and — only when the miner wins — a real winning PoSt
 * over the challenged sectors in the context's sector directory. Null when the miner cannot mine
 * this round or does not win it.
 */
import { computeWinCount, electionVrfInput, randomnessBase, ticketVrfInput } from '../consensus/index.js';
import { generateWinningPost } from '../proofs/index.js';
import {
  type Address,
  type BeaconEntry,
  type ElectionProof,
  type PoStProof,
  SignatureType,
  type SignedMessage,
  type Ticket,
  type TipSet,
} from '../types/index.js';
import { getMiningBaseInfo } from './base-info.js';
import type { MinerContext, SignFunction } from './context.js';
import type { BlockTemplate } from './create-block.js';
import { MinerError, MinerErrorCode } from './errors.js';

export interface ElectionWin {
  readonly ticket: Ticket;
  readonly electionProof: ElectionProof;
  readonly beaconEntries: readonly BeaconEntry[];
  readonly winPoStProof: readonly PoStProof[];
}

/**
 * The template of the block `miner` won in `round` on `base`. Its timestamp follows Filecoin's rule:
 * the base's time plus one block delay per epoch since the base (null rounds included).
 */
export function winningBlockTemplate(input: {
  readonly miner: Address;
  readonly base: TipSet;
  readonly round: bigint;
  readonly win: ElectionWin;
  readonly messages: readonly SignedMessage[];
  readonly blockDelaySecs: bigint;
}): BlockTemplate {
  const { miner, base, round, win, messages, blockDelaySecs } = input;
  return {
    miner,
    parents: base.key,
    ticket: win.ticket,
    eproof: win.electionProof,
    beaconValues: win.beaconEntries,
    messages,
    epoch: round,
    timestamp: base.timestamp + blockDelaySecs * (round - base.height),
    winningPoStProof: win.winPoStProof,
  };
}

async function vrf(sign: SignFunction, worker: Address, input: Uint8Array, what: string): Promise<Uint8Array> {
  const signature = await sign(worker, input);
  if (signature.type !== SignatureType.BLS) {
    throw new MinerError(MinerErrorCode.WorkerNotBls, `the ${what} VRF needs a BLS signature by worker ${worker}`);
  }
  return signature.data;
}

export async function attemptElection(
  ctx: MinerContext,
  miner: Address,
  base: TipSet,
  round: bigint,
  sign: SignFunction,
): Promise<ElectionWin | null> {
  if (round <= base.height) {
    throw new MinerError(MinerErrorCode.BadRound, `round ${round} is not above the base height ${base.height}`);
  }
  const info = await getMiningBaseInfo(ctx, miner, round, base);
  if (info === null || !info.eligibleForMining) return null;
  const rbase = randomnessBase(info.beaconEntries, info.prevBeaconEntry);
  const ticket = {
    vrfProof: await vrf(sign, info.workerKey, ticketVrfInput(rbase, miner, round, base.minTicket), 'ticket'),
  };
  const electionVrf = await vrf(sign, info.workerKey, electionVrfInput(rbase, miner, round), 'election');
  const winCount = computeWinCount(electionVrf, info.minerPower, info.networkPower, ctx.params.blocksPerEpoch);
  if (winCount < 1) return null;
  const proofBytes = await generateWinningPost(ctx.sectorDirectory, {
    minerId: info.minerId,
    randomness: info.winningPoStRandomness,
    sectors: info.postSectors,
    postProof: info.winningPoStProofType,
  });
  return {
    ticket,
    electionProof: { winCount: BigInt(winCount), vrfProof: electionVrf },
    beaconEntries: info.beaconEntries,
    winPoStProof: [{ postProof: BigInt(info.winningPoStProofType), proofBytes }],
  };
}
