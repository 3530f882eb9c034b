/**
 * Gas estimation (filecoin-project/lotus `node/impl/gasutils`, `node/impl/full/gas.go`): the gas a
 * message uses when applied on the head's state after the sender's pooled messages, the fee cap
 * that survives 20 blocks of rising base fee, the premium recent blocks paid, and the message with
 * its unset gas fields filled and its fee capped at MaxFee.
 */
import { BufferedBlockstore, StateTree } from '../state/index.js';
import {
  AddressProtocol,
  encodeSignedMessage,
  type Message,
  messageCid,
  SignatureType,
  type TipSet,
} from '../types/index.js';
import { toHex } from '../utils/bytes.js';
import { InvalidArgumentError } from '../utils/errors.js';
import { LruCache } from '../utils/lru-cache.js';
import { blsChainMessage, circulatingSupply, ExitCode, signedChainMessage, Vm } from '../vm/index.js';
import { CachedBlockstore } from './cached-blockstore.js';
import type { MpoolChain } from './chain.js';
import { GasEstimationError, GasEstimationErrorCode, MpoolError, MpoolErrorCode } from './errors.js';
import type { MessagePool } from './message-pool.js';

/** Lotus MinGasPremium. */
export const MIN_GAS_PREMIUM = 100_000n;
/** Lotus MaxGasHistory: GasEstimateGasPremium looks at no more than twice this many tipsets. */
const MAX_GAS_HISTORY = 128;
/** Node default Fees.DefaultMaxFee: 0.07 FIL. */
export const DEFAULT_MAX_FEE = 70_000_000_000_000_000n;
/** Blocks GasEstimateMessageGas asks the premium and fee cap estimates for. */
const PREMIUM_BLOCKS = 10;
const FEE_CAP_QUEUE_BLOCKS = 20;
const SUPPLY_CACHE_SIZE = 8;

/**
 * The most blocks GasEstimateFeeCap takes with base-fee change denominator `denom`: the largest n
 * whose factor (1 + 1/denom)^n × 256 stays below 2^64. Lotus (`node/impl/gasutils`
 * `GasEstimateFeeCap`) computes the factor as a float64 and converts it with Go's `uint64(…)`,
 * whose result past 2^64 (infinity included) the Go spec leaves to the platform: amd64 gives 0,
 * arm64 2^64 − 1. So a larger n has no answer to match, and is refused as a bad parameter.
 * 329 for Filecoin's denominator 8.
 */
export function maxFeeCapQueueBlocks(denom: bigint): number {
  const factor = 1 + 1 / Number(denom);
  let n = Math.floor(Math.log(2 ** 56) / Math.log(factor));
  while (factor ** (n + 1) * 256 < 2 ** 64) n++;
  while (factor ** n * 256 >= 2 ** 64) n--;
  return n;
}

/** Lotus `MessageSendSpec`: the fee limit, and whether to spend all of it on the fee cap. */
export interface MessageSendSpec {
  readonly maxFee: bigint;
  readonly maximizeFeeCap?: boolean;
}

/** Lotus `CapGasFee`: fee cap × gas limit at most MaxFee (0.07 FIL when unset), premium at most fee cap. */
export function capGasFee(message: Message, spec: MessageSendSpec | undefined): Message {
  const maxFee = spec === undefined || spec.maxFee === 0n ? DEFAULT_MAX_FEE : spec.maxFee;
  let gasFeeCap = message.gasFeeCap;
  if (message.gasLimit > 0n && (spec?.maximizeFeeCap === true || gasFeeCap * message.gasLimit > maxFee)) {
    gasFeeCap = maxFee / message.gasLimit;
  }
  const gasPremium = message.gasPremium < gasFeeCap ? message.gasPremium : gasFeeCap;
  return { ...message, gasFeeCap, gasPremium };
}

/** Lotus `medianGasPremium`: the premium at 55 % of the blocks' target gas, walking from the top price. */
export function medianGasPremium(
  prices: ReadonlyArray<{ readonly premium: bigint; readonly gasLimit: bigint }>,
  blocks: number,
  blockGasTarget: bigint,
): bigint {
  const sorted = [...prices].sort((a, b) => (a.premium > b.premium ? -1 : a.premium < b.premium ? 1 : 0));
  let at = (blockGasTarget * BigInt(blocks)) / 2n + (blockGasTarget * BigInt(blocks)) / 40n;
  let prev1 = 0n;
  let prev2 = 0n;
  for (const { premium, gasLimit } of sorted) {
    prev2 = prev1;
    prev1 = premium;
    at -= gasLimit;
    if (at < 0n) break;
  }
  return prev2 !== 0n ? (prev1 + prev2) / 2n : prev1;
}

/** A standard normal draw (Box–Muller) from a uniform source. */
function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface GasEstimatorOptions {
  readonly chain: MpoolChain;
  readonly pool: MessagePool;
  readonly random?: (() => number) | undefined;
}

