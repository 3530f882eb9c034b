/**
 * Choosing a block's messages (Lotus SelectMessages, filecoin-project/lotus
 * `chain/messagepool/selection.go`). Priority senders' chains go first; then, with a good ticket
 * (quality above 0.84, so this block is likely the first of its tipset) the best-performing chains
 * are packed greedily, otherwise "optimally": chains are weighted by the probability of the tipset
 * place their block would land in. Both end by trimming the chain that did not fit and packing what
 * still fits behind it. A chain is taken whole and only after the chains before it from the same
 * sender, so nonces stay in order.
 */
import type { NetworkParams } from '../params/index.js';
import type { Actor, Address, SignedMessage } from '../types/index.js';
import { SignatureType } from '../types/index.js';
import { blockProbabilities, MAX_BLOCKS } from './block-probabilities.js';
import { createMessageChains, type MessageChain } from './message-chains.js';
import type { PendingMessage } from './pending-message.js';

/** Packing stops when less gas than this is left (Lotus gasguess.MinGas). */
export const MIN_PACKING_GAS = 1_298_450n;
/** BLS messages, and secp256k1 ones, per block at most (cbor-gen MaxLength). */
const MAX_MESSAGES_PER_SIGNATURE_TYPE = 8192;
/** Above this ticket quality the block is likely first in its tipset and greedy selection is best. */
const GREEDY_TICKET_QUALITY = 0.84;

export interface SenderMessages {
  readonly sender: Address;
  readonly messages: readonly PendingMessage[];
}

export interface SelectionInput {
  /** Pending messages by sender key (`byteKey` of the key address). */
  readonly pending: ReadonlyMap<string, SenderMessages>;
  /** The sender after the base tipset. */
  readonly actorOf: (sender: Address) => Actor | undefined;
  /** The base fee the block's messages will pay. */
  readonly baseFee: bigint;
  readonly params: NetworkParams;
  /** Sender keys (`byteKey` of key addresses) selected first. */
  readonly priority: readonly string[];
  /** 0 to 1, from the block's ticket. */
  readonly ticketQuality: number;
  /** Uniform in [0, 1): shuffles the chains that fill leftover space. */
  readonly random: () => number;
}

class SelectedMessages {
  readonly messages: SignedMessage[] = [];
  gasLimit: bigint;
  secpLimit = MAX_MESSAGES_PER_SIGNATURE_TYPE;
  blsLimit = MAX_MESSAGES_PER_SIGNATURE_TYPE;
  readonly #messageLimit: number;

  constructor(params: NetworkParams) {
    this.gasLimit = params.blockGasLimit;
    this.#messageLimit = params.blockMessageLimit;
  }

  get full(): boolean {
    return this.gasLimit < MIN_PACKING_GAS || this.messages.length >= this.#messageLimit;
  }

