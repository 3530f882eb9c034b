/**
 * The chain as the Ethereum JSON-RPC shows it (filecoin-project/lotus `node/impl/eth/utils.go`,
 * `tipsetresolver.go`, `chain/types/ethtypes/eth_types.go`): a tipset is a block, its hash the
 * digest of the tipset key's CID; every message is a transaction, hashed by keccak for
 * delegated-signed ones and by its CID's digest otherwise; messages in tipset N run when N+1 is
 * built, so receipts and "state at N" are N's post-state.
 */
import type { CID } from 'multiformats/cid';
import {
  ethBlockHash,
  ethHashOfCid,
  ethTxHashOf,
  executedLogs,
  logsBloom,
  signedMessageOfChainMessage,
} from '../chain/index.js';
import type { EthIndex, EthLogRecord } from '../db/index.js';
import { StateTree } from '../state/index.js';
import {
  Address,
  AddressProtocol,
  type CborNode,
  CREATE_EXTERNAL_METHOD,
  decodeChainCbor,
  EAM_ADDRESS,
  type EthTransaction,
  ethAddressFromAddress,
  ethTransactionFromSignedMessage,
  ethTransactionHash,
  INVOKE_CONTRACT_METHOD,
  isEthAddress,
  type Message,
  type MessageReceipt,
  readBytes,
  SignatureType,
  type SignedMessage,
  type TipSet,
} from '../types/index.js';
import { bytesEqual } from '../utils/bytes.js';
import { LruCache } from '../utils/lru-cache.js';
import { type ChainMessage, computeGasOutputs } from '../vm/index.js';
import type { ChainContext, ServedContext } from './context.js';
import { JsonRpcError, JsonRpcErrorCode } from './errors.js';
import { type BlockParam, hexData, quantity } from './eth-codecs.js';

/** Lotus `SafeEpochDelay` and the EC finality fallback of `finalized` (node/impl/eth/tipsetresolver.go). */
const SAFE_EPOCH_DELAY = 30n;
const FINALITY = 900n;
/** Lotus `buildconstants.BlockGasLimit`: the block gasLimit is this times the tipset's blocks. */
export const BLOCK_GAS_LIMIT = 10_000_000_000n;
/** Lotus's `to` for a native message whose recipient is missing from the post-state. */
const REVERTED_ETH_ADDRESS = '0xff0000000000000000000000ffffffffffffffff';
/** Selector of `handle_filecoin_method(uint64,uint64,bytes)`: how native calls show as EVM input. */
const NATIVE_METHOD_SELECTOR = Uint8Array.of(0x86, 0x8e, 0x10, 0xc4);
const CBOR_CODEC = 0x51n;
/** JSON-RPC code for a block-shaped request on a null round (lotus `api/api_errors.go` ErrNullRound). */
export const NULL_ROUND_CODE = 12;

const ZERO_HASH = `0x${'00'.repeat(32)}`;
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const FULL_BLOOM = `0x${'ff'.repeat(256)}`;

function callFailed(message: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.CallFailed, message);
}

/** Tipsets by number and by hash, as Lotus's tipset resolver picks them. */
export class EthTipSets {
  readonly #chain: ChainContext;
  readonly #index: EthIndex;

  constructor(chain: ChainContext, index: EthIndex) {
    this.#chain = chain;
    this.#index = index;
  }

  get head(): TipSet {
    return this.#chain.store.head();
  }

  /** `latest`: the head's parent, whose state the head carries (genesis at genesis). */
  latest(): TipSet {
    const head = this.head;
    return head.height === 0n ? head : this.#chain.store.loadTipSet(head.parents);
  }

