/**
 * The sealing pipeline for committed-capacity sectors (filecoin-project/lotus
 * `storage/pipeline/states_sealing.go`, `fsm.go`): each sector walks the states of
 * `sector-state.ts`, one step at a time, and every step's result is written with its next state in
 * one database write, so a restart — after a crash too — resumes each sector at the step it was in.
 * A step interrupted by a crash runs again: sealing and proving rewrite their files from scratch,
 * and a message is pushed under the UUID stored with the state that sends it, so pushing again
 * returns the message already sent.
 *
 * The heavy steps (AddPiece + PC1 + PC2, C1 + C2) run through a `Sealer`: in the node, one sealing
 * process at the lowest CPU priority shared by all its miners (src/proofs/seal-process.ts), so block
 * production and window PoSt keep their cores while a sector seals; by default, the native core on
 * this process's libuv thread pool.
 */
import { randomUUID } from 'node:crypto';
import type { CID } from 'multiformats/cid';
import type { Logger } from 'pino';
import { DomainSeparationTag } from '../../crypto/index.js';
import type { SealingSectorRecord, SealingStore } from '../../db/index.js';
import type { NetworkParams } from '../../params/index.js';
import {
  commitSector,
  DEVNET_SEAL_PROOF,
  finalizeSector,
  precommitSector,
  type RegisteredSealProof,
  type Sealer,
  type SectorRef,
  sectorSize,
  verifySeal,
} from '../../proofs/index.js';
import { type Address, encodeAddress } from '../../types/index.js';
import { bytesEqual } from '../../utils/bytes.js';
import {
  EPOCHS_IN_DAY,
  MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK,
  maxProveCommitDuration,
} from '../../vm/actors/miner/policy.js';
import { MinerError, MinerErrorCode } from '../errors.js';
import type { SealingChainApi, SealingMinerInfo } from './chain-api.js';
import { committedCapacityExpiration, preCommitMessage, proveCommitMessage } from './messages.js';
import { isTerminalState, parseSectorState, SectorState } from './sector-state.js';

/** A sector as the pipeline sees it: the stored record with its state checked. */
export type SealingSector = SealingSectorRecord & { readonly state: SectorState };

/** Lotus `build.InteractivePoRepConfidence`: epochs on top of the seed epoch before the seed is drawn. */
export const INTERACTIVE_POREP_CONFIDENCE = 6n;

/** Lotus's default `Sealing.CommittedCapacitySectorLifetime`: 540 days (lotus `node/config/def.go`). */
export const DEFAULT_CC_SECTOR_LIFETIME = 540n * EPOCHS_IN_DAY;

/** Lotus `build.MessageConfidence` on mainnet; the 2k build uses 1. */
export const DEFAULT_MESSAGE_CONFIDENCE = 5n;

/** Bad proofs tolerated before a sector is given up (Lotus reseals after the second). */
const MAX_INVALID_PROOFS = 2;
/** The longest wait, in heads, before a step whose chain calls keep failing runs again. */
export const MAX_RETRY_HEADS = 64;

type StepChanges = Partial<Omit<SealingSectorRecord, 'miner' | 'sectorNumber' | 'state' | 'updatedAt'>>;
type Step = (sector: SealingSector) => Promise<SealingSector>;

