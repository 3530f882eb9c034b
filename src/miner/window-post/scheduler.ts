/**
 * The window PoSt scheduler of one local miner (filecoin-project/lotus `storage/wdpost/wdpost_sched.go`,
 * `wdpost_changehandler.go`, `wdpost_run.go`, `wdpost_run_faults.go`). On each head change it reads
 * the miner's proving state and, for each deadline whose challenge is known (proving ahead, since
 * the devnet's windows are only a few epochs long):
 *   - proves its partitions once the challenge is `CHALLENGE_CONFIDENCE` epochs deep, off the main
 *     thread, verifying each proof locally;
 *   - submits from `SUBMIT_LEAD` epochs before the window opens, after re-drawing the challenge and
 *     re-reading the partitions (a reorg or a state change means proving again), with the chain
 *     commit at the challenge epoch; one message per `POSTED_PARTITIONS_MAX` partitions, never
 *     twice for one deadline;
 * and declares recovered the faulty sectors that are readable again, for the first deadline whose
 * fault cutoff is still ahead. Paused, it neither proves nor sends (the miner's sectors then turn
 * faulty as their deadlines close).
 */
import { createHash } from 'node:crypto';
import type { CID } from 'multiformats/cid';
import type { Logger } from 'pino';
import { DomainSeparationTag } from '../../crypto/index.js';
import type { MinerPolicy } from '../../params/index.js';
import type { RegisteredPoStProof } from '../../proofs/index.js';
import { Address } from '../../types/index.js';
import { bytesEqual } from '../../utils/bytes.js';
import type { DeadlineInfo } from '../../vm/actors/miner/deadline-info.js';
import { declareFaultsRecoveredParams, submitWindowedPoStParams } from '../../vm/actors/miner/params.js';
import { MinerMethod } from '../../vm/methods.js';
import type { ProvingView, WindowPostChainApi } from './chain-api.js';
import {
  deadlinesToProve,
  type PartitionProof,
  provingBatches,
  recoveryCandidates,
  recoveryDeadline,
  recoveryDeclarations,
  sameBatches,
  sectorsToCheck,
  submissionDue,
} from './plan.js';
import { challengeRandomness, proveBatch } from './prover.js';
import { readableSectors } from './sector-files.js';

export interface WindowPostSchedulerOptions {
  /** The miner to prove for; its worker key must be in the wallet behind `api.mpoolPushMessage`. */
  readonly miner: Address;
  readonly api: WindowPostChainApi;
  readonly policy: MinerPolicy;
  /** The storage root of the miner's sealed sectors (`sealed/`, `cache/`). */
  readonly sectorDirectory: string;
  readonly logger?: Logger | undefined;
}

/** A message the scheduler sent. */
export interface WindowPostSubmission {
  readonly deadline: bigint;
  /** The window's first epoch: identifies the deadline's instance. */
  readonly open: bigint;
  readonly partitions: readonly bigint[];
  readonly message: CID;
}

export interface WindowPostStatus {
  readonly miner: Address;
  readonly running: boolean;
  readonly paused: boolean;
  /** The head height of the last proving state read. */
  readonly height: bigint | undefined;
  /** The deadlines proven and waiting for their window, by index. */
  readonly proven: readonly bigint[];
  /** The latest submissions, oldest first (at most one proving period's). */
  readonly submissions: readonly WindowPostSubmission[];
  /** The latest DeclareFaultsRecovered messages (the same bound). */
  readonly recoveries: readonly { readonly deadline: bigint; readonly message: CID }[];
}

interface ProvenDeadline {
  readonly deadline: DeadlineInfo;
  readonly batches: PartitionProof[][];
  readonly randomness: Uint8Array;
  readonly proofs: Uint8Array[];
}

