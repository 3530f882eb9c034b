/**
 * Expected Consensus block validation (Lotus `filcns.ValidateBlock`, filecoin-project/lotus
 * `chain/consensus/filcns/filecoin.go`). Sanity and time checks come first and stop validation;
 * then every asynchronous check runs and every failure is reported in one `BlockValidationError`,
 * its code the first failure in checklist order.
 *
 * Validation is expensive (the parent tipset's execution, a winning PoSt verification), so a block
 * is validated once: concurrent requests share one run and accepted blocks are remembered.
 */
import type { Logger } from 'pino';
import type { AnyBeacon, ChainClock } from '../beacon/index.js';
import { type ChainStore, childBaseFee, type TipSetStates, txMetaCidOf } from '../chain/index.js';
import { bls } from '../crypto/index.js';
import type { TipSetStateRecord } from '../db/index.js';
import type { NetworkParams } from '../params/index.js';
import { verifyWinningPost } from '../proofs/index.js';
import { StateTree } from '../state/index.js';
import {
  type Address,
  AddressProtocol,
  type BeaconEntry,
  type BlockHeader,
  blockCid,
  blockSigningBytes,
  type FullBlock,
  messageCid,
  SignatureType,
  signedMessageCid,
  TipSet,
} from '../types/index.js';
import { LruCache } from '../utils/lru-cache.js';
import { minerEligibleToMine, minerPower } from '../vm/index.js';
import { validateBeaconValues } from './beacon-values.js';
import { BlockCheckError, type BlockCheckFailure, BlockErrorCode, BlockValidationError } from './errors.js';
import { lookbackForRound } from './lookback.js';
import { checkBlockMessages, checkBlsAggregate } from './message-checks.js';
import { minerWorkerKey } from './miner-keys.js';
import { electionVrfInput, randomnessBase, ticketVrfInput, winningPoStRandomness } from './randomness.js';
import { computeWinCount } from './win-count.js';
import { winningPoStChallenge } from './winning-post.js';

/** Lotus `AllowableClockDriftSecs`. */
export const ALLOWABLE_CLOCK_DRIFT_SECS = 1n;
const VALIDATED_CACHE_SIZE = 2048;

export interface BlockValidatorOptions {
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  /** The network's beacon schedule (or its one source). */
  readonly beacon: AnyBeacon;
  readonly params: NetworkParams;
  /** Milliseconds since the Unix epoch; tests move time. */
  readonly clock?: () => number;
  readonly logger?: Logger | undefined;
  /**
   * Told after each validation run (not answers from the cache): its duration and, for a block found
   * invalid, the error (undefined when valid). The node's metrics listen here.
   */
  readonly onValidated?: ((seconds: number, error: unknown) => void) | undefined;
}

/** The chain's epoch-to-beacon-round mapping. */
export function chainClockOf(chain: ChainStore, params: NetworkParams): ChainClock {
  return {
    genesisTime: chain.genesis.timestamp,
    blockDelaySecs: params.blockDelaySecs,
    networkVersion: params.networkVersion,
  };
}

function carriesItsMessages(block: FullBlock): boolean {
  return txMetaCidOf(block.blsMessages.map(messageCid), block.secpkMessages.map(signedMessageCid)).equals(
    block.header.messages,
  );
}

function malformed(reason: string): BlockCheckError {
  return new BlockCheckError(BlockErrorCode.Malformed, reason);
}

export class BlockValidator {
  readonly #chain: ChainStore;
  readonly #states: TipSetStates;
  readonly #beacon: AnyBeacon;
  readonly #params: NetworkParams;
  readonly #clock: () => number;
  readonly #logger: Logger | undefined;
  readonly #onValidated: BlockValidatorOptions['onValidated'];
  readonly #validated = new LruCache<string, true>(VALIDATED_CACHE_SIZE);
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(options: BlockValidatorOptions) {
    this.#chain = options.chain;
    this.#states = options.states;
    this.#beacon = options.beacon;
    this.#params = options.params;
    this.#clock = options.clock ?? Date.now;
    this.#logger = options.logger;
    this.#onValidated = options.onValidated;
  }

