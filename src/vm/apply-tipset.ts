/**
 * Tipset execution (Lotus `chain/consensus/compute_state.go` ApplyBlocks): cron for every null
 * round since the parent, then each block's selected messages followed by its AwardBlockReward
 * (blocks without messages are rewarded too), then cron for the epoch. Receipts of the explicit
 * messages form the receipts AMT (legacy v0). Every block written along the way stays in memory
 * until the end, when the blocks reachable from the new state root and receipts root go to the
 * store in one `putMany` (one SQLite transaction); an error leaves the store untouched.
 */
import type { CID } from 'multiformats/cid';
import { type Blockstore, buildAmt } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import {
  BufferedBlockstore,
  byteKey,
  CRON_ACTOR_ID,
  REWARD_ACTOR_ID,
  StateTree,
  SYSTEM_ACTOR_ID,
} from '../state/index.js';
import {
  Address,
  type Message,
  type MessageReceipt,
  messageCid,
  messageReceiptToCborNode,
  type SignedMessage,
} from '../types/index.js';
import { nextTurn } from '../utils/abort.js';
import { encodeAwardBlockRewardParams } from './actors/reward.js';
import { computeNextBaseFee } from './base-fee.js';
import type { ChainMessage } from './chain-message.js';
import { circulatingSupply } from './circulating-supply.js';
import { VmError, VmErrorCode } from './errors.js';
import { type InvocResult, makeMsgGasCost, ZERO_GAS_COST } from './execution-trace.js';
import { ExitCode } from './exit-code.js';
import { selectTipsetMessages } from './message-selection.js';
import { CronMethod, RewardMethod } from './methods.js';
import { type MessageApplication, Vm } from './vm.js';
import type { RandomnessSource, VmContext } from './vm-context.js';

export interface TipsetBlock {
  readonly miner: Address;
  readonly winCount: bigint;
  readonly blsMessages: readonly Message[];
  readonly secpMessages: readonly SignedMessage[];
}

export interface TipsetInput {
  readonly epoch: bigint;
  /** The parent tipset's epoch; epochs in between are null rounds. */
  readonly parentEpoch: bigint;
  /** The blocks' ParentBaseFee: the base fee these messages pay. */
  readonly baseFee: bigint;
  /** The tipset's minimum block timestamp. */
  readonly timestamp: bigint;
  /** The genesis timestamp, from which null rounds get their nominal times. */
  readonly genesisTimestamp: bigint;
  /** In ticket order. */
  readonly blocks: readonly TipsetBlock[];
  /** The chain's randomness as of this tipset (Lotus `NewStateRand(ts)`); none only without a chain. */
  readonly randomness?: RandomnessSource | undefined;
}

export interface TipsetOptions {
  readonly networkParams: NetworkParams;
  /** Record an InvocResult with its execution trace for every message, implicit ones included. */
  readonly trace?: boolean;
}

export interface TipsetApplication {
  readonly stateRoot: CID;
  /** Root of the legacy v0 AMT of `receipts`. */
  readonly receiptsRoot: CID;
  /** One per executed explicit message, in execution order. */
  readonly receipts: readonly MessageReceipt[];
  /** The explicit messages executed, in the order of `receipts`. */
  readonly executedMessages: readonly ChainMessage[];
  /** With `trace`: every message executed, including cron and reward calls (Lotus StateCompute's Trace). */
  readonly invocResults: readonly InvocResult[];
  /** ParentBaseFee of the next tipset. */
  readonly nextBaseFee: bigint;
}

/** Lotus gives cron "BlockGasLimit × 10000 — make super sure this is never too little". */
const CRON_GAS_LIMIT_FACTOR = 10_000n;
const REWARD_GAS_LIMIT = 1n << 30n;
/** Hand the event loop back at least this often (ms) while applying a large tipset. */
const YIELD_INTERVAL_MS = 20;

export function cronMessage(epoch: bigint, params: NetworkParams): Message {
  return implicitMessage(
    Address.newId(CRON_ACTOR_ID),
    epoch,
    params.blockGasLimit * CRON_GAS_LIMIT_FACTOR,
    CronMethod.EpochTick,
    new Uint8Array(0),
  );
}

export function awardBlockRewardMessage(
  epoch: bigint,
  block: { miner: Address; winCount: bigint },
  penalty: bigint,
  gasReward: bigint,
): Message {
  const params = encodeAwardBlockRewardParams({ miner: block.miner, penalty, gasReward, winCount: block.winCount });
  return implicitMessage(
    Address.newId(REWARD_ACTOR_ID),
    epoch,
    REWARD_GAS_LIMIT,
    RewardMethod.AwardBlockReward,
    params,
  );
}

function implicitMessage(to: Address, epoch: bigint, gasLimit: bigint, method: bigint, params: Uint8Array): Message {
  return {
    to,
    from: Address.newId(SYSTEM_ACTOR_ID),
    nonce: epoch,
    value: 0n,
    gasLimit,
    gasFeeCap: 0n,
    gasPremium: 0n,
    method,
    params,
  };
}

/** Reuse a previous tipset's decoded state only while it holds fewer actors than this. */
const MAX_REUSED_ACTORS = 250_000;

/** A tipset's state in progress: the buffer its blocks go to, and the tree over it at `root`. */
interface WorkingState {
  readonly buffer: BufferedBlockstore;
  readonly tree: StateTree;
  readonly root: CID;
}