/** A UUID naming one message of one deadline instance, so a repeated push returns the first (MpoolPushMessage's MsgUuid). */
function messageUuid(...parts: readonly (string | bigint)[]): string {
  const hex = createHash('sha256').update(parts.join('/')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export class WindowPostScheduler {
  readonly #options: WindowPostSchedulerOptions;
  readonly #logger: Logger | undefined;
  #unsubscribe: (() => void) | undefined;
  #paused = false;
  #stopped = false;
  #height: bigint | undefined;
  /** The head-change pass in progress, and whether another head arrived meanwhile. */
  #pass: Promise<void> | undefined;
  #again = false;
  /** Proofs by the window's open epoch, and the proving in flight. */
  readonly #proofs = new Map<bigint, ProvenDeadline>();
  readonly #proving = new Map<bigint, Promise<void>>();
  /** Proving jobs run one at a time, beside block production's winning PoSt. */
  #prover: Promise<void> = Promise.resolve();
  /** Window open epochs already submitted, and recovery deadlines already declared. */
  readonly #submitted = new Set<bigint>();
  readonly #declared = new Set<bigint>();
  readonly #submissions: WindowPostSubmission[] = [];
  readonly #recoveries: { deadline: bigint; message: CID }[] = [];

  constructor(options: WindowPostSchedulerOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  get miner(): Address {
    return this.#options.miner;
  }

  start(): void {
    if (this.#unsubscribe !== undefined || this.#stopped) return;
    this.#unsubscribe = this.#options.api.chainNotify(() => this.#poke());
    this.#poke();
  }

  /** Stops following the chain; a proof in flight finishes and is dropped. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#pass;
    await Promise.allSettled(this.#proving.values());
  }

  /** Stops proving and submitting until `resume()` (lotus-miner `proving pause`'s effect). */
  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#logger?.info({ miner: this.miner.toString() }, 'window PoSt paused');
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#logger?.info({ miner: this.miner.toString() }, 'window PoSt resumed');
    this.#poke();
  }

  status(): WindowPostStatus {
    return {
      miner: this.miner,
      running: this.#unsubscribe !== undefined,
      paused: this.#paused,
      height: this.#height,
      proven: [...this.#proofs.values()].map((p) => p.deadline.index),
      submissions: [...this.#submissions],
      recoveries: [...this.#recoveries],
    };
  }

  /** Runs a pass now, or once more after the one in progress. */
  #poke(): void {
    if (this.#stopped) return;
    if (this.#pass !== undefined) {
      this.#again = true;
      return;
    }
    this.#pass = (async () => {
      do {
        this.#again = false;
        try {
          await this.#onHead();
        } catch (error) {
          this.#logger?.warn({ err: error, miner: this.miner.toString() }, 'window PoSt pass failed');
        }
      } while (this.#again && !this.#stopped);
      this.#pass = undefined;
    })();
  }

  async #onHead(): Promise<void> {
    if (this.#paused) return;
    const view = await this.#options.api.stateMinerProvingView(this.miner);
    this.#height = view.height;
    this.#forgetClosed(view.height);
    const due = deadlinesToProve(this.#options.policy, view);
    this.#logger?.debug(
      {
        height: view.height,
        deadline: view.deadline.index,
        open: view.deadline.open,
        due: due.map((d) => d.index.toString()),
      },
      'window PoSt pass',
    );
    for (const deadline of due) {
      if (this.#stopped || this.#paused) return;
      await this.#handleDeadline(view, deadline);
    }
    await this.#declareRecoveries(view);
  }

  #forgetClosed(height: bigint): void {
    for (const [open, proven] of this.#proofs) if (proven.deadline.close <= height) this.#proofs.delete(open);
    const oldest = height - this.#options.policy.wPoStProvingPeriod;
    for (const open of this.#submitted) if (open < oldest) this.#submitted.delete(open);
    for (const open of this.#declared) if (open < oldest) this.#declared.delete(open);
    const keep = Number(this.#options.policy.wPoStPeriodDeadlines);
    this.#submissions.splice(0, Math.max(0, this.#submissions.length - keep));
    this.#recoveries.splice(0, Math.max(0, this.#recoveries.length - keep));
  }

  async #handleDeadline(view: ProvingView, deadline: DeadlineInfo): Promise<void> {
    if (this.#submitted.has(deadline.open)) return;
    const readable = await readableSectors(
      this.#options.sectorDirectory,
      view.minerId,
      view.sectorSize,
      sectorsToCheck(view, deadline),
    );
    const batches = provingBatches(view, deadline, readable);
    if (batches.length === 0) return;
    const proven = this.#proofs.get(deadline.open);
    if (proven === undefined || !sameBatches(proven.batches, batches)) {
      this.#startProving(view, deadline, batches);
      return;
    }
    if (!submissionDue(deadline, view.height)) return;
    // The challenge may have changed under a reorg since proving: then prove again (lotus#5764).
    const randomness = await challengeRandomness(this.#options.api, view.minerId, deadline);
    if (!bytesEqual(randomness, proven.randomness)) {
      this.#logger?.warn(
        { deadline: deadline.index, open: deadline.open },
        'window PoSt challenge changed: proving again',
      );
      this.#proofs.delete(deadline.open);
      this.#startProving(view, deadline, batches);
      return;
    }
    await this.#submit(view, proven);
  }

  #startProving(view: ProvingView, deadline: DeadlineInfo, batches: PartitionProof[][]): void {
    if (this.#proving.has(deadline.open)) return;
    const job = this.#prover
      .then(() => this.#prove(view, deadline, batches))
      .catch((error) => {
        this.#logger?.error(
          { err: error, deadline: deadline.index, open: deadline.open },
          'window PoSt proving failed',
        );
      })
      .finally(() => {
        this.#proving.delete(deadline.open);
        // Submit as soon as the window allows, without waiting for the next head.
        this.#poke();
      });
    this.#prover = job;
    this.#proving.set(deadline.open, job);
  }

  async #prove(view: ProvingView, deadline: DeadlineInfo, batches: PartitionProof[][]): Promise<void> {
    if (this.#stopped) return;
    const started = Date.now();
    const randomness = await challengeRandomness(this.#options.api, view.minerId, deadline);
    const proofs: Uint8Array[] = [];
    for (const batch of batches) {
      proofs.push(
        await proveBatch({
          sectorDirectory: this.#options.sectorDirectory,
          minerId: view.minerId,
          postProof: Number(view.windowPoStProofType) as RegisteredPoStProof,
          randomness,
          batch,
        }),
      );
    }
    this.#proofs.set(deadline.open, { deadline, batches, randomness, proofs });
    this.#logger?.info(
      {
        miner: this.miner.toString(),
        deadline: deadline.index,
        open: deadline.open,
        challenge: deadline.challenge,
        partitions: batches.flat().map((p) => p.index.toString()),
        skipped: batches
          .flat()
          .reduce((n, p) => n + p.skipped.size, 0n)
          .toString(),
        ms: Date.now() - started,
      },
      'window PoSt proven',
    );
  }

  async #submit(view: ProvingView, proven: ProvenDeadline): Promise<void> {
    const { deadline } = proven;
    const api = this.#options.api;
    // The chain commit: tickets at the challenge epoch, empty entropy (builtin-actors `submit_windowed_post`).
    const chainCommitRand = await api.stateGetRandomnessFromTickets(
      DomainSeparationTag.PoStChainCommit,
      deadline.challenge,
      new Uint8Array(),
    );
    for (const [i, batch] of proven.batches.entries()) {
      const params = submitWindowedPoStParams.encode({
        deadline: deadline.index,
        partitions: batch.map((p) => ({ index: p.index, skipped: p.skipped })),
        proofs: [{ postProof: view.windowPoStProofType, proofBytes: proven.proofs[i] as Uint8Array }],
        chainCommitEpoch: deadline.challenge,
        chainCommitRand,
      });
      const message = await api.mpoolPushMessage(
        {
          from: view.worker,
          to: Address.newId(view.minerId),
          method: MinerMethod.SubmitWindowedPoSt,
          value: 0n,
          params,
        },
        messageUuid('wdpost', view.minerId, deadline.open, BigInt(i)),
      );
      const partitions = batch.map((p) => p.index);
      this.#submissions.push({ deadline: deadline.index, open: deadline.open, partitions, message });
      this.#logger?.info(
        {
          miner: this.miner.toString(),
          deadline: deadline.index,
          open: deadline.open,
          height: view.height,
          partitions: partitions.map(String),
          message: message.toString(),
        },
        'window PoSt submitted',
      );
    }
    this.#submitted.add(deadline.open);
    this.#proofs.delete(deadline.open);
  }

  async #declareRecoveries(view: ProvingView): Promise<void> {
    const deadline = recoveryDeadline(this.#options.policy, view);
    if (this.#declared.has(deadline.open)) return;
    const partitions = view.partitions(deadline.index);
    const candidates = recoveryCandidates(partitions);
    if (candidates.isEmpty()) return;
    const readable = await readableSectors(this.#options.sectorDirectory, view.minerId, view.sectorSize, candidates);
    const recoveries = recoveryDeclarations(deadline.index, partitions, readable);
    if (recoveries.length === 0) return;
    const message = await this.#options.api.mpoolPushMessage(
      {
        from: view.worker,
        to: Address.newId(view.minerId),
        method: MinerMethod.DeclareFaultsRecovered,
        value: 0n,
        params: declareFaultsRecoveredParams.encode({ recoveries }),
      },
      messageUuid('recover', view.minerId, deadline.open),
    );
    this.#declared.add(deadline.open);
    this.#recoveries.push({ deadline: deadline.index, message });
    this.#logger?.info(
      {
        miner: this.miner.toString(),
        deadline: deadline.index,
        faultCutoff: deadline.faultCutoff,
        sectors: recoveries.reduce((n, r) => n + r.sectors.size, 0n).toString(),
        message: message.toString(),
      },
      'declared faulty sectors recovered',
    );
  }
}
