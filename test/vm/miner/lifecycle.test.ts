/**
 * A sector's life on chain, through messages and cron with real proofs: a new miner pre-commits two
 * 2 KiB sectors it sealed with the native core, proves them (PoRep verified by the actor), gains
 * power with its first window PoSt, loses it when it misses one and pays the fault fee, recovers it,
 * and a forged PoSt is caught by a dispute. Randomness comes from a fixed table per round instead of
 * a chain (the chain's own lookups are tested in test/chain/randomness.test.ts); everything else is
 * the real state machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CID } from 'multiformats/cid';
import { blake2b256, DomainSeparationTag, drawRandomnessFromDigest } from '../../../src/crypto/index.js';
import { BitField } from '../../../src/ipld/index.js';
import {
  commitSector,
  ensureParameters,
  generateWindowPost,
  precommitSector,
  sealedCid,
} from '../../../src/proofs/index.js';
import { Address, decodeCbor, encodeCbor, type Message, type SignedMessage } from '../../../src/types/index.js';
import { newDeadlineInfo, newDeadlineInfoFromOffsetAndEpoch } from '../../../src/vm/actors/miner/deadline-info.js';
import { Deadlines } from '../../../src/vm/actors/miner/deadlines.js';
import {
  batchReturnStruct,
  declareFaultsRecoveredParams,
  disputeWindowedPoStParams,
  extendSectorExpiration2Params,
  preCommitSectorBatch2Params,
  proveCommitSectors3Params,
  submitWindowedPoStParams,
  terminateSectorsParams,
} from '../../../src/vm/actors/miner/params.js';
import {
  encodeCreateMinerParams,
  MinerMethod,
  minerPower,
  minerState,
  PowerMethod,
  type RandomnessSource,
  type TipsetApplication,
} from '../../../src/vm/index.js';
import { minerAllSectors } from '../../../src/vm/queries.js';
import { applyAt, block } from '../../helpers/apply-tipset.js';
import { FIL, PARAMS, standardGenesis } from '../../helpers/genesis.js';
import { keys } from '../../helpers/keys.js';
import { message, signSecp } from '../../helpers/messages.js';
import { balanceOf, loadTree } from '../../helpers/state.js';

const POLICY = PARAMS.minerPolicy;
const MINER = Address.newId(1001n);
const ENTROPY = encodeCbor(MINER.bytes);
const SECTOR_COUNT = 2n;
const EXPIRATION = 700_000n;
const ILLEGAL_ARGUMENT = 16n;
const PROOF_TIMEOUT_MS = 10 * 60_000;

/** A fixed digest per round standing in for the chain's tickets and beacon. */
const randomness: RandomnessSource = {
  ticketDigest: (round) => blake2b256(new TextEncoder().encode(`ticket ${round}`)),
  beaconDigest: (round) => blake2b256(new TextEncoder().encode(`beacon ${round}`)),
};
const ticketDraw = (tag: DomainSeparationTag, round: bigint, entropy: Uint8Array) =>
  drawRandomnessFromDigest(randomness.ticketDigest(round), tag, round, entropy);
const beaconDraw = (tag: DomainSeparationTag, round: bigint, entropy: Uint8Array) =>
  drawRandomnessFromDigest(randomness.beaconDigest(round), tag, round, entropy);

/** The miner's owner is the worker key of the genesis miner (BLS, 1000 FIL); its worker is carol. */
const fromOwner = (fields: Omit<Parameters<typeof message>[0], 'from'>) =>
  message({ gasLimit: 2_000_000_000n, ...fields, from: keys.worker.address });

interface Chain {
  readonly root: CID;
  readonly epoch: bigint;
}