export class GasEstimator {
  readonly #chain: MpoolChain;
  readonly #pool: MessagePool;
  readonly #random: () => number;
  readonly #blocks: CachedBlockstore;
  /** Circulating supply by state root: it depends on the state only, and costs several actor reads. */
  readonly #supply = new LruCache<string, bigint>(SUPPLY_CACHE_SIZE);
  /** The premium before noise, by tipset and block count: recomputing it walks 2n tipsets of messages. */
  readonly #premiums = new LruCache<string, bigint>(SUPPLY_CACHE_SIZE);

  constructor(options: GasEstimatorOptions) {
    this.#chain = options.chain;
    this.#pool = options.pool;
    this.#random = options.random ?? Math.random;
    this.#blocks = new CachedBlockstore(options.chain.blockstore);
  }

  /**
   * Lotus `GasEstimateGasLimit`: the gas the message uses, run with the block gas limit and no
   * fees on the state after `tipSet` (the head) and after the sender's pooled messages before it.
   */
  async estimateGasLimit(message: Message, tipSet: TipSet = this.#chain.head()): Promise<bigint> {
    const params = this.#pool.params;
    const stateRoot = await this.#chain.stateAfter(tipSet);
    const buffer = new BufferedBlockstore(this.#blocks);
    try {
      const tree = StateTree.load(buffer, stateRoot);
      const senderId = tree.lookupId(message.from);
      if (senderId === undefined) {
        throw new GasEstimationError(
          GasEstimationErrorCode.SenderInvalid,
          `estimating gas used: sender ${message.from} not found in the state after ${tipSet.key}`,
        );
      }
      const vm = new Vm(tree, {
        networkParams: params,
        epoch: tipSet.height + 1n,
        timestamp: tipSet.timestamp + params.blockDelaySecs,
        // A zero fee cap runs at a zero base fee: gas is free while estimating.
        baseFee: 0n,
        circulatingSupply: this.#circulatingSupply(stateRoot.toString(), tree),
        tracing: false,
        randomness: this.#chain.randomness(tipSet),
      });
      for (const prior of this.#pool.pendingFor(message.from)) {
        if (prior.message.nonce === message.nonce) break;
        vm.applyMessage(signedChainMessage(prior));
      }
      const sender = tree.getActor(senderId);
      const probe: Message = {
        ...message,
        nonce: sender?.nonce ?? 0n,
        gasLimit: params.blockGasLimit,
        gasFeeCap: 0n,
        gasPremium: 0n,
      };
      const application = vm.applyMessage({
        message: probe,
        cid: messageCid(probe),
        chainLength: this.#chainLength(tree, probe),
      });
      const { exitCode, gasUsed } = application.receipt;
      if (exitCode === BigInt(ExitCode.SysOutOfGas)) {
        throw new GasEstimationError(GasEstimationErrorCode.OutOfGas, `estimating gas used: out of gas`);
      }
      if (exitCode === BigInt(ExitCode.SysSenderInvalid)) {
        throw new GasEstimationError(
          GasEstimationErrorCode.SenderInvalid,
          `estimating gas used: sender ${message.from} cannot send messages: ${application.error}`,
        );
      }
      if (exitCode !== BigInt(ExitCode.Ok)) {
        const returned = application.receipt.return;
        throw new GasEstimationError(
          GasEstimationErrorCode.ExecutionReverted,
          `estimating gas used: message execution failed (exit=[${exitCode}], revert reason=[${application.error}], vm error=[${application.error}])`,
          { data: `0x${toHex(returned)}` },
        );
      }
      return gasUsed;
    } finally {
      buffer.discard();
    }
  }

  #circulatingSupply(root: string, tree: StateTree): bigint {
    let supply = this.#supply.get(root);
    if (supply === undefined) {
      supply = circulatingSupply(tree, this.#pool.params);
      this.#supply.set(root, supply);
    }
    return supply;
  }

  /** What OnChainMessage charges the message for once signed by its sender's key type. */
  #chainLength(tree: StateTree, message: Message): number {
    let protocol = message.from.protocol;
    if (protocol === AddressProtocol.ID) {
      const id = tree.lookupId(message.from);
      const actor = id === undefined ? undefined : tree.getActor(id);
      protocol = actor?.delegatedAddress?.protocol ?? AddressProtocol.Secp256k1;
    }
    if (protocol === AddressProtocol.BLS) return blsChainMessage(message).chainLength;
    const type = protocol === AddressProtocol.Delegated ? SignatureType.Delegated : SignatureType.Secp256k1;
    return encodeSignedMessage({ message, signature: { type, data: new Uint8Array(65) } }).length;
  }