  /**
   * The tipset a block parameter names. A height on a null round is refused with code 12 when
   * `strict` (block-shaped methods), else the tipset before it is taken (state methods).
   */
  resolve(param: BlockParam, strict: boolean): TipSet {
    const head = this.head;
    switch (param.kind) {
      case 'tag':
        switch (param.tag) {
          case 'pending':
            return head;
          case 'latest':
            return this.latest();
          case 'safe':
            return this.#atOrBefore(head.height - SAFE_EPOCH_DELAY, head);
          case 'finalized':
            return this.#atOrBefore(head.height - FINALITY, head);
          case 'earliest':
            throw callFailed('block param "earliest" is not supported');
        }
        break;
      case 'number': {
        if (param.height > head.height - 1n && !(head.height === 0n && param.height === 0n)) {
          throw callFailed("requested a future epoch (beyond 'latest')");
        }
        const tipSet = this.#chain.store.getTipSetByHeight(param.height, head, true);
        if (tipSet.height !== param.height && strict) {
          throw new JsonRpcError(NULL_ROUND_CODE, `requested epoch was a null round (${param.height})`, {
            data: Number(param.height),
          });
        }
        return tipSet;
      }
      case 'hash': {
        const tipSet = this.byHash(param.hash);
        if (tipSet === undefined) throw callFailed(`cannot find tipset with hash ${hexData(param.hash)}`);
        if (param.requireCanonical && !this.isCanonical(tipSet)) {
          throw callFailed(`tipset ${hexData(param.hash)} is not canonical`);
        }
        return tipSet;
      }
    }
    throw callFailed('unknown block parameter');
  }

  /** The tipset of an Ethereum block hash, or undefined when this node does not know it. */
  byHash(hash: Uint8Array): TipSet | undefined {
    const key = this.#index.tipSetOf(hash);
    if (key !== undefined) return this.#chain.store.loadTipSet(key);
    // The indexer may not have seen the newest head change yet.
    for (const tipSet of [this.head, this.latest()]) {
      if (bytesEqual(ethBlockHash(tipSet), hash)) return tipSet;
    }
    return undefined;
  }

  isCanonical(tipSet: TipSet): boolean {
    const head = this.head;
    if (tipSet.height > head.height) return false;
    return this.#chain.store.getTipSetByHeight(tipSet.height, head, true).equals(tipSet);
  }

  #atOrBefore(height: bigint, head: TipSet): TipSet {
    return this.#chain.store.getTipSetByHeight(height < 0n ? 0n : height, head, true);
  }
}

const tipSetsCache = new WeakMap<object, EthTipSets>();

/** The tipset resolver of a node's chain and hash index. */
export function ethTipSets(context: ServedContext<'chain' | 'eth'>): EthTipSets {
  let tipSets = tipSetsCache.get(context.chain);
  if (tipSets === undefined) {
    tipSets = new EthTipSets(context.chain, context.eth.index);
    tipSetsCache.set(context.chain, tipSets);
  }
  return tipSets;
}

/** A tipset's messages (Lotus `MessagesForTipset`) with their receipts from executing it. */
export interface ExecutedTipSet {
  readonly tipSet: TipSet;
  readonly messages: readonly ChainMessage[];
  readonly receipts: readonly MessageReceipt[];
  /** The state after the tipset's messages. */
  readonly state: StateTree;
  readonly stateRoot: CID;
}

const executedCache = new WeakMap<TipSet, ExecutedTipSet>();

export async function executedTipSet(chain: ChainContext, tipSet: TipSet): Promise<ExecutedTipSet> {
  const cached = executedCache.get(tipSet);
  if (cached !== undefined) return cached;
  const { stateRoot, receiptsRoot } = await chain.states.stateOf(tipSet);
  const messages = chain.store.tipSetMessages(tipSet);
  const receipts = chain.store.readReceipts(receiptsRoot);
  if (receipts.length !== messages.length) {
    throw callFailed(
      `receipts and messages of tipset ${tipSet.key} do not match (${receipts.length} ≠ ${messages.length})`,
    );
  }
  const executed = {
    tipSet,
    messages,
    receipts,
    stateRoot,
    state: StateTree.load(chain.store.blockstore, stateRoot),
  };
  executedCache.set(tipSet, executed);
  return executed;
}

/** The state after `tipSet` (Lotus `TipSetState`): recorded once a child exists, else executed now. */
export async function stateAfter(chain: ChainContext, tipSet: TipSet): Promise<StateTree> {
  const { stateRoot } = await chain.states.stateOf(tipSet);
  return StateTree.load(chain.store.blockstore, stateRoot);
}

/**
 * Lotus `lookupEthAddress`: an f410 address as itself, else the actor's f410 delegated address,
 * else its masked ID; undefined when the address has no actor and is not an ID.
 */
export function lookupEthAddress(tree: StateTree, address: Address): string | undefined {
  if (isEthAddress(address)) return ethAddressFromAddress(address);
  const id = address.protocol === AddressProtocol.ID ? address.id() : tree.lookupId(address);
  if (id === undefined) return undefined;
  const delegated = tree.getActor(id)?.delegatedAddress;
  if (delegated != null && isEthAddress(delegated)) return ethAddressFromAddress(delegated);
  return ethAddressFromAddress(Address.newId(id));
}