  /** Throws `BlockValidationError` listing every failed check; resolves when the block is valid. */
  validateBlock(block: FullBlock): Promise<void> {
    const key = blockCid(block.header).toString();
    // Results are shared by header; first make sure these are the messages the header commits to.
    if (!carriesItsMessages(block)) {
      return Promise.reject(
        new BlockValidationError(key, [
          {
            code: BlockErrorCode.BadMessages,
            reason: `the header's Messages ${block.header.messages} is not the TxMeta of the block's messages`,
          },
        ]),
      );
    }
    if (this.#validated.has(key)) return Promise.resolve();
    let pending = this.#inFlight.get(key);
    if (pending === undefined) {
      const started = performance.now();
      pending = this.#validate(block, key).then(() => {
        this.#validated.set(key, true);
      });
      this.#inFlight.set(key, pending);
      const forget = () => this.#inFlight.delete(key);
      pending.then(forget, forget);
      const observe = this.#onValidated;
      if (observe !== undefined) {
        const seconds = () => (performance.now() - started) / 1000;
        pending.then(
          () => observe(seconds(), undefined),
          (error: unknown) => observe(seconds(), error),
        );
      }
    }
    return pending;
  }

  /** Validates the blocks of one tipset and returns the tipset they form. */
  async validateTipSet(blocks: readonly FullBlock[]): Promise<TipSet> {
    let tipSet: TipSet;
    try {
      tipSet = TipSet.fromHeaders(blocks.map((b) => b.header));
    } catch (error) {
      const first = blocks[0] === undefined ? 'tipset' : blockCid(blocks[0].header).toString();
      throw new BlockValidationError(first, [
        { code: BlockErrorCode.Malformed, reason: `the blocks do not form a tipset: ${(error as Error).message}` },
      ]);
    }
    await Promise.all(blocks.map((block) => this.validateBlock(block)));
    return tipSet;
  }

  async #validate(block: FullBlock, cid: string): Promise<void> {
    const started = performance.now();
    const header = block.header;
    const parent = this.#sanity(cid, header);
    this.#timing(cid, header, parent);

    const lookback = lookbackForRound(this.#chain, this.#states, parent, header.height).then((l) => ({
      ...l,
      tree: StateTree.load(this.#chain.blockstore, l.stateRoot),
      // Lotus checks the minimum power in the lookback tipset's parent state.
      eligibilityTree: StateTree.load(this.#chain.blockstore, l.tipSet.parentStateRoot),
    }));
    const worker = lookback.then((l) => minerWorkerKey(l.tree, header.miner));
    const parentState = this.#states.stateOf(parent);
    const executedTree = parentState.then((s) => StateTree.load(this.#chain.blockstore, s.stateRoot));
    const baseTree = StateTree.load(this.#chain.blockstore, parent.parentStateRoot);
    const previousEntry = Promise.resolve().then(() => this.#chain.latestBeaconEntry(parent));
    const rbase = previousEntry.then((prev) => randomnessBase(header.beaconEntries, prev));
    // Keep unobserved rejections from surfacing before the checks below await them.
    for (const p of [lookback, worker, parentState, executedTree, previousEntry, rbase]) p.catch(() => undefined);

    const checks: Array<[BlockErrorCode, () => unknown]> = [
      [BlockErrorCode.BadMiner, () => this.#minerCheck(baseTree, header)],
      [BlockErrorCode.WrongParentWeight, () => this.#weightCheck(header, parent)],
      [
        BlockErrorCode.BadElectionProof,
        async () => this.#winnerCheck(header, parent, baseTree, await lookback, await worker, await rbase),
      ],
      [BlockErrorCode.BadBlockSignature, async () => this.#signatureCheck(header, await worker)],
      [
        BlockErrorCode.BadBeaconEntries,
        async () =>
          validateBeaconValues(
            this.#beacon,
            chainClockOf(this.#chain, this.#params),
            header,
            parent.height,
            await previousEntry,
          ),
      ],
      [BlockErrorCode.BadTicket, async () => this.#ticketCheck(header, parent, await worker, await rbase)],
      [BlockErrorCode.BadWinningPoSt, async () => this.#winningPoStCheck(header, (await lookback).tree, await rbase)],
      [BlockErrorCode.BadBlsAggregate, async () => checkBlsAggregate(await executedTree, block)],
      [BlockErrorCode.BadMessages, async () => checkBlockMessages(await executedTree, block, this.#params)],
      [BlockErrorCode.WrongBaseFee, () => this.#baseFeeCheck(header, parent)],
      [BlockErrorCode.WrongParentState, async () => this.#stateCheck(header, await parentState)],
    ];
    const results = await Promise.allSettled(checks.map(([, run]) => Promise.resolve().then(run)));
    const failures: BlockCheckFailure[] = [];
    for (const [i, result] of results.entries()) {
      if (result.status === 'fulfilled') continue;
      const error = result.reason as Error;
      const [code] = checks[i] as [BlockErrorCode, unknown];
      // A check that could not run (a missing lookback, an unreadable state) fails as its own check.
      const failure =
        error instanceof BlockCheckError
          ? { code: error.code, reason: error.message }
          : { code, reason: `${code} check could not complete: ${error.message}` };
      // Checks that share an input (the worker key, the lookback) fail alike; report each cause once.
      if (!failures.some((f) => f.code === failure.code && f.reason === failure.reason)) failures.push(failure);
    }
    if (failures.length > 0) throw new BlockValidationError(cid, failures);
    this.#logger?.debug(
      { cid, height: Number(header.height), ms: Math.round(performance.now() - started) },
      'block validated',
    );
  }

  #sanity(cid: string, header: BlockHeader): TipSet {
    const reject = (error: BlockCheckError): never => {
      throw new BlockValidationError(cid, [{ code: error.code, reason: error.message }]);
    };
    if (header.electionProof === null) reject(malformed('block has no election proof'));
    if (header.ticket === null) reject(malformed('block has no ticket'));
    if (header.blockSig === null) reject(malformed('block has no signature'));
    if (header.blsAggregate === null) reject(malformed('block has no BLS aggregate signature'));
    if (header.miner.protocol !== AddressProtocol.ID)
      reject(malformed(`block miner ${header.miner} is not an ID address`));
    try {
      return this.#chain.loadTipSet(TipSet.fromHeaders([header]).parents);
    } catch (error) {
      return reject(
        new BlockCheckError(BlockErrorCode.UnknownParent, `cannot load the parent tipset: ${(error as Error).message}`),
      );
    }
  }

  #timing(cid: string, header: BlockHeader, parent: TipSet): void {
    const reject = (code: BlockErrorCode, reason: string): never => {
      throw new BlockValidationError(cid, [{ code, reason }]);
    };
    if (header.height <= parent.height) {
      reject(BlockErrorCode.BadHeight, `block height ${header.height} is not above its parent's ${parent.height}`);
    }
    const expected = parent.timestamp + this.#params.blockDelaySecs * (header.height - parent.height);
    if (header.timestamp !== expected) {
      reject(
        BlockErrorCode.BadTimestamp,
        `block has timestamp ${header.timestamp}, expected ${expected} (parent ${parent.timestamp} + ${this.#params.blockDelaySecs} s × ${header.height - parent.height} epochs)`,
      );
    }
    const now = BigInt(Math.floor(this.#clock() / 1000));
    if (header.timestamp > now + ALLOWABLE_CLOCK_DRIFT_SECS) {
      reject(BlockErrorCode.FromFuture, `block was from the future (now=${now}, blk=${header.timestamp})`);
    }
  }

  #minerCheck(baseTree: StateTree, header: BlockHeader): void {
    let claim: ReturnType<typeof minerPower>;
    try {
      claim = minerPower(baseTree, header.miner, this.#params);
    } catch (error) {
      throw new BlockCheckError(
        BlockErrorCode.BadMiner,
        `miner ${header.miner} is not valid: ${(error as Error).message}`,
      );
    }
    if (claim === undefined) {
      throw new BlockCheckError(BlockErrorCode.BadMiner, `miner ${header.miner} has no power claim in the base state`);
    }
  }

  #weightCheck(header: BlockHeader, parent: TipSet): void {
    const weight = this.#chain.weightOf(parent);
    if (header.parentWeight !== weight) {
      throw new BlockCheckError(
        BlockErrorCode.WrongParentWeight,
        `parent weight different: ${header.parentWeight} (header) != ${weight} (computed)`,
      );
    }
  }

  #winnerCheck(
    header: BlockHeader,
    parent: TipSet,
    baseTree: StateTree,
    lookback: { tree: StateTree; eligibilityTree: StateTree },
    worker: Address,
    rbase: BeaconEntry,
  ): void {
    const lookbackTree = lookback.tree;
    const fail = (reason: string): never => {
      throw new BlockCheckError(BlockErrorCode.BadElectionProof, reason);
    };
    const proof = header.electionProof as NonNullable<BlockHeader['electionProof']>;
    if (proof.winCount < 1n) fail(`block is not claiming to be a winner (WinCount ${proof.winCount})`);
    if (!minerEligibleToMine(lookback.eligibilityTree, baseTree, parent.height, header.miner, this.#params)) {
      throw new BlockCheckError(BlockErrorCode.BadMiner, `miner ${header.miner} is not eligible to mine`);
    }
    const input = electionVrfInput(rbase, header.miner, header.height);
    if (!bls.verify(worker.payload, input, proof.vrfProof))
      fail('the election proof VRF does not verify with the worker key');
    const power = minerPower(lookbackTree, header.miner, this.#params);
    const expected = computeWinCount(
      proof.vrfProof,
      power?.miner.qualityAdjPower ?? 0n,
      power?.total.qa ?? 0n,
      this.#params.blocksPerEpoch,
    );
    if (BigInt(expected) !== proof.winCount) {
      fail(`miner claims wrong number of wins: claimed ${proof.winCount}, computed ${expected}`);
    }
  }

  #signatureCheck(header: BlockHeader, worker: Address): void {
    const sig = header.blockSig as NonNullable<BlockHeader['blockSig']>;
    if (sig.type !== SignatureType.BLS || !bls.verify(worker.payload, blockSigningBytes(header), sig.data)) {
      throw new BlockCheckError(
        BlockErrorCode.BadBlockSignature,
        'the block signature does not verify with the worker key',
      );
    }
  }

  #ticketCheck(header: BlockHeader, parent: TipSet, worker: Address, rbase: BeaconEntry): void {
    const ticket = header.ticket as NonNullable<BlockHeader['ticket']>;
    const input = ticketVrfInput(rbase, header.miner, header.height, parent.minTicket);
    if (!bls.verify(worker.payload, input, ticket.vrfProof)) {
      throw new BlockCheckError(
        BlockErrorCode.BadTicket,
        'validating block tickets failed: the ticket VRF does not verify with the worker key',
      );
    }
  }

  async #winningPoStCheck(header: BlockHeader, lookbackTree: StateTree, rbase: BeaconEntry): Promise<void> {
    const fail = (reason: string): never => {
      throw new BlockCheckError(BlockErrorCode.BadWinningPoSt, reason);
    };
    const [proof, ...extra] = header.winPoStProof;
    if (proof === undefined || extra.length > 0)
      fail(`expected 1 winning PoSt proof, got ${header.winPoStProof.length}`);
    const randomness = winningPoStRandomness(rbase, header.miner, header.height);
    const challenge = await winningPoStChallenge(lookbackTree, header.miner, randomness);
    if (challenge.postSectors.length === 0) fail(`miner ${header.miner} has no sectors to prove`);
    const p = proof as NonNullable<typeof proof>;
    if (p.postProof !== BigInt(challenge.proofType)) {
      fail(`winning PoSt proof type ${p.postProof} is not the miner's ${challenge.proofType}`);
    }
    const valid = await verifyWinningPost(
      { minerId: challenge.minerId, randomness, sectors: challenge.postSectors, postProof: challenge.proofType },
      p.proofBytes,
    );
    if (!valid) fail('the winning PoSt proof does not verify');
  }

  #baseFeeCheck(header: BlockHeader, parent: TipSet): void {
    const expected = childBaseFee(this.#chain, parent);
    if (header.parentBaseFee !== expected) {
      throw new BlockCheckError(
        BlockErrorCode.WrongBaseFee,
        `base fee doesn't match: ${header.parentBaseFee} (header) != ${expected} (computed)`,
      );
    }
  }

  #stateCheck(header: BlockHeader, state: TipSetStateRecord): void {
    if (!state.stateRoot.equals(header.parentStateRoot)) {
      throw new BlockCheckError(
        BlockErrorCode.WrongParentState,
        `parent state root did not match computed state (${header.parentStateRoot} != ${state.stateRoot})`,
      );
    }
    if (!state.receiptsRoot.equals(header.parentMessageReceipts)) {
      throw new BlockCheckError(
        BlockErrorCode.WrongParentState,
        `parent receipts root did not match computed value (${header.parentMessageReceipts} != ${state.receiptsRoot})`,
      );
    }
  }
}