/**
 * Applies tipsets to the state in one store. When a tipset builds on the state the previous one
 * produced — as syncing does, tipset after tipset — that state's decoded actors, resolved
 * addresses and loaded HAMT nodes are reused instead of read and decoded again. The state is taken
 * while a tipset is applied and kept only if it succeeded, so concurrent or failed applications
 * never share or see half-applied state.
 */
export class TipsetExecutor {
  readonly #store: Blockstore;
  #last: WorkingState | undefined;

  constructor(store: Blockstore) {
    this.#store = store;
  }

  async apply(parentStateRoot: CID, input: TipsetInput, options: TipsetOptions): Promise<TipsetApplication> {
    const last = this.#last;
    this.#last = undefined;
    const working =
      last?.root.equals(parentStateRoot) && last.tree.cachedActorCount < MAX_REUSED_ACTORS
        ? last
        : freshState(this.#store, parentStateRoot);
    const result = await execute(working, input, options);
    this.#last = { ...working, root: result.stateRoot };
    return result;
  }
}

function freshState(store: Blockstore, root: CID): WorkingState {
  const buffer = new BufferedBlockstore(store);
  return { buffer, tree: StateTree.load(buffer, root), root };
}

/** Applies one tipset on `parentStateRoot` (see `TipsetExecutor` to apply several in a row). */
export function applyTipset(
  store: Blockstore,
  parentStateRoot: CID,
  input: TipsetInput,
  options: TipsetOptions,
): Promise<TipsetApplication> {
  return new TipsetExecutor(store).apply(parentStateRoot, input, options);
}

async function execute(working: WorkingState, input: TipsetInput, options: TipsetOptions): Promise<TipsetApplication> {
  const { buffer, tree } = working;
  const params = options.networkParams;
  const tracing = options.trace ?? false;
  const invocResults: InvocResult[] = [];
  const context = (epoch: bigint, timestamp: bigint): VmContext => ({
    networkParams: params,
    epoch,
    timestamp,
    baseFee: input.baseFee,
    circulatingSupply: circulatingSupply(tree, params),
    tracing,
    randomness: input.randomness,
  });
  const runImplicit = (vm: Vm, message: Message, what: string): void => {
    const applied = vm.applyImplicitMessage(message);
    if (applied.receipt.exitCode !== 0n) {
      throw new VmError(
        VmErrorCode.ImplicitMessageFailed,
        `${what} at epoch ${vm.context.epoch} failed with exit code ${applied.receipt.exitCode}: ${applied.error}`,
      );
    }
    if (tracing) invocResults.push(invocResult(messageCid(message), message, applied, false));
  };

  for (let epoch = input.parentEpoch + 1n; epoch < input.epoch; epoch++) {
    const nullRound = new Vm(tree, context(epoch, input.genesisTimestamp + epoch * params.blockDelaySecs));
    runImplicit(nullRound, cronMessage(epoch, params), 'cron (null round)');
  }

  const vm = new Vm(tree, context(input.epoch, input.timestamp));
  const receipts: MessageReceipt[] = [];
  const executedMessages: ChainMessage[] = [];
  const applied = new Set<string>();
  let lastYield = performance.now();
  const selected = selectTipsetMessages(tree, input.blocks);
  for (const [index, block] of input.blocks.entries()) {
    let penalty = 0n;
    let gasReward = 0n;
    for (const chainMessage of selected[index] ?? []) {
      // Lotus also skips repeated CIDs; after the nonce rule none can repeat, so the chain CID serves.
      const key = byteKey(chainMessage.cid.bytes);
      if (applied.has(key)) continue;
      applied.add(key);
      const application = vm.applyMessage(chainMessage);
      receipts.push(application.receipt);
      executedMessages.push(chainMessage);
      gasReward += application.gasOutputs.minerTip;
      penalty += application.gasOutputs.minerPenalty;
      if (tracing) invocResults.push(invocResult(chainMessage.cid, chainMessage.message, application, true));
      if (performance.now() - lastYield > YIELD_INTERVAL_MS) {
        await nextTurn(undefined);
        lastYield = performance.now();
      }
    }
    runImplicit(vm, awardBlockRewardMessage(input.epoch, block, penalty, gasReward), `block reward for ${block.miner}`);
  }
  runImplicit(vm, cronMessage(input.epoch, params), 'cron');

  const receiptsRoot = buildAmt(buffer, receipts.map(messageReceiptToCborNode), { version: 'v0' });
  const stateRoot = vm.flush();
  const allMessages = input.blocks.flatMap((block) => [
    ...block.blsMessages,
    ...block.secpMessages.map((s) => s.message),
  ]);
  const nextBaseFee = computeNextBaseFee(allMessages, input.baseFee, params);
  buffer.flush([stateRoot, receiptsRoot]);
  return { stateRoot, receiptsRoot, receipts, executedMessages, invocResults, nextBaseFee };
}

export function invocResult(
  cid: CID,
  message: Message,
  application: MessageApplication,
  explicit: boolean,
): InvocResult {
  if (application.trace === null) {
    throw new VmError(VmErrorCode.InvalidInput, 'an InvocResult needs a traced message application');
  }
  const failed = application.receipt.exitCode !== BigInt(ExitCode.Ok);
  return {
    msgCid: cid,
    msg: message,
    msgRct: application.receipt,
    gasCost: explicit
      ? makeMsgGasCost(messageCid(message), application.receipt.gasUsed, application.gasOutputs)
      : ZERO_GAS_COST,
    executionTrace: application.trace,
    error: failed ? application.error : '',
    duration: application.duration,
  };
}