describe('sector lifecycle on chain', () => {
  const genesis = standardGenesis();
  let dir: string;
  let commRs: Uint8Array[];
  /** After ProveCommitSectors3: the sectors are in a deadline, unproven, without power. */
  let proven: Chain;
  let deadlineIndex: bigint;

  /** Applies one tipset at `epoch` on `chain` (the epochs between are null rounds: cron runs for each). */
  async function apply(
    chain: Chain,
    epoch: bigint,
    blsMessages: Message[],
    secp: SignedMessage[] = [],
  ): Promise<[Chain, TipsetApplication]> {
    const result = await applyAt(genesis, chain.root, epoch, [block(secp, blsMessages)], {
      parentEpoch: chain.epoch,
      randomness,
    });
    return [{ root: result.stateRoot, epoch }, result];
  }

  const tree = (chain: Chain) => loadTree(genesis, chain.root);
  const power = (chain: Chain) => minerPower(tree(chain), MINER, PARAMS)!.miner;

  /** The sectors' deadline's challenge window that has not closed by `epoch`. */
  function window(chain: Chain, epoch: bigint) {
    const state = minerState(tree(chain), MINER);
    const periodStart = newDeadlineInfoFromOffsetAndEpoch(POLICY, state.provingPeriodStart, epoch).periodStart;
    return newDeadlineInfo(POLICY, periodStart, deadlineIndex, epoch).nextNotElapsed();
  }

  async function windowPoSt(
    challenge: bigint,
    nonce: bigint,
    proofBytes?: Uint8Array,
    partitions = [{ index: 0n, skipped: BitField.EMPTY }],
  ) {
    const rand = beaconDraw(DomainSeparationTag.WindowedPoStChallengeSeed, challenge, ENTROPY);
    const proof =
      proofBytes ??
      (await generateWindowPost(dir, {
        postProof: 10,
        minerId: 1001n,
        randomness: rand,
        sectors: commRs.map((commR, i) => ({ sectorNumber: BigInt(i), commR })),
      }));
    return fromOwner({
      to: MINER,
      nonce,
      method: MinerMethod.SubmitWindowedPoSt,
      params: submitWindowedPoStParams.encode({
        deadline: deadlineIndex,
        partitions,
        proofs: [{ postProof: 10n, proofBytes: proof }],
        chainCommitEpoch: challenge,
        chainCommitRand: ticketDraw(DomainSeparationTag.PoStChainCommit, challenge, new Uint8Array()),
      }),
    });
  }

  beforeAll(async () => {
    await ensureParameters({ porep: true });
    dir = await mkdtemp(join(tmpdir(), 'ledger-lifecycle-'));
    const zero: Chain = { root: genesis.genesisRoot, epoch: 0n };
    const [created, createResult] = await apply(zero, 1n, [
      fromOwner({
        to: Address.newId(4n),
        nonce: 0n,
        value: 200n * FIL,
        method: PowerMethod.CreateMiner,
        params: encodeCreateMinerParams({
          owner: keys.worker.address,
          worker: keys.carol.address,
          windowPoStProofType: 10n,
          peer: new Uint8Array([1]),
          multiaddrs: [],
        }),
      }),
    ]);
    expect(createResult.receipts[0]!.exitCode).toBe(0n);

    // Seal with the ticket the actor will draw: SealRandomness at the pre-commit's seal epoch.
    const ticket = ticketDraw(DomainSeparationTag.SealRandomness, 1n, ENTROPY);
    const piece = new Uint8Array(2032);
    const sealed = [];
    for (let n = 0n; n < SECTOR_COUNT; n++) {
      sealed.push(await precommitSector({ dir, minerId: 1001n, sectorNumber: n }, { ticket, piece }));
    }
    commRs = sealed.map((s) => s.commR);
    const [precommitted, precommitResult] = await apply(created, 2n, [
      fromOwner({
        to: MINER,
        nonce: 1n,
        method: MinerMethod.PreCommitSectorBatch2,
        params: preCommitSectorBatch2Params.encode({
          sectors: sealed.map((s, i) => ({
            sealProof: 5n,
            sectorNumber: BigInt(i),
            sealedCid: sealedCid(s.commR),
            sealRandEpoch: 1n,
            dealIds: [],
            expiration: EXPIRATION,
            unsealedCid: null,
          })),
        }),
      }),
    ]);
    expect(precommitResult.receipts[0]!.exitCode).toBe(0n);
    const afterPrecommit = minerState(tree(precommitted), MINER);
    expect(afterPrecommit.preCommitDeposits).toBeGreaterThan(0n);
    expect(afterPrecommit.deadlineCronActive).toBe(true);

    // The seed is the beacon draw at pre-commit epoch + PreCommitChallengeDelay.
    const seedEpoch = 2n + POLICY.preCommitChallengeDelay;
    const seed = beaconDraw(DomainSeparationTag.InteractiveSealChallengeSeed, seedEpoch, ENTROPY);
    const proofs = [];
    for (let n = 0n; n < SECTOR_COUNT; n++) {
      const s = sealed[Number(n)]!;
      proofs.push(await commitSector({ dir, minerId: 1001n, sectorNumber: n }, { ...s, ticket, seed }));
    }
    const prove = (sectorProofs: Uint8Array[]) =>
      fromOwner({
        to: MINER,
        nonce: 2n,
        method: MinerMethod.ProveCommitSectors3,
        params: proveCommitSectors3Params.encode({
          sectorActivations: [0n, 1n].map((sectorNumber) => ({ sectorNumber, pieces: [] })),
          sectorProofs,
          aggregateProof: new Uint8Array(),
          aggregateProofType: null,
          requireActivationSuccess: false,
          requireNotificationSuccess: false,
        }),
      });
    // Too early: the seed epoch has not passed.
    const [, early] = await apply(precommitted, seedEpoch, [prove(proofs)]);
    expect(early.receipts[0]!.exitCode).toBe(18n);
    // A forged proof for each sector: nothing proven, USR_ILLEGAL_ARGUMENT as builtin-actors.
    const forged = proofs.map((p) => Uint8Array.from(p, (b, i) => (i === 10 ? b ^ 1 : b)));
    const [, refused] = await apply(precommitted, seedEpoch + 1n, [prove(forged)]);
    expect(refused.receipts[0]!.exitCode).toBe(ILLEGAL_ARGUMENT);

    const [afterProve, proveResult] = await apply(precommitted, seedEpoch + 1n, [prove(proofs)]);
    expect(proveResult.receipts[0]!.exitCode).toBe(0n);
    expect(batchReturnStruct.decode(proveResult.receipts[0]!.return)).toEqual({ successCount: 2n, failCodes: [] });
    proven = afterProve;
    const state = minerState(tree(proven), MINER);
    deadlineIndex = Deadlines.load(genesis.store, state.deadlines).findSector(genesis.store, 0n).deadline;
  }, PROOF_TIMEOUT_MS);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('prove-commit: sectors with pledge, the deposits released, in one partition, unproven and without power', () => {
    const t = tree(proven);
    const state = minerState(t, MINER);
    expect(state.preCommitDeposits).toBe(0n);
    expect(state.initialPledge).toBeGreaterThan(0n);
    expect(minerAllSectors(t, MINER).map((s) => [s.sectorNumber, s.expiration, s.flags])).toEqual([
      [0n, EXPIRATION, 1n],
      [1n, EXPIRATION, 1n],
    ]);
    const deadline = Deadlines.load(genesis.store, state.deadlines).loadDeadline(genesis.store, deadlineIndex);
    const partition = deadline.loadPartition(genesis.store, 0n);
    expect([...partition.unproven.values()]).toEqual([0n, 1n]);
    expect(power(proven)).toMatchObject({ rawBytePower: 0n, qualityAdjPower: 0n });
  });

  test(
    'the first window PoSt activates the power; a second one for the same partition is refused',
    async () => {
      const next = window(proven, proven.epoch);
      const [posted, result] = await apply(proven, next.open, [await windowPoSt(next.challenge, 3n)]);
      expect(result.receipts[0]!.exitCode).toBe(0n);
      expect(power(posted)).toMatchObject({ rawBytePower: 4096n, qualityAdjPower: 4096n });
      const [, again] = await apply(posted, next.open + 1n, [await windowPoSt(next.challenge, 4n)]);
      expect(again.receipts[0]!.exitCode).toBe(ILLEGAL_ARGUMENT);
    },
    PROOF_TIMEOUT_MS,
  );

  test(
    'a forged PoSt is accepted optimistically; a dispute then faults the sectors and fines the miner',
    async () => {
      const next = window(proven, proven.epoch);
      const [posted, result] = await apply(proven, next.open, [
        await windowPoSt(next.challenge, 3n, new Uint8Array(192).fill(7)),
      ]);
      expect(result.receipts[0]!.exitCode).toBe(0n);
      expect(power(posted).rawBytePower).toBe(4096n);
      const dispute = (nonce: bigint) =>
        signSecp(
          keys.bob,
          message({
            from: keys.bob.address,
            to: MINER,
            nonce,
            method: MinerMethod.DisputeWindowedPoSt,
            params: disputeWindowedPoStParams.encode({ deadline: deadlineIndex, poStIndex: 0n }),
            gasLimit: 2_000_000_000n,
          }),
        );
      const bobBefore = balanceOf(tree(posted), keys.bob.address);
      const [disputed, disputeResult] = await apply(posted, next.close + 1n, [], [dispute(0n)]);
      expect(disputeResult.receipts[0]!.exitCode).toBe(0n);
      expect(power(disputed).rawBytePower).toBe(0n);
      // The reporter gets 4 FIL (less the gas it paid); the miner's balance fell by the whole fine.
      const bobAfter = balanceOf(tree(disputed), keys.bob.address);
      expect(bobAfter - bobBefore).toBeGreaterThan(3n * FIL);
      expect(bobAfter - bobBefore).toBeLessThanOrEqual(4n * FIL);
      expect(balanceOf(tree(disputed), MINER)).toBeLessThan(balanceOf(tree(posted), MINER) - 4n * FIL);
    },
    PROOF_TIMEOUT_MS,
  );

  test(
    'a dispute against an honest PoSt fails',
    async () => {
      const next = window(proven, proven.epoch);
      const [posted] = await apply(proven, next.open, [await windowPoSt(next.challenge, 3n)]);
      const dispute = signSecp(
        keys.bob,
        message({
          from: keys.bob.address,
          to: MINER,
          nonce: 0n,
          method: MinerMethod.DisputeWindowedPoSt,
          params: disputeWindowedPoStParams.encode({ deadline: deadlineIndex, poStIndex: 0n }),
          gasLimit: 2_000_000_000n,
        }),
      );
      const [, result] = await apply(posted, next.close + 1n, [], [dispute]);
      expect(result.receipts[0]!.exitCode).toBe(ILLEGAL_ARGUMENT);
    },
    PROOF_TIMEOUT_MS,
  );

  test(
    'a missed PoSt faults the sectors and charges the fault fee; a recovery and the next PoSt restore the power',
    async () => {
      const first = window(proven, proven.epoch);
      const [posted] = await apply(proven, first.open, [await windowPoSt(first.challenge, 3n)]);
      // Skip the next period's window: the cron at its last epoch marks the partition faulty.
      const missed = window(posted, first.close);
      const [faulted] = await apply(posted, missed.close + 1n, []);
      expect(power(faulted).rawBytePower).toBe(0n);
      // The continued-fault fee is charged from the deadline's next end on. Beside a branch that proved in
      // the missed window (same sectors, same daily fee), the faulty miner's balance falls further.
      const following = window(faulted, missed.close + 1n);
      const [charged] = await apply(faulted, following.close + 1n, []);
      const [provedAgain] = await apply(posted, missed.open, [await windowPoSt(missed.challenge, 4n)]);
      const [honestStart] = await apply(provedAgain, missed.close + 1n, []);
      const [honestEnd] = await apply(honestStart, following.close + 1n, []);
      const spent = (from: Chain, to: Chain) => balanceOf(tree(from), MINER) - balanceOf(tree(to), MINER);
      expect(spent(faulted, charged)).toBeGreaterThan(spent(honestStart, honestEnd));

      // Declare the recovery before the next window's fault cutoff, then prove: verified on chain.
      const [declared, declareResult] = await apply(charged, charged.epoch + 1n, [
        fromOwner({
          to: MINER,
          nonce: 4n,
          method: MinerMethod.DeclareFaultsRecovered,
          params: declareFaultsRecoveredParams.encode({
            recoveries: [{ deadline: deadlineIndex, partition: 0n, sectors: BitField.of([0n, 1n]) }],
          }),
        }),
      ]);
      expect(declareResult.receipts[0]!.exitCode).toBe(0n);
      const target = window(declared, declared.epoch);
      // A forged proof that recovers power is verified at once, and refused.
      const [, forged] = await apply(declared, target.open, [
        await windowPoSt(target.challenge, 5n, new Uint8Array(192).fill(9)),
      ]);
      expect(forged.receipts[0]!.exitCode).toBe(ILLEGAL_ARGUMENT);
      const [recovered, result] = await apply(declared, target.open, [await windowPoSt(target.challenge, 5n)]);
      expect(result.receipts[0]!.exitCode).toBe(0n);
      expect(power(recovered).rawBytePower).toBe(4096n);
    },
    PROOF_TIMEOUT_MS,
  );

  test(
    'terminating a sector removes its power and pledge and charges the termination fee; extending moves the expiration',
    async () => {
      const first = window(proven, proven.epoch);
      const [posted] = await apply(proven, first.open, [await windowPoSt(first.challenge, 3n)]);
      const pledgeBefore = minerState(tree(posted), MINER).initialPledge;
      // The deadline must be mutable: neither its own window nor the one before.
      const at = first.close + 2n * POLICY.wPoStChallengeWindow;
      const [terminated, result] = await apply(posted, at, [
        fromOwner({
          to: MINER,
          nonce: 4n,
          method: MinerMethod.TerminateSectors,
          params: terminateSectorsParams.encode({
            terminations: [{ deadline: deadlineIndex, partition: 0n, sectors: BitField.of([1n]) }],
          }),
        }),
        fromOwner({
          to: MINER,
          nonce: 5n,
          method: MinerMethod.ExtendSectorExpiration2,
          params: extendSectorExpiration2Params.encode({
            extensions: [
              {
                deadline: deadlineIndex,
                partition: 0n,
                sectors: BitField.of([0n]),
                sectorsWithClaims: [],
                newExpiration: EXPIRATION + 100_000n,
              },
            ],
          }),
        }),
      ]);
      expect(result.receipts.map((r) => r.exitCode)).toEqual([0n, 0n]);
      expect(decodeCbor(result.receipts[0]!.return)).toEqual([true]);
      expect(power(terminated).rawBytePower).toBe(2048n);
      const state = minerState(tree(terminated), MINER);
      expect(state.initialPledge).toBeLessThan(pledgeBefore);
      expect(state.earlyTerminations.isEmpty()).toBe(true);
      const [sector0] = minerAllSectors(tree(terminated), MINER, BitField.of([0n]));
      expect([sector0!.expiration, sector0!.powerBaseEpoch]).toEqual([EXPIRATION + 100_000n, at]);
    },
    PROOF_TIMEOUT_MS,
  );
});
