/**
 * The mining loop (filecoin-project/lotus `miner/miner.go`): for each round on the heaviest head,
 * wait until the round's base time plus the propagation delay, run the election, and when it wins
 * pick messages, build the block, wait for its timestamp and hand it to the block intake (the one
 * way into the chain: bad-block cache, validation, store, the tipset merge with blocks other miners
 * won the same round on the same base, fork choice). A lost election is a null round: the next round
 * is tried on the same base one block delay later.
 *
 * Round r on base b has timestamp b.timestamp + BlockDelay × (r − b.height) — the genesis
 * timestamp plus r block delays on a chain without gaps. When proving takes longer than a block
 * delay, blocks are simply late (as in Lotus): timestamps stay on the epoch grid and the chain runs
 * behind the wall clock rather than skipping rounds.
 *
 * Everything the loop needs comes in as functions, so the loop is only about timing and order:
 * the node wires the election and block creation of `src/miner` and the block intake of `src/sync`.
 */
import type { Logger } from 'pino';
import type { ChainStore } from '../chain/index.js';
import { blake2b256 } from '../crypto/index.js';
import type { BlockIntake } from '../sync/index.js';
import {
  type Address,
  type BlockHeader,
  type BlockMsg,
  blockCid,
  type FullBlock,
  messageCid,
  SignatureType,
  type SignedMessage,
  signedMessageCid,
  type Ticket,
  type TipSet,
} from '../types/index.js';
import type { BlockTemplate } from './create-block.js';
import { type ElectionWin, winningBlockTemplate } from './election.js';

/** Messages for a new block (engineer C's MessagePool implements it; Lotus `MpoolSelect`). */
export interface BlockMessageSource {
  selectMessages(base: TipSet, ticketQuality: number): Promise<SignedMessage[]>;
}

export interface MiningLoopOptions {
  readonly miner: Address;
  readonly chain: ChainStore;
  readonly blockDelaySecs: bigint;
  readonly propagationDelaySecs: bigint;
  /** The election for `round` on `base`; null when the miner does not win. */
  readonly elect: (base: TipSet, round: bigint) => Promise<ElectionWin | null>;
  readonly createBlock: (template: BlockTemplate) => Promise<BlockMsg>;
  /** Where mined blocks enter the chain (validated there; refused when invalid or marked bad). */
  readonly intake: Pick<BlockIntake, 'submit'>;
  /** Without one, blocks carry no messages. */
  readonly messages?: BlockMessageSource | undefined;
  readonly logger?: Logger | undefined;
  /** Milliseconds since the Unix epoch (tests move time). */
  readonly clock?: () => number;
  /**
   * The local slash filter (Lotus step 6): refuses, by throwing, a block that would be a consensus
   * fault together with one this miner produced before, and records the block otherwise. It runs
   * inside the intake's transaction that adds the block to the chain.
   */
  readonly slashFilter?: { minedBlock(header: BlockHeader, parentEpoch: bigint): void } | undefined;
  /** Called with each block the loop added to the chain. */
  readonly onBlock?: (block: FullBlock) => void;
}

/**
 * Lotus `Ticket.Quality`: 1 − blake2b-256(VRFProof)/2^256, so a lower ticket is a better one. The
 * message pool uses it to estimate how likely this block is to be included.
 */
export function ticketQuality(ticket: Ticket): number {
  const hash = blake2b256(ticket.vrfProof);
  let value = 0;
  for (const byte of hash) value = value * 256 + byte;
  return 1 - value / 2 ** 256;
}

/** The block with its messages, in the order createBlock put their CIDs in the header's meta. */
export function fullBlockOf(block: BlockMsg, messages: readonly SignedMessage[]): FullBlock {
  const bls = messages.filter((m) => m.signature.type === SignatureType.BLS);
  const secp = messages.filter((m) => m.signature.type !== SignatureType.BLS);
  const same = (expected: readonly { toString(): string }[], actual: readonly { toString(): string }[]) =>
    expected.length === actual.length && expected.every((cid, i) => cid.toString() === actual[i]?.toString());
  if (
    !same(
      block.blsMessages,
      bls.map((m) => messageCid(m.message)),
    ) ||
    !same(block.secpkMessages, secp.map(signedMessageCid))
  ) {
    throw new Error(`block ${blockCid(block.header)} does not list the messages it was built from`);
  }
  return { header: block.header, blsMessages: bls.map((m) => m.message), secpkMessages: secp };
}

class Aborted extends Error {}

