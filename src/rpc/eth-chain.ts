/**
 * The chain as the Ethereum JSON-RPC shows it (filecoin-project/lotus `node/impl/eth/utils.go`,
 * `tipsetresolver.go`, `chain/types/ethtypes/eth_types.go`): a tipset is a block, its hash the
 * digest of the tipset key's CID; every message is a transaction, hashed by keccak for
 * delegated-signed ones and by its CID's digest otherwise; messages in tipset N run when N+1 is
 * built, so receipts and "state at N" are N's post-state.
 */
import { ethBlockHash, ethHashOfCid, ethTxHashOf } from '../chain/index.js';
import type { EthIndex } from '../db/index.js';
import { StateTree } from '../state/index.js';
import {
  Address,
  AddressProtocol,
  CREATE_EXTERNAL_METHOD,
  decodeChainCbor,
  decodeSignedMessage,
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
import type { ChainContext } from './context.js';
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
const EMPTY_BLOOM = `0x${'00'.repeat(256)}`;

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

/** A tipset's messages (Lotus `MessagesForTipset`) with their receipts from executing it. */
export interface ExecutedTipSet {
  readonly tipSet: TipSet;
  readonly messages: readonly ChainMessage[];
  readonly receipts: readonly MessageReceipt[];
  /** The state after the tipset's messages. */
  readonly state: StateTree;
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
  const executed = { tipSet, messages, receipts, state: StateTree.load(chain.store.blockstore, stateRoot) };
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

/**
 * The SignedMessage behind a chain message: delegated and secp256k1 messages are stored signed
 * under their chain CID; a BLS message stands alone (its signature is aggregated in the block).
 */
export function signedMessageOf(chain: ChainContext, message: ChainMessage): SignedMessage {
  if (message.message.from.protocol !== AddressProtocol.BLS) {
    const bytes = chain.store.blockstore.get(message.cid);
    if (bytes !== undefined) {
      try {
        return decodeSignedMessage(bytes);
      } catch {
        // An unsigned message under this CID: a BLS message sent from an ID or other address.
      }
    }
  }
  return { message: message.message, signature: { type: SignatureType.BLS, data: new Uint8Array(0) } };
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
  logs: unknown[];
  type: string;
}

/** Lotus `newEthTxReceipt` for a transaction without events (no EVM exists yet to emit them). */
export function ethReceiptJson(tx: EthTxJson, receipt: MessageReceipt, baseFee: bigint): EthReceiptJson {
  const gasUsed = receipt.gasUsed;
  const feeCap = BigInt(tx.maxFeePerGas ?? tx.gasPrice ?? '0x0');
  const premium = BigInt(tx.maxPriorityFeePerGas ?? tx.gasPrice ?? '0x0');
  const outputs = computeGasOutputs(gasUsed, BigInt(tx.gas), baseFee, feeCap, premium);
  const spent = outputs.baseFeeBurn + outputs.minerTip + outputs.overEstimationBurn;
  return {
    transactionHash: tx.hash,
    transactionIndex: tx.transactionIndex ?? '0x0',
    blockHash: tx.blockHash ?? ZERO_HASH,
    blockNumber: tx.blockNumber ?? '0x0',
    from: tx.from,
    to: tx.to,
    root: ZERO_HASH,
    status: receipt.exitCode === 0n ? '0x1' : '0x0',
    // Deploys need the EAM's return; no contract can be deployed yet.
    contractAddress: null,
    cumulativeGasUsed: '0x0',
    gasUsed: quantity(gasUsed),
    effectiveGasPrice: quantity(gasUsed > 0n ? spent / gasUsed : 0n),
    logsBloom: EMPTY_BLOOM,
    logs: [],
    type: tx.type,
  };
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
): Promise<EthBlockJson> {
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
    // Lotus answers the indexed bloom of the tipset's events, or all ones without one; no events exist yet.
    logsBloom: FULL_BLOOM,
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