/** Lotus `EthTx` JSON. */
export interface EthTxJson {
  chainId: string;
  nonce: string;
  hash: string;
  blockHash: string | null;
  blockNumber: string | null;
  transactionIndex: string | null;
  from: string;
  to: string | null;
  value: string;
  type: string;
  input: string;
  gas: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  gasPrice?: string;
  accessList: string[];
  v: string;
  r: string;
  s: string;
}

/** Where a mined transaction sits; null fields for a pending one. */
export interface TxLocation {
  readonly tipSet: TipSet;
  readonly index: number;
}

/** Lotus `encodeFilecoinParamsAsABI`: the selector, then (method, codec, params) as Solidity ABI words. */
export function nativeCallInput(method: bigint, params: Uint8Array): Uint8Array {
  const codec = params.length > 0 ? CBOR_CODEC : 0n;
  const words = 4 + Math.ceil(params.length / 32);
  const out = new Uint8Array(NATIVE_METHOD_SELECTOR.length + words * 32);
  out.set(NATIVE_METHOD_SELECTOR);
  const view = new DataView(out.buffer);
  const staticArgs = [method, codec, 96n, BigInt(params.length)];
  staticArgs.forEach((arg, i) => {
    view.setBigUint64(NATIVE_METHOD_SELECTOR.length + (i + 1) * 32 - 8, arg);
  });
  out.set(params, NATIVE_METHOD_SELECTOR.length + 4 * 32);
  return out;
}

/** The bytes of a CBOR byte string (how InvokeContract and CreateExternal carry EVM input), or undefined. */
function cborByteString(params: Uint8Array): Uint8Array | undefined {
  if (params.length === 0) return new Uint8Array(0);
  try {
    return readBytes(decodeChainCbor(params, 'params'), 'params');
  } catch {
    // Lotus shows undecodable params as a native call (`ethTxFromNativeMessage`).
    return undefined;
  }
}

function locationFields(location: TxLocation | undefined) {
  return {
    blockHash: location === undefined ? null : hexData(ethBlockHash(location.tipSet)),
    blockNumber: location === undefined ? null : quantity(location.tipSet.height),
    transactionIndex: location === undefined ? null : quantity(location.index),
  };
}

function ethTxJsonOfTransaction(
  tx: EthTransaction,
  from: string,
  hash: Uint8Array,
  location: TxLocation | undefined,
  chainId: number,
): EthTxJson {
  const fees =
    tx.type === 2
      ? { maxFeePerGas: quantity(tx.maxFeePerGas), maxPriorityFeePerGas: quantity(tx.maxPriorityFeePerGas) }
      : { gasPrice: quantity(tx.maxFeePerGas) };
  return {
    chainId: quantity(tx.chainId ?? (tx.type === 2 ? chainId : 0)),
    nonce: quantity(tx.nonce),
    hash: hexData(hash),
    ...locationFields(location),
    from,
    to: tx.to === null ? null : hexData(tx.to),
    value: quantity(tx.value),
    type: quantity(tx.type),
    input: hexData(tx.input),
    gas: quantity(tx.gasLimit),
    ...fees,
    accessList: [],
    v: quantity(tx.v),
    r: quantity(tx.r),
    s: quantity(tx.s),
  };
}

/** Lotus `ethTxFromNativeMessage`: a message signed with a Filecoin key, as an EIP-1559 transaction. */
function ethTxJsonOfNative(
  message: Message,
  hash: Uint8Array,
  tree: StateTree,
  location: TxLocation | undefined,
  chainId: number,
): EthTxJson {
  const from = lookupEthAddress(tree, message.from);
  if (from === undefined) throw callFailed(`failed to lookup sender address ${message.from}`);
  let to: string | null = lookupEthAddress(tree, message.to) ?? REVERTED_ETH_ADDRESS;
  let input = nativeCallInput(message.method, message.params);
  if (message.method === INVOKE_CONTRACT_METHOD) {
    input = cborByteString(message.params) ?? input;
  } else if (message.method === CREATE_EXTERNAL_METHOD && message.to.equals(EAM_ADDRESS)) {
    const initcode = cborByteString(message.params);
    if (initcode !== undefined) [input, to] = [initcode, null];
  }
  return {
    chainId: quantity(chainId),
    nonce: quantity(message.nonce),
    hash: hexData(hash),
    ...locationFields(location),
    from,
    to,
    value: quantity(message.value),
    type: '0x2',
    input: hexData(input),
    gas: quantity(message.gasLimit),
    maxFeePerGas: quantity(message.gasFeeCap),
    maxPriorityFeePerGas: quantity(message.gasPremium),
    accessList: [],
    v: '0x0',
    r: '0x0',
    s: '0x0',
  };
}