export interface SealingPipelineOptions {
  readonly store: SealingStore;
  readonly chain: SealingChainApi;
  /** The miner actor (any address form). */
  readonly miner: Address;
  /** The storage root of the sector files (`sealed/`, `cache/`, `unsealed/`). */
  readonly sectorDirectory: string;
  /** The network's policy and chain finality (the seal ticket's lookback). */
  readonly params: Pick<NetworkParams, 'minerPolicy' | 'chainFinality'>;
  /** Default StackedDrg2KiBV1_1. */
  readonly sealProof?: RegisteredSealProof;
  /** Epochs a committed-capacity sector lives; default 540 days. */
  readonly ccSectorLifetime?: bigint;
  /** Tipsets on top of a message's execution before its receipt counts; default 5. */
  readonly messageConfidence?: bigint;
  /** Runs PC and C1 + C2; default in this process. */
  readonly sealer?: Sealer;
  readonly logger?: Logger | undefined;
  /** Called after each persisted transition (logs, metrics, tests). */
  readonly onTransition?: ((sector: SealingSector) => void) | undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A new sector: allocated, nothing done yet. */
export function packingSector(miner: bigint, sectorNumber: bigint, sealProof: RegisteredSealProof): SealingSector {
  return {
    miner,
    sectorNumber,
    state: SectorState.Packing,
    sealProof,
    ticketEpoch: null,
    ticket: null,
    commR: null,
    commD: null,
    messageUuid: null,
    preCommitMessage: null,
    preCommitEpoch: null,
    seedEpoch: null,
    seed: null,
    proof: null,
    commitMessage: null,
    invalidProofs: 0,
    failure: null,
    updatedAt: Date.now(),
  };
}

/** A field a state needs from an earlier step. */
function need<K extends keyof SealingSectorRecord>(
  sector: SealingSector,
  field: K,
): Exclude<SealingSectorRecord[K], null> {
  const value = sector[field];
  if (value === null) {
    throw new MinerError(
      MinerErrorCode.SealingBadRecord,
      `sector ${sector.sectorNumber} is in state ${sector.state} without its ${String(field)}`,
    );
  }
  return value as Exclude<SealingSectorRecord[K], null>;
}

export class SealingPipeline {
  readonly #store: SealingStore;
  readonly #chain: SealingChainApi;
  readonly #params: SealingPipelineOptions['params'];
  readonly #sectorDirectory: string;
  readonly #sealProof: RegisteredSealProof;
  readonly #sealer: Sealer;
  readonly #ccSectorLifetime: bigint;
  readonly #messageConfidence: bigint;
  readonly #logger: Logger | undefined;
  readonly #onTransition: SealingPipelineOptions['onTransition'];
  readonly #miner: SealingMinerInfo;
  readonly #minerId: bigint;
  /** CBOR of the miner's ID address: the entropy of its seal ticket and seed. */
  readonly #entropy: Uint8Array;
  readonly #abort = new AbortController();
  readonly #running = new Map<bigint, Promise<void>>();
  readonly #settledWaiters = new Map<
    bigint,
    { resolve: (sector: SealingSector) => void; reject: (error: Error) => void }[]
  >();
  readonly #steps: Readonly<Record<SectorState, Step | undefined>>;

  private constructor(options: SealingPipelineOptions, miner: SealingMinerInfo, sealProof: RegisteredSealProof) {
    this.#store = options.store;
    this.#chain = options.chain;
    this.#params = options.params;
    this.#sectorDirectory = options.sectorDirectory;
    this.#sealProof = sealProof;
    this.#sealer = options.sealer ?? { precommitSector, commitSector };
    this.#ccSectorLifetime = options.ccSectorLifetime ?? DEFAULT_CC_SECTOR_LIFETIME;
    this.#messageConfidence = options.messageConfidence ?? DEFAULT_MESSAGE_CONFIDENCE;
    this.#logger = options.logger;
    this.#onTransition = options.onTransition;
    this.#miner = miner;
    this.#minerId = miner.id.id();
    this.#entropy = encodeAddress(miner.id);
    this.#steps = {
      [SectorState.Packing]: async (sector) => this.#to(sector, SectorState.PreCommit1, {}),
      [SectorState.PreCommit1]: (sector) => this.#preCommit1(sector),
      [SectorState.PreCommitting]: (sector) => this.#preCommitting(sector),
      [SectorState.PreCommitWait]: (sector) => this.#preCommitWait(sector),
      [SectorState.WaitSeed]: (sector) => this.#waitSeed(sector),
      [SectorState.Committing]: (sector) => this.#committing(sector),
      [SectorState.SubmitCommit]: (sector) => this.#submitCommit(sector),
      [SectorState.CommitWait]: (sector) => this.#commitWait(sector),
      [SectorState.FinalizeSector]: (sector) => this.#finalize(sector),
      [SectorState.SealPreCommit1Failed]: (sector) => this.#retryAfterNextHead(sector, SectorState.PreCommit1),
      [SectorState.ComputeProofFailed]: (sector) => this.#computeProofFailed(sector),
      [SectorState.Proving]: undefined,
      [SectorState.PreCommitFailed]: undefined,
      [SectorState.CommitFailed]: undefined,
      [SectorState.FailedUnrecoverable]: undefined,
    };
  }