  /**
   * Lotus `GasEstimateFeeCap`: the head's base fee after `maxQueueBlocks` full blocks, plus the
   * premium. Throws InvalidArgumentError above maxFeeCapQueueBlocks (Lotus's answer there
   * depends on the platform).
   */
  estimateFeeCap(message: Message, maxQueueBlocks: number, tipSet: TipSet = this.#chain.head()): bigint {
    const params = this.#pool.params;
    const max = maxFeeCapQueueBlocks(params.baseFeeMaxChangeDenom);
    if (!Number.isSafeInteger(maxQueueBlocks) || maxQueueBlocks > max) {
      throw new InvalidArgumentError(
        `maxQueueBlocks: ${maxQueueBlocks} is more than ${max}, the most blocks of base fee rises (×${1 + 1 / Number(params.baseFeeMaxChangeDenom)} each) a fee cap is estimated for`,
      );
    }
    const factor = (1 + 1 / Number(params.baseFeeMaxChangeDenom)) ** maxQueueBlocks;
    const scaled = BigInt(Math.floor(factor * 256));
    return (tipSet.parentBaseFee * scaled) / 256n + message.gasPremium;
  }

  /** Lotus `GasEstimateGasPremium`: what recent blocks' messages paid, with a little noise. */
  estimateGasPremium(blocksIncluded: number, tipSet: TipSet = this.#chain.head()): bigint {
    const nblocks = Math.min(Math.max(Math.trunc(blocksIncluded), 1), MAX_GAS_HISTORY);
    const cacheKey = `${tipSet.key}/${nblocks}`;
    let premium = this.#premiums.get(cacheKey);
    if (premium === undefined) {
      premium = this.#historicPremium(nblocks, tipSet);
      this.#premiums.set(cacheKey, premium);
    }
    // Noise (mean 1, deviation 0.5 %) so that senders do not all bid the same premium.
    const noise = 1 + normal(this.#random) * 0.005;
    return (premium * (BigInt(Math.floor(noise * 2 ** 32)) + 1n)) / 2n ** 32n;
  }

  /** The gas-weighted premium of the messages in the 2 × nblocks tipsets before `tipSet`, at least the minimum. */
  #historicPremium(nblocks: number, tipSet: TipSet): bigint {
    const params = this.#pool.params;
    const prices: Array<{ premium: bigint; gasLimit: bigint }> = [];
    let blocks = 0;
    let current = tipSet;
    for (let i = 0; i < nblocks * 2 && current.height > 0n; i++) {
      const parent = this.#chain.loadTipSet(current.parents);
      blocks += parent.blocks.length;
      const seen = new Set<string>();
      for (const block of parent.blocks) {
        const { blsMessages, secpMessages } = this.#chain.messagesForBlock(block);
        const messages = [
          ...blsMessages.map((message) => blsChainMessage(message)),
          ...secpMessages.map((signed) => signedChainMessage(signed)),
        ];
        for (const { cid, message } of messages) {
          const key = cid.toString();
          if (seen.has(key)) continue;
          seen.add(key);
          prices.push({ premium: message.gasPremium, gasLimit: message.gasLimit });
        }
      }
      current = parent;
    }
    let premium = medianGasPremium(prices, blocks, params.blockGasTarget);
    if (premium < MIN_GAS_PREMIUM) {
      premium = nblocks === 1 ? 2n * MIN_GAS_PREMIUM : nblocks === 2 ? (3n * MIN_GAS_PREMIUM) / 2n : MIN_GAS_PREMIUM;
    }
    return premium;
  }

  /** Lotus `GasEstimateMessageGas`: fills the zero gas fields, then caps the fee at MaxFee. */
  async estimateMessageGas(message: Message, spec: MessageSendSpec | undefined, tipSet?: TipSet): Promise<Message> {
    const params = this.#pool.params;
    let estimated = message;
    if (estimated.gasLimit === 0n) {
      const used = await this.estimateGasLimit(estimated, tipSet);
      let gasLimit = BigInt(Math.trunc(Number(used) * this.#pool.config.gasLimitOverestimation));
      if (gasLimit > params.blockGasLimit) gasLimit = params.blockGasLimit;
      estimated = { ...estimated, gasLimit };
    }
    if (estimated.gasPremium === 0n) {
      estimated = { ...estimated, gasPremium: this.estimateGasPremium(PREMIUM_BLOCKS, tipSet) };
    }
    if (estimated.gasFeeCap === 0n) {
      estimated = { ...estimated, gasFeeCap: this.estimateFeeCap(estimated, FEE_CAP_QUEUE_BLOCKS, tipSet) };
    }
    return capGasFee(estimated, spec);
  }
}

/** Lotus MpoolPushMessage refuses a set nonce: the node picks it. */
export function requireUnsetNonce(message: Message): void {
  if (message.nonce !== 0n) {
    throw new MpoolError(
      MpoolErrorCode.PushMessage,
      `MpoolPushMessage expects message nonce to be 0, was ${message.nonce}`,
    );
  }
}