/** Lotus `newEthTxFromSignedMessage`: any signed message (BLS ones with a placeholder signature) as a transaction. */
export function ethTxJson(
  signed: SignedMessage,
  tree: StateTree,
  location: TxLocation | undefined,
  chainId: number,
): EthTxJson {
  if (signed.signature.type === SignatureType.Delegated) {
    const tx = ethTransactionFromSignedMessage(signed, chainId);
    return ethTxJsonOfTransaction(
      tx,
      ethAddressFromAddress(signed.message.from),
      ethTransactionHash(tx),
      location,
      chainId,
    );
  }
  return ethTxJsonOfNative(signed.message, ethTxHashOf(signed, chainId), tree, location, chainId);
}

/** The SignedMessage behind a chain message (BLS ones with a placeholder signature). */
export function signedMessageOf(chain: ChainContext, message: ChainMessage): SignedMessage {
  return signedMessageOfChainMessage(chain.store.blockstore, message);
}

/** Lotus `EthTxReceipt` JSON. */
export interface EthReceiptJson {
  transactionHash: string;
  transactionIndex: string;
  blockHash: string;
  blockNumber: string;
  from: string;
  to: string | null;
  root: string;
  status: string;
  contractAddress: string | null;
  cumulativeGasUsed: string;
  gasUsed: string;
  effectiveGasPrice: string;
  logsBloom: string;
  logs: EthLogJson[];
  type: string;
}

/** Lotus `EthLog` JSON. */
export interface EthLogJson {
  address: string;
  data: string;
  topics: string[];
  removed: boolean;
  logIndex: string;
  transactionIndex: string;
  transactionHash: string;
  blockHash: string;
  blockNumber: string;
}

export function ethLogJson(log: EthLogRecord, removed = false): EthLogJson {
  return {
    address: hexData(log.address),
    data: hexData(log.data),
    topics: log.topics.map(hexData),
    removed,
    logIndex: quantity(log.logIndex),
    transactionIndex: quantity(log.transactionIndex),
    transactionHash: hexData(log.transactionHash),
    blockHash: hexData(log.blockHash),
    blockNumber: quantity(log.blockNumber),
  };
}

/**
 * The 0x address of the contract a deploy created: the `eth_address` of the EAM's
 * CreateExternalReturn `[actor_id, robust_address, eth_address]` (filecoin-project/builtin-actors
 * `actors/eam/src/lib.rs`); null when the return does not decode.
 */
function deployedAddress(returned: Uint8Array): string | null {
  try {
    const node = decodeChainCbor(returned, 'CreateExternalReturn');
    if (!Array.isArray(node) || node.length !== 3) return null;
    const address = readBytes(node[2] as CborNode, 'CreateExternalReturn.eth_address');
    return address.length === 20 ? hexData(address) : null;
  } catch {
    return null;
  }
}

/** Lotus `newEthTxReceipt`: `logs` are the transaction's logs (block-wide indexes). */
export function ethReceiptJson(
  tx: EthTxJson,
  receipt: MessageReceipt,
  baseFee: bigint,
  logs: readonly EthLogRecord[] = [],
): EthReceiptJson {
  const gasUsed = receipt.gasUsed;
  const feeCap = BigInt(tx.maxFeePerGas ?? tx.gasPrice ?? '0x0');
  const premium = BigInt(tx.maxPriorityFeePerGas ?? tx.gasPrice ?? '0x0');
  const outputs = computeGasOutputs(gasUsed, BigInt(tx.gas), baseFee, feeCap, premium);
  const spent = outputs.baseFeeBurn + outputs.minerTip + outputs.overEstimationBurn;
  const succeeded = receipt.exitCode === 0n;
  return {
    transactionHash: tx.hash,
    transactionIndex: tx.transactionIndex ?? '0x0',
    blockHash: tx.blockHash ?? ZERO_HASH,
    blockNumber: tx.blockNumber ?? '0x0',
    from: tx.from,
    to: tx.to,
    root: ZERO_HASH,
    status: succeeded ? '0x1' : '0x0',
    contractAddress: tx.to === null && succeeded ? deployedAddress(receipt.return) : null,
    cumulativeGasUsed: '0x0',
    gasUsed: quantity(gasUsed),
    effectiveGasPrice: quantity(gasUsed > 0n ? spent / gasUsed : 0n),
    logsBloom: hexData(logsBloom(logs)),
    logs: logs.map((log) => ethLogJson(log)),
    type: tx.type,
  };
}