/** `work`'s value, or `Aborted` as soon as `signal` fires (the work's own outcome is then ignored). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) reject(new Aborted());
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? new Aborted() : error);
      },
    );
  });
}

export class MiningLoop {
  readonly #options: MiningLoopOptions;
  readonly #clock: () => number;
  #running: Promise<void> | undefined;
  #abort: AbortController | undefined;
  #blocksMined = 0;
  #nullRounds = 0;
  #skippedRounds = 0;

  constructor(options: MiningLoopOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
  }

  get blocksMined(): number {
    return this.#blocksMined;
  }

  /** Rounds this miner lost the election in (null rounds, unless another miner won them). */
  get nullRounds(): number {
    return this.#nullRounds;
  }

  /** Rounds the loop came to too late to mine (behind the clock): block production missed them. */
  get skippedRounds(): number {
    return this.#skippedRounds;
  }

  get running(): boolean {
    return this.#running !== undefined;
  }

  start(): void {
    if (this.#running !== undefined) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#running = this.#run(abort.signal).finally(() => {
      this.#running = undefined;
    });
  }

  /**
   * Stops at once: a sleep ends, and an election in flight (its winning PoSt takes seconds) is
   * left to finish on its own thread, its result dropped.
   */
  async stop(): Promise<void> {
    this.#abort?.abort();
    await this.#running;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { chain, logger, miner } = this.#options;
    const delay = this.#options.blockDelaySecs;
    let base = chain.head();
    let nulls = 0n;
    logger?.info({ miner: miner.toString(), head: Number(base.height) }, 'mining started');
    while (!signal.aborted) {
      try {
        const head = chain.head();
        if (!head.equals(base)) {
          base = head;
          nulls = 0n;
        }
        // Behind the clock (proofs slower than an epoch, or a restart after downtime): go straight to
        // the round due now and leave null rounds, so block timestamps keep up with the wall clock.
        const skipped = this.#roundsDue(base) - 1n;
        if (skipped > nulls) {
          this.#skippedRounds += Number(skipped - nulls);
          nulls = skipped;
        }
        const round = base.height + nulls + 1n;
        const timestamp = base.timestamp + delay * (nulls + 1n);
        // Lotus mines a round once its base has had time to propagate.
        await this.#sleepUntil(Number(timestamp - delay + this.#options.propagationDelaySecs) * 1000, signal);
        if (!chain.head().equals(base)) continue;
        const added = await this.#mineRound(base, round, timestamp, signal);
        if (!added) {
          nulls++;
          this.#nullRounds++;
        }
      } catch (error) {
        if (error instanceof Aborted || signal.aborted) break;
        logger?.error({ err: error, base: Number(base.height) }, 'mining round failed');
        // A failed round must not spin: wait one block delay before trying again.
        nulls++;
        await this.#sleepUntil(this.#clock() + Number(delay) * 1000, signal).catch(() => undefined);
      }
    }
    logger?.info({ blocks: this.#blocksMined }, 'mining stopped');
  }

  /** Returns whether a block was added. */
  async #mineRound(base: TipSet, round: bigint, timestamp: bigint, signal: AbortSignal): Promise<boolean> {
    const { chain, logger, miner } = this.#options;
    const started = this.#clock();
    const win = await untilAborted(this.#options.elect(base, round), signal);
    const elected = this.#clock();
    if (win === null) {
      logger?.debug({ round: Number(round) }, 'not elected: null round');
      return false;
    }
    const messages = (await this.#options.messages?.selectMessages(base, ticketQuality(win.ticket))) ?? [];
    const template = winningBlockTemplate({
      miner,
      base,
      round,
      win,
      messages,
      blockDelaySecs: this.#options.blockDelaySecs,
    });
    const block = fullBlockOf(await this.#options.createBlock(template), messages);
    const built = this.#clock();
    // Published at its timestamp, never before: a block from the future is invalid.
    await this.#sleepUntil(Number(timestamp) * 1000, signal);
    // Blocks others won this round on the same base are siblings the block joins; any other head
    // at or past the round has left this base behind.
    const head = chain.head();
    if (head.height > round || (head.height === round && !head.parents.equals(base.key))) {
      logger?.info({ round: Number(round) }, 'the head moved past this round while proving; block dropped');
      return true;
    }
    const validating = this.#clock();
    // The slash filter's check and record, the block and its tipset: one transaction, so a refused
    // block or a failed write (a full disk) leaves neither a record nor the block, and the next
    // round on this base is not taken for a fault against a block that never landed.
    const slashFilter = this.#options.slashFilter;
    const tipSet = await this.#options.intake.submit(block, 'mined', {
      alongside: slashFilter && (() => slashFilter.minedBlock(block.header, base.height)),
    });
    const added = this.#clock();
    this.#blocksMined++;
    const cid = blockCid(block.header);
    logger?.info(
      {
        height: Number(round),
        cid: cid.toString(),
        winCount: Number(win.electionProof.winCount),
        messages: messages.length,
        electionMs: elected - started,
        createMs: built - elected,
        tipSetBlocks: tipSet.blocks.length,
        intakeMs: added - validating,
        lateMs: Math.max(0, validating - Number(timestamp) * 1000),
      },
      'mined a block',
    );
    this.#options.onBlock?.(block);
    return true;
  }

  /** Rounds after `base` whose mining time (base time plus the propagation delay) has come. */
  #roundsDue(base: TipSet): bigint {
    const { blockDelaySecs, propagationDelaySecs } = this.#options;
    const sinceBase = BigInt(Math.floor(this.#clock() / 1000)) - base.timestamp - propagationDelaySecs;
    return sinceBase < 0n ? 0n : sinceBase / blockDelaySecs + 1n;
  }

  async #sleepUntil(atMs: number, signal: AbortSignal): Promise<void> {
    // Timers run on the monotonic clock and may fire a millisecond before the wall clock reaches
    // atMs, so wake up and check again until it has.
    for (;;) {
      if (signal.aborted) throw new Aborted();
      const wait = atMs - this.#clock();
      if (wait <= 0) return;
      await this.#sleep(wait, signal);
    }
  }

  #sleep(wait: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, wait);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Aborted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