  /** A pipeline for `options.miner`, which must exist on chain with the seal proof's sector size. */
  static async open(options: SealingPipelineOptions): Promise<SealingPipeline> {
    const sealProof = options.sealProof ?? DEVNET_SEAL_PROOF;
    const miner = await options.chain.stateMinerInfo(options.miner);
    if (miner.sectorSize !== sectorSize(sealProof)) {
      throw new MinerError(
        MinerErrorCode.SealingBadMiner,
        `miner ${options.miner} has ${miner.sectorSize}-byte sectors; seal proof ${sealProof} seals ${sectorSize(sealProof)}-byte ones`,
      );
    }
    return new SealingPipeline(options, miner, sealProof);
  }

  /** The miner's ID address. */
  get miner(): Address {
    return this.#miner.id;
  }

  /** Resumes every sector of the miner that has not reached a final state. */
  start(): void {
    for (const sector of this.sectors()) {
      if (!isTerminalState(sector.state)) this.#drive(sector);
    }
  }

  /**
   * Starts a new committed-capacity sector (lotus-miner `sectors pledge`): its number is above
   * every number the miner actor allocated and every number this pipeline handed out before.
   */
  async pledgeSector(): Promise<SealingSector> {
    this.#requireRunning();
    const allocated = await this.#chain.stateMinerAllocated(this.#miner.id);
    const floor = (allocated.last() ?? -1n) + 1n;
    const sector = this.#checked(
      this.#store.allocate(this.#minerId, floor, (sectorNumber) =>
        packingSector(this.#minerId, sectorNumber, this.#sealProof),
      ),
    );
    this.#logger?.info({ sector: sector.sectorNumber }, 'pledged a committed-capacity sector');
    this.#onTransition?.(sector);
    this.#drive(sector);
    return sector;
  }

  sector(sectorNumber: bigint): SealingSector | undefined {
    const record = this.#store.get(this.#minerId, sectorNumber);
    return record === undefined ? undefined : this.#checked(record);
  }

  sectors(): SealingSector[] {
    return this.#store.list(this.#minerId).map((record) => this.#checked(record));
  }

  /**
   * Resolves with the sector once it reaches a final state (Proving or a failure the pipeline does
   * not leave); rejects if the pipeline stops first.
   */
  whenSettled(sectorNumber: bigint): Promise<SealingSector> {
    const sector = this.sector(sectorNumber);
    if (sector === undefined) {
      return Promise.reject(
        new MinerError(MinerErrorCode.SealingBadRecord, `no sector ${sectorNumber} is sealing here`),
      );
    }
    if (isTerminalState(sector.state)) return Promise.resolve(sector);
    return new Promise((resolve, reject) => {
      const waiters = this.#settledWaiters.get(sectorNumber) ?? [];
      waiters.push({ resolve, reject });
      this.#settledWaiters.set(sectorNumber, waiters);
    });
  }

  /**
   * Stops: waits are cut short, and a step that is running is dropped when it returns (it runs
   * again at the next start). Resolves when no sector runs.
   */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#running.values());
    const stopped = new MinerError(MinerErrorCode.SealingStopped, 'the sealing pipeline stopped');
    for (const waiters of this.#settledWaiters.values()) for (const waiter of waiters) waiter.reject(stopped);
    this.#settledWaiters.clear();
  }

  #requireRunning(): void {
    if (this.#abort.signal.aborted)
      throw new MinerError(MinerErrorCode.SealingStopped, 'the sealing pipeline is stopped');
  }

  #checked(record: SealingSectorRecord): SealingSector {
    return { ...record, state: parseSectorState(record.state, record.sectorNumber) };
  }

  #drive(start: SealingSector): void {
    if (this.#running.has(start.sectorNumber) || this.#abort.signal.aborted) return;
    const run = this.#run(start)
      .catch((error: unknown) => {
        // The database refused a write: the sector stays where it was persisted, for the next start.
        this.#logger?.error({ sector: start.sectorNumber, err: error }, 'sealing stopped for this sector');
      })
      .finally(() => this.#running.delete(start.sectorNumber));
    this.#running.set(start.sectorNumber, run);
  }

  async #run(start: SealingSector): Promise<void> {
    let sector = start;
    /** Failures of the current step in a row. */
    let failures = 0;
    for (let step = this.#steps[sector.state]; step !== undefined; step = this.#steps[sector.state]) {
      if (this.#abort.signal.aborted) return;
      let next: SealingSector;
      try {
        next = await step(sector);
        // Stopped meanwhile: what the step found is dropped (its sealing process may have been
        // closed under it); it runs again at the next start, and a message it sent carries its MsgUuid.
        if (this.#abort.signal.aborted) return;
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        if (error instanceof MinerError && error.code === MinerErrorCode.SealingBadRecord) {
          // Retrying cannot bring back what the record lacks.
          next = this.#to(sector, SectorState.FailedUnrecoverable, { failure: error.message });
        } else {
          // A chain call failed (node not synced, not enough funds …): the step runs again later, after
          // twice as many heads each time (at most MAX_RETRY_HEADS), its error shown as the sector's LastErr.
          failures++;
          const heads = Math.min(2 ** (failures - 1), MAX_RETRY_HEADS);
          this.#logger?.warn(
            { sector: sector.sectorNumber, state: sector.state, err: error, failures, retryInHeads: heads },
            'sealing step failed; retrying',
          );
          sector = this.#to(sector, sector.state, { failure: `${sector.state}: ${errorMessage(error)}` });
          this.#store.put(sector);
          let seen = 0;
          try {
            await this.#waitForHead(() => ++seen >= heads, false);
          } catch {
            return;
          }
          continue;
        }
      }
      failures = 0;
      this.#store.put(next);
      this.#logger?.info(
        { sector: next.sectorNumber, from: sector.state, to: next.state, failure: next.failure ?? undefined },
        'sector state changed',
      );
      sector = next;
      this.#onTransition?.(sector);
    }
    for (const waiter of this.#settledWaiters.get(sector.sectorNumber) ?? []) waiter.resolve(sector);
    this.#settledWaiters.delete(sector.sectorNumber);
  }

  #to(sector: SealingSector, state: SectorState, changes: StepChanges): SealingSector {
    return { ...sector, ...changes, state, updatedAt: Date.now() };
  }

  #ref(sector: SealingSector): SectorRef {
    return {
      dir: this.#sectorDirectory,
      minerId: this.#minerId,
      sectorNumber: sector.sectorNumber,
      sealProof: sector.sealProof as RegisteredSealProof,
    };
  }

  /** Lotus `handlePreCommit1` and `handlePreCommit2`: the ticket, then AddPiece + PC1 + PC2 in one native call. */
  async #preCommit1(sector: SealingSector): Promise<SealingSector> {
    const head = await this.#chain.chainHead();
    // Lotus `getTicket`: a pre-commit already on chain fixes the ticket; otherwise one finality back.
    const onChain = await this.#chain.stateSectorPreCommitInfo(this.#miner.id, sector.sectorNumber);
    const ticketEpoch = onChain?.info.sealRandEpoch ?? head.height - this.#params.chainFinality;
    const ticket = await this.#chain.stateGetRandomnessFromTickets(
      DomainSeparationTag.SealRandomness,
      ticketEpoch,
      this.#entropy,
    );
    // A committed-capacity sector holds zeros: one piece of the sector's unpadded size (fr32 takes 1/128).
    const piece = new Uint8Array(Number((sectorSize(sector.sealProof as RegisteredSealProof) * 127n) / 128n));
    let commitments: { commR: Uint8Array; commD: Uint8Array };
    try {
      commitments = await this.#sealer.precommitSector(this.#ref(sector), { ticket, piece });
    } catch (error) {
      return this.#to(sector, SectorState.SealPreCommit1Failed, { failure: `sealing failed: ${errorMessage(error)}` });
    }
    return this.#to(sector, SectorState.PreCommitting, {
      ticketEpoch,
      ticket,
      commR: commitments.commR,
      commD: commitments.commD,
      messageUuid: randomUUID(),
    });
  }

  /** Lotus `handlePreCommitting`: PreCommitSectorBatch2 with the deposit, unless the ticket has expired. */
  async #preCommitting(sector: SealingSector): Promise<SealingSector> {
    const head = await this.#chain.chainHead();
    const ticketEpoch = need(sector, 'ticketEpoch');
    if (head.height - ticketEpoch > MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK) {
      return this.#to(sector, SectorState.SealPreCommit1Failed, {
        ticketEpoch: null,
        ticket: null,
        commR: null,
        commD: null,
        messageUuid: null,
        failure: `ticket expired: drawn at epoch ${ticketEpoch}, more than ${MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK} epochs before the head (${head.height})`,
      });
    }
    const expiration = committedCapacityExpiration({
      head: head.height,
      ticketEpoch,
      sealProof: sector.sealProof,
      lifetime: this.#ccSectorLifetime,
      policy: this.#params.minerPolicy,
    });
    const message = preCommitMessage({
      miner: this.#miner,
      sectorNumber: sector.sectorNumber,
      sealProof: sector.sealProof,
      commR: need(sector, 'commR'),
      ticketEpoch,
      expiration,
    });
    const deposit = await this.#chain.stateMinerPreCommitDepositForPower(this.#miner.id, message.info);
    const cid = await this.#chain.mpoolPushMessage({ ...message.message, value: deposit }, need(sector, 'messageUuid'));
    return this.#to(sector, SectorState.PreCommitWait, { preCommitMessage: cid, messageUuid: null });
  }

  /** Lotus `handlePreCommitWait`. */
  #preCommitWait(sector: SealingSector): Promise<SealingSector> {
    return this.#receipt(sector, need(sector, 'preCommitMessage'), 'PreCommitSectorBatch2', {
      success: SectorState.WaitSeed,
      failure: SectorState.PreCommitFailed,
    });
  }

  /** The next state once the message has executed: `success` when it exited 0, `failure` with its exit code otherwise. */
  async #receipt(
    sector: SealingSector,
    cid: CID,
    method: string,
    next: { success: SectorState; failure: SectorState },
  ): Promise<SealingSector> {
    const lookup = await this.#chain.stateWaitMsg(cid, this.#messageConfidence, this.#abort.signal);
    if (lookup.exitCode === 0n) return this.#to(sector, next.success, {});
    return this.#to(sector, next.failure, {
      failure: `${method} ${cid} failed on chain: exit code ${lookup.exitCode}`,
    });
  }

  /** Lotus `handleWaitSeed`: the seed epoch follows the pre-commit; draw it once it is final enough. */
  async #waitSeed(sector: SealingSector): Promise<SealingSector> {
    const onChain = await this.#chain.stateSectorPreCommitInfo(this.#miner.id, sector.sectorNumber);
    if (onChain === null) {
      return this.#to(sector, SectorState.PreCommitFailed, { failure: 'the pre-commit is not on chain' });
    }
    const seedEpoch = onChain.preCommitEpoch + this.#params.minerPolicy.preCommitChallengeDelay;
    await this.#waitForHead((head) => head.height >= seedEpoch + INTERACTIVE_POREP_CONFIDENCE, true);
    const seed = await this.#chain.stateGetRandomnessFromBeacon(
      DomainSeparationTag.InteractiveSealChallengeSeed,
      seedEpoch,
      this.#entropy,
    );
    return this.#to(sector, SectorState.Committing, { preCommitEpoch: onChain.preCommitEpoch, seedEpoch, seed });
  }

  /** Lotus `handleCommitting`: C1 and C2, and the proof checked here before it costs gas on chain. */
  async #committing(sector: SealingSector): Promise<SealingSector> {
    const inputs = {
      commR: need(sector, 'commR'),
      commD: need(sector, 'commD'),
      ticket: need(sector, 'ticket'),
      seed: need(sector, 'seed'),
    };
    let proof: Uint8Array;
    let valid: boolean;
    try {
      proof = await this.#sealer.commitSector(this.#ref(sector), inputs);
      valid = await verifySeal({
        ...inputs,
        minerId: this.#minerId,
        sectorNumber: sector.sectorNumber,
        proof,
        sealProof: sector.sealProof as RegisteredSealProof,
      });
    } catch (error) {
      return this.#to(sector, SectorState.ComputeProofFailed, {
        failure: `computing the proof failed: ${errorMessage(error)}`,
      });
    }
    if (!valid) {
      return this.#to(sector, SectorState.ComputeProofFailed, {
        invalidProofs: sector.invalidProofs + 1,
        failure: 'the computed proof did not verify',
      });
    }
    return this.#to(sector, SectorState.SubmitCommit, { proof, messageUuid: randomUUID() });
  }

  /** Lotus `handleComputeProofFailed`: compute again after a while, give up after repeated bad proofs. */
  async #computeProofFailed(sector: SealingSector): Promise<SealingSector> {
    if (sector.invalidProofs >= MAX_INVALID_PROOFS) {
      return this.#to(sector, SectorState.FailedUnrecoverable, {
        failure: `${sector.invalidProofs} computed proofs did not verify`,
      });
    }
    return this.#retryAfterNextHead(sector, SectorState.Committing);
  }

  /**
   * Lotus `handleSubmitCommit` with its `checkCommit`: the pre-commit must still be there and
   * provable, and the seed unchanged (a reorg can change it: then C1/C2 run again on the new one).
   */
  async #submitCommit(sector: SealingSector): Promise<SealingSector> {
    const onChain = await this.#chain.stateSectorPreCommitInfo(this.#miner.id, sector.sectorNumber);
    if (onChain === null) {
      return this.#to(sector, SectorState.CommitFailed, { failure: 'the pre-commit is no longer on chain' });
    }
    const head = await this.#chain.chainHead();
    const delay = this.#params.minerPolicy.preCommitChallengeDelay;
    const lastEpoch = onChain.preCommitEpoch + (maxProveCommitDuration(sector.sealProof, delay) ?? 0n);
    if (head.height > lastEpoch) {
      return this.#to(sector, SectorState.CommitFailed, {
        failure: `too late to prove: the pre-commit of epoch ${onChain.preCommitEpoch} had to be proven by epoch ${lastEpoch}`,
      });
    }
    const seedEpoch = onChain.preCommitEpoch + delay;
    const seed = await this.#chain.stateGetRandomnessFromBeacon(
      DomainSeparationTag.InteractiveSealChallengeSeed,
      seedEpoch,
      this.#entropy,
    );
    if (seedEpoch !== sector.seedEpoch || !bytesEqual(seed, need(sector, 'seed'))) {
      return this.#to(sector, SectorState.WaitSeed, {
        seedEpoch: null,
        seed: null,
        proof: null,
        messageUuid: null,
        failure: `the seed changed (a reorg): computing the proof again on the seed of epoch ${seedEpoch}`,
      });
    }
    const pledge = await this.#chain.stateMinerInitialPledgeForSector(
      onChain.info.expiration - head.height,
      this.#miner.sectorSize,
      0n,
    );
    // The deposit is returned at prove-commit and counts towards the pledge (builtin-actors `activate_new_sector_infos`).
    const collateral = pledge > onChain.preCommitDeposit ? pledge - onChain.preCommitDeposit : 0n;
    const message = proveCommitMessage({
      miner: this.#miner,
      sectorNumber: sector.sectorNumber,
      proof: need(sector, 'proof'),
    });
    const cid = await this.#chain.mpoolPushMessage({ ...message, value: collateral }, need(sector, 'messageUuid'));
    return this.#to(sector, SectorState.CommitWait, { commitMessage: cid, messageUuid: null });
  }

  /** Lotus `handleCommitWait`. */
  #commitWait(sector: SealingSector): Promise<SealingSector> {
    return this.#receipt(sector, need(sector, 'commitMessage'), 'ProveCommitSectors3', {
      success: SectorState.FinalizeSector,
      failure: SectorState.CommitFailed,
    });
  }

  /** Lotus `handleFinalizeSector`: keep what window PoSt reads, drop the rest. */
  async #finalize(sector: SealingSector): Promise<SealingSector> {
    await finalizeSector(this.#ref(sector));
    return this.#to(sector, SectorState.Proving, {});
  }

  async #retryAfterNextHead(sector: SealingSector, state: SectorState): Promise<SealingSector> {
    await this.#waitForHead(() => true, false);
    return this.#to(sector, state, {});
  }

  /**
   * Resolves at the first head that satisfies `ready` — the current one too when `checkNow` —
   * and rejects when the pipeline stops.
   */
  #waitForHead(ready: (head: { height: bigint }) => boolean, checkNow: boolean): Promise<void> {
    const signal = this.#abort.signal;
    return new Promise((resolve, reject) => {
      let done = false;
      let unsubscribe = (): void => {};
      const finish = (error?: unknown): void => {
        if (done) return;
        done = true;
        unsubscribe();
        signal.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onAbort = (): void => finish(new MinerError(MinerErrorCode.SealingStopped, 'the sealing pipeline stopped'));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort);
      unsubscribe = this.#chain.chainNotify((head) => {
        if (ready(head)) finish();
      });
      if (checkNow) {
        this.#chain.chainHead().then((head) => {
          if (ready(head)) finish();
        }, finish);
      }
    });
  }
}