const logsCache = new WeakMap<ExecutedTipSet, EthLogRecord[]>();

/** Every EVM log of an executed tipset (cached with it). */
export function tipSetLogs(chain: ChainContext, executed: ExecutedTipSet): EthLogRecord[] {
  let logs = logsCache.get(executed);
  if (logs === undefined) {
    logs = executedLogs(chain.store.blockstore, executed, chain.params.eip155ChainId);
    logsCache.set(executed, logs);
  }
  return logs;
}

/** The logs of the transaction at `index` of an executed tipset. */
export function transactionLogs(chain: ChainContext, executed: ExecutedTipSet, index: number): EthLogRecord[] {
  return tipSetLogs(chain, executed).filter((log) => log.transactionIndex === index);
}

/** Lotus `EthBlock` JSON. */
export interface EthBlockJson {
  hash: string;
  parentHash: string;
  sha3Uncles: string;
  miner: string;
  stateRoot: string;
  transactionsRoot: string;
  receiptsRoot: string;
  logsBloom: string;
  difficulty: string;
  totalDifficulty: string;
  number: string;
  gasLimit: string;
  gasUsed: string;
  timestamp: string;
  extraData: string;
  mixHash: string;
  nonce: string;
  baseFeePerGas: string;
  size: string;
  transactions: Array<string | EthTxJson>;
  uncles: string[];
}

const txJsonCache = new LruCache<string, EthTxJson>(4096);

/** The transactions of an executed tipset, with their locations (cached: mined transactions never change). */
export function tipSetTransactions(chain: ChainContext, executed: ExecutedTipSet): EthTxJson[] {
  const chainId = chain.params.eip155ChainId;
  return executed.messages.map((message, index) => {
    const key = `${executed.tipSet.key}/${message.cid}`;
    let tx = txJsonCache.get(key);
    if (tx === undefined) {
      tx = ethTxJson(signedMessageOf(chain, message), executed.state, { tipSet: executed.tipSet, index }, chainId);
      txJsonCache.set(key, tx);
    }
    return tx;
  });
}

/** Lotus `newEthBlockFromFilecoinTipSet`. */
export async function ethBlockJson(
  chain: ChainContext,
  tipSet: TipSet,
  fullTransactions: boolean,
  index: EthIndex,
): Promise<EthBlockJson> {
  const bloom = index.bloomOf(ethBlockHash(tipSet));
  const executed = await executedTipSet(chain, tipSet);
  const transactions = tipSetTransactions(chain, executed);
  const gasUsed = executed.receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n);
  return {
    hash: hexData(ethBlockHash(tipSet)),
    parentHash: hexData(ethHashOfCid(tipSet.parents.cid())),
    sha3Uncles: EMPTY_UNCLES_HASH,
    miner: `0x${'00'.repeat(20)}`,
    stateRoot: ZERO_HASH,
    transactionsRoot: transactions.length === 0 ? EMPTY_TRIE_ROOT : ZERO_HASH,
    receiptsRoot: ZERO_HASH,
    // Lotus `newEthBlockLogsBloom`: the indexed bloom of the tipset's logs, all ones when it is not indexed (yet).
    logsBloom: bloom === undefined ? FULL_BLOOM : hexData(bloom),
    difficulty: '0x0',
    totalDifficulty: '0x0',
    number: quantity(tipSet.height),
    gasLimit: quantity(BLOCK_GAS_LIMIT * BigInt(tipSet.blocks.length)),
    gasUsed: quantity(gasUsed),
    timestamp: quantity(tipSet.blocks[0]!.timestamp),
    extraData: '0x',
    mixHash: ZERO_HASH,
    nonce: '0x0000000000000000',
    baseFeePerGas: quantity(tipSet.parentBaseFee),
    size: '0x0',
    transactions: fullTransactions ? transactions : transactions.map((tx) => tx.hash),
    uncles: [],
  };
}