  #typeLimit(chain: MessageChain): number | undefined {
    if (chain.sigType === SignatureType.BLS) return this.blsLimit;
    if (chain.sigType === SignatureType.Secp256k1 || chain.sigType === SignatureType.Delegated) return this.secpLimit;
    return undefined;
  }

  #take(chain: MessageChain, count: number, gas: bigint): void {
    if (chain.sigType === SignatureType.BLS) this.blsLimit -= count;
    else this.secpLimit -= count;
    this.gasLimit -= gas;
  }

  /** Adds the whole chain if it fits; false when it does not. */
  tryToAdd(chain: MessageChain): boolean {
    const count = chain.messages.length;
    if (this.#messageLimit < count + this.messages.length || this.gasLimit < chain.gasLimit) return false;
    const typeLimit = this.#typeLimit(chain);
    if (typeLimit === undefined) return true;
    if (typeLimit < count) return false;
    for (const message of chain.messages) this.messages.push(message.signed);
    this.#take(chain, count, chain.gasLimit);
    return true;
  }

  /**
   * Adds the chain with every unmerged chain before it from the same sender; if they do not all
   * fit, trims the chain (or invalidates it, when its dependencies alone do not fit).
   */
  tryToAddWithDependencies(chain: MessageChain, baseFee: bigint): boolean {
    let typeLimit = this.#typeLimit(chain);
    if (typeLimit === undefined) return false;
    typeLimit = Math.min(typeLimit, this.#messageLimit - this.messages.length);
    let chainGas = chain.gasLimit;
    let chainCount = chain.messages.length;
    let dependencyGas = 0n;
    let dependencyCount = 0;
    const dependencies: MessageChain[] = [];
    for (let dependency = chain.prev; dependency !== undefined && !dependency.merged; dependency = dependency.prev) {
      dependencies.push(dependency);
      chainGas += dependency.gasLimit;
      chainCount += dependency.messages.length;
      dependencyGas += dependency.gasLimit;
      dependencyCount += dependency.messages.length;
    }
    if (chainGas > this.gasLimit || chainCount > typeLimit) {
      if (dependencyGas > this.gasLimit || dependencyCount >= typeLimit) chain.invalidate();
      else chain.trim(this.gasLimit - dependencyGas, typeLimit - dependencyCount, baseFee);
      return false;
    }
    for (const dependency of dependencies.reverse()) {
      dependency.merged = true;
      for (const message of dependency.messages) this.messages.push(message.signed);
    }
    chain.merged = true;
    for (const message of chain.messages) this.messages.push(message.signed);
    this.#take(chain, chainCount, chainGas);
    return true;
  }

  /** Trims the chain to what is left of the block, if it does not fit as it is. */
  trimChain(chain: MessageChain, baseFee: bigint): void {
    const typeLimit = this.#typeLimit(chain);
    let messageLimit = this.#messageLimit - this.messages.length;
    if (typeLimit !== undefined && messageLimit > typeLimit) messageLimit = typeLimit;
    if (chain.gasLimit > this.gasLimit || chain.messages.length > messageLimit) {
      chain.trim(this.gasLimit, messageLimit, baseFee);
    }
  }
}

const byPerformance = (a: MessageChain, b: MessageChain): number => (a.before(b) ? -1 : b.before(a) ? 1 : 0);
const byEffectivePerformance = (a: MessageChain, b: MessageChain): number =>
  a.beforeEffective(b) ? -1 : b.beforeEffective(a) ? 1 : 0;

function chainsOf(input: SelectionInput, senders: Iterable<SenderMessages>): MessageChain[] {
  const chains: MessageChain[] = [];
  for (const { sender, messages } of senders) {
    chains.push(...createMessageChains(messages, input.actorOf(sender), input.baseFee, input.params));
  }
  return chains;
}

/** Moves the chain at `index` down past every chain that ranks before it. */
function pushDown(chains: MessageChain[], index: number, before: (a: MessageChain, b: MessageChain) => boolean): void {
  for (let i = index; i < chains.length - 1; i++) {
    const current = chains[i] as MessageChain;
    const following = chains[i + 1] as MessageChain;
    if (before(current, following)) break;
    chains[i] = following;
    chains[i + 1] = current;
  }
}

/**
 * Greedy packing of chains sorted by performance: whole chains while they fit, then the first
 * that does not is trimmed and pushed down, and packing goes on behind it.
 */
function packGreedily(result: SelectedMessages, chains: MessageChain[], baseFee: bigint): void {
  let last = chains.length;
  for (const [i, chain] of chains.entries()) {
    if (chain.gasPerf < 0) break;
    if (result.tryToAdd(chain)) continue;
    last = i;
    break;
  }
  tail: while (result.gasLimit >= MIN_PACKING_GAS && last < chains.length) {
    result.trimChain(chains[last] as MessageChain, baseFee);
    if ((chains[last] as MessageChain).valid) pushDown(chains, last, (a, b) => a.before(b));
    for (let i = last; i < chains.length; i++) {
      const chain = chains[i] as MessageChain;
      if (!chain.valid) continue;
      if (chain.gasPerf < 0) break tail;
      if (result.tryToAdd(chain)) continue;
      last = i;
      continue tail;
    }
    break;
  }
}

/** Priority senders' chains, packed greedily into a fresh block; removes them from `pending`. */
function selectPriorityMessages(input: SelectionInput, pending: Map<string, SenderMessages>): SelectedMessages {
  const result = new SelectedMessages(input.params);
  const senders: SenderMessages[] = [];
  for (const key of input.priority) {
    const messages = pending.get(key);
    if (messages === undefined) continue;
    pending.delete(key);
    senders.push(messages);
  }
  const chains = chainsOf(input, senders).sort(byPerformance);
  if (chains.length === 0 || (chains[0] as MessageChain).gasPerf < 0) return result;
  packGreedily(result, chains, input.baseFee);
  return result;
}

function selectGreedy(input: SelectionInput, result: SelectedMessages, pending: Map<string, SenderMessages>): void {
  const chains = chainsOf(input, pending.values()).sort(byPerformance);
  if (chains.length === 0 || (chains[0] as MessageChain).gasPerf < 0) return;
  packGreedily(result, chains, input.baseFee);
}

function selectOptimal(input: SelectionInput, result: SelectedMessages, pending: Map<string, SenderMessages>): void {
  const { baseFee, params } = input;
  const chains = chainsOf(input, pending.values()).sort(byPerformance);
  if (chains.length === 0 || (chains[0] as MessageChain).gasPerf < 0) return;

  // Partition the chains into the blocks of a tipset, as other miners would fill them.
  const partitions: MessageChain[][] = [];
  let nextChain = 0;
  for (let i = 0; i < MAX_BLOCKS && nextChain < chains.length; i++) {
    const partition: MessageChain[] = [];
    let gasLimit = params.blockGasLimit;
    let messageLimit = params.blockMessageLimit;
    while (nextChain < chains.length) {
      const chain = chains[nextChain++] as MessageChain;
      partition.push(chain);
      gasLimit -= chain.gasLimit;
      messageLimit -= chain.messages.length;
      if (gasLimit < MIN_PACKING_GAS || messageLimit <= 0) break;
    }
    partitions.push(partition);
  }
  const probabilities = blockProbabilities(input.ticketQuality);
  let placed = 0;
  partitions.forEach((partition, i) => {
    for (const chain of partition) chain.setEffectivePerf(probabilities[i] as number);
    placed += partition.length;
  });
  for (const chain of chains.slice(placed)) chain.setNullEffectivePerf();
  chains.sort(byEffectivePerformance);

  // Merge chains best first, each with its dependencies.
  let last = chains.length;
  for (let i = 0; i < chains.length; i++) {
    const chain = chains[i] as MessageChain;
    if (chain.gasPerf < 0) break;
    if (chain.merged) continue;
    if (result.tryToAddWithDependencies(chain, baseFee)) {
      let next = chain.next;
      if (next !== undefined && next.effPerf > 0) {
        next.restoreParentOffset();
        for (next = next.next; next !== undefined && next.effPerf > 0; next = next.next) next.refreshEffectivePerf();
      }
      chains.splice(i + 1, chains.length - i - 1, ...chains.slice(i + 1).sort(byEffectivePerformance));
      continue;
    }
    last = i;
    break;
  }

  // Trim the chain that did not fit, push it down, and pack what still fits.
  tail: while (result.gasLimit >= MIN_PACKING_GAS && last < chains.length) {
    if (!(chains[last] as MessageChain).valid) {
      last++;
      continue;
    }
    result.trimChain(chains[last] as MessageChain, baseFee);
    if ((chains[last] as MessageChain).valid) pushDown(chains, last, (a, b) => a.beforeEffective(b));
    for (const chain of chains.slice(last)) {
      if (!chain.valid || chain.merged) continue;
      if (chain.gasPerf < 0) break tail;
      if (result.tryToAddWithDependencies(chain, baseFee)) continue;
      continue tail;
    }
    break;
  }

  // Fill what is left with random chains, so that miners of one tipset pick different messages.
  if (!result.full) {
    shuffle(chains, input.random);
    for (const chain of chains) {
      if (result.full) break;
      if (chain.merged || !chain.valid || chain.gasPerf < 0) continue;
      if (result.tryToAddWithDependencies(chain, baseFee)) continue;
      if (chain.valid) result.tryToAddWithDependencies(chain, baseFee);
    }
  }
}

function shuffle<T>(items: T[], random: () => number): void {
  for (let i = 0; i < items.length; i++) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
}

/** The messages for a block on the base tipset, in inclusion order; null when nothing is pending. */
export function selectMessages(input: SelectionInput): SignedMessage[] | null {
  if (input.pending.size === 0) return null;
  const pending = new Map(input.pending);
  const result = selectPriorityMessages(input, pending);
  if (!result.full) {
    if (input.ticketQuality > GREEDY_TICKET_QUALITY) selectGreedy(input, result, pending);
    else selectOptimal(input, result, pending);
  }
  return result.messages.slice(0, input.params.blockMessageLimit);
}
