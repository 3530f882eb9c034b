/**
 * The Ethereum JSON-RPC's transaction methods (filecoin-project/lotus `node/impl/eth/{send,
 * transaction,gas}.go`): eth_sendRawTransaction turns a signed Ethereum transaction into a
 * delegated-signed Filecoin message and pushes it; eth_getTransactionByHash finds it in the pool
 * (block fields null) or on chain; eth_getTransactionReceipt answers null until the tipset after
 * its inclusion has executed it (with the transaction's logs; a deploy's contract address).
 */

import type { CID } from 'multiformats/cid';
import { cidOfEthHash, ethTxHashOf } from '../../chain/index.js';
import { StateTree } from '../../state/index.js';
import {
  type CidJson,
  cidToLotusJson,
  parseRawEthTransaction,
  type SignedMessage,
  type TipSet,
} from '../../types/index.js';
import { signedChainMessage } from '../../vm/index.js';
import { cidParam } from '../chain-codecs.js';
import type { ServedContext } from '../context.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors.js';
import {
  type EthReceiptJson,
  type EthTxJson,
  ethReceiptJson,
  ethTxJson,
  executedTipSet,
  signedMessageOf,
  tipSetTransactions,
  transactionLogs,
} from '../eth-chain.js';
import { blockParam, dataParam, ethHashParam, ethHashSchema, hexData, quantityParam } from '../eth-codecs.js';
import { declareMethod } from '../method.js';
import { jsonResult } from '../results.js';
import { cidSchema } from '../schemas.js';
import { blockNumberParam, ethTipSets, tipSetByHash } from './eth.js';

const V1 = [1] as const;

type TxContext = ServedContext<'chain' | 'eth' | 'mpool'>;

interface FoundTransaction {
  readonly tx: EthTxJson;
  /** Set once the transaction has been executed. */
  readonly executed?: { readonly receipt: EthReceiptJson };
}

/**
 * A transaction by its Ethereum hash: executed on the canonical chain, included in the head (not
 * executed yet), or pending in the pool. The hash is looked up in the index (delegated
 * transactions) or read as a CID digest (native messages), as Lotus does.
 */
async function findTransaction(context: TxContext, hash: Uint8Array): Promise<FoundTransaction | null> {
  const { chain } = context;
  const chainId = chain.params.eip155ChainId;
  const cid = context.eth.index.messageOf(hash) ?? cidOfEthHash(hash);
  const tipSets = ethTipSets(context);
  const inclusion = chain.store.findMessageInclusion(cid);
  if (inclusion !== undefined) {
    const included = chain.store.loadTipSet(inclusion.tipSet);
    if (tipSets.isCanonical(included)) {
      if (included.height < tipSets.head.height) {
        const executed = await executedTipSet(chain, included);
        const index = executed.messages.findIndex((m) => m.cid.equals(cid));
        if (index >= 0) {
          const tx = tipSetTransactions(chain, executed)[index]!;
          const logs = transactionLogs(chain, executed, index);
          return {
            tx,
            executed: { receipt: ethReceiptJson(tx, executed.receipts[index]!, included.parentBaseFee, logs) },
          };
        }
      } else {
        const messages = chain.store.tipSetMessages(included);
        const index = messages.findIndex((m) => m.cid.equals(cid));
        if (index >= 0) {
          const tree = StateTree.load(chain.store.blockstore, included.parentStateRoot);
          const signed = signedMessageOf(chain, messages[index]!);
          return { tx: ethTxJson(signed, tree, { tipSet: included, index }, chainId) };
        }
      }
    }
  }
  const pending = context.mpool.pool.pending().find((signed) => signedChainMessage(signed).cid.equals(cid));
  if (pending === undefined) return null;
  const tree = StateTree.load(chain.store.blockstore, tipSets.head.parentStateRoot);
  return { tx: ethTxJson(pending, tree, undefined, chainId) };
}

export const ethSendRawTransaction = declareMethod({
  name: 'EthSendRawTransaction',
  description:
    'Pushes a signed Ethereum transaction (EIP-1559, EIP-155 or homestead, for this chain id) to the message pool as a delegated-signed Filecoin message; returns its hash (keccak of the raw bytes).',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_sendRawTransaction'],
  needs: ['chain', 'eth', 'mpool'],
  params: [dataParam('rawTx', 'the signed transaction, hex')],
  result: jsonResult<string>('hash', 'the transaction hash', ethHashSchema),
  handler: async ([raw], context) => {
    const chainId = context.chain.params.eip155ChainId;
    const { signed, hash } = parseRawEthTransaction(raw, chainId);
    await context.mpool.pool.push(signed);
    context.eth.index.putTransaction(ethTxHashOf(signed, chainId), signedChainMessage(signed).cid);
    return hexData(hash);
  },
});

const txHashParam = ethHashParam('txHash', 'the transaction hash');
const txSchema = { title: 'EthTx', type: 'object' } as const;

export const ethGetTransactionByHash = declareMethod({
  name: 'EthGetTransactionByHash',
  description:
    'A transaction by hash: mined ones with their block, pending ones (in the message pool) with null block fields; null when unknown. Native Filecoin messages are found by the digest of their CID.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getTransactionByHash'],
  needs: ['chain', 'eth', 'mpool'],
  params: [txHashParam],
  result: jsonResult<EthTxJson | null>('tx', 'the transaction, or null', { oneOf: [txSchema, { type: 'null' }] }),
  handler: async ([hash], context) => (await findTransaction(context, hash))?.tx ?? null,
});

export const ethGetTransactionReceipt = declareMethod({
  name: 'EthGetTransactionReceipt',
  description:
    'The receipt of an executed transaction (status, gasUsed in Filecoin gas, effectiveGasPrice); null while it is pending or only included in the head, and for replaced transactions.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getTransactionReceipt'],
  needs: ['chain', 'eth', 'mpool'],
  params: [txHashParam],
  result: jsonResult<EthReceiptJson | null>('receipt', 'the receipt, or null', {
    oneOf: [{ title: 'EthTxReceipt', type: 'object' }, { type: 'null' }],
  }),
  handler: async ([hash], context) => (await findTransaction(context, hash))?.executed?.receipt ?? null,
});

/** The chain CID of a message this node knows (stored, or pending in the pool), or undefined. */
function knownMessage(context: TxContext, cid: CID): SignedMessage | undefined {
  const bytes = context.chain.store.blockstore.get(cid);
  if (bytes !== undefined) {
    const message = context.chain.store.getMessage(cid);
    return signedMessageOf(context.chain, { message, cid, chainLength: bytes.length });
  }
  return context.mpool.pool.pending().find((signed) => signedChainMessage(signed).cid.equals(cid));
}

export const ethGetMessageCidByTransactionHash = declareMethod({
  name: 'EthGetMessageCidByTransactionHash',
  description:
    "The CID of the Filecoin message behind a transaction hash (the signed message's for delegated and secp256k1 signatures); null when the node does not know it.",
  permission: 'read',
  apiVersions: V1,
  needs: ['chain', 'eth', 'mpool'],
  params: [txHashParam],
  result: jsonResult<CidJson | null>('cid', 'the message CID, or null', { oneOf: [cidSchema, { type: 'null' }] }),
  handler: ([hash], context) => {
    const cid = context.eth.index.messageOf(hash) ?? cidOfEthHash(hash);
    return knownMessage(context, cid) === undefined ? null : cidToLotusJson(cid);
  },
});

export const ethGetTransactionHashByCid = declareMethod({
  name: 'EthGetTransactionHashByCid',
  description:
    'The Ethereum transaction hash of a Filecoin message by its chain CID; null when the node does not know it.',
  permission: 'read',
  apiVersions: V1,
  needs: ['chain', 'eth', 'mpool'],
  params: [cidParam('cid', 'the message CID')],
  result: jsonResult<string | null>('hash', 'the transaction hash, or null', {
    oneOf: [ethHashSchema, { type: 'null' }],
  }),
  handler: ([cid], context) => {
    const signed = knownMessage(context, cid);
    return signed === undefined ? null : hexData(ethTxHashOf(signed, context.chain.params.eip155ChainId));
  },
});

/** Lotus `EthTxReceipt`s of every message of an executed tipset, in order. */
async function tipSetReceipts(context: TxContext, tipSet: TipSet): Promise<EthReceiptJson[]> {
  const executed = await executedTipSet(context.chain, tipSet);
  return tipSetTransactions(context.chain, executed).map((tx, i) =>
    ethReceiptJson(tx, executed.receipts[i]!, tipSet.parentBaseFee, transactionLogs(context.chain, executed, i)),
  );
}

export const ethGetBlockReceipts = declareMethod({
  name: 'EthGetBlockReceipts',
  description:
    'The receipts of every transaction of a block (tipset), in order; executes the tipset if it has not been executed yet. A null round is error 12.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getBlockReceipts'],
  needs: ['chain', 'eth', 'mpool'],
  expensive: true,
  params: [blockParam('blkParam', 'a tag, a hex block number or {blockHash}')],
  result: jsonResult<EthReceiptJson[]>('receipts', 'the receipts', {
    type: 'array',
    items: { title: 'EthTxReceipt', type: 'object' },
  }),
  handler: ([block], context) => tipSetReceipts(context, ethTipSets(context).resolve(block, true)),
});

/** The transaction at `index` of a tipset; an index past its messages is an error. */
async function transactionAt(context: TxContext, tipSet: TipSet, index: bigint): Promise<EthTxJson> {
  const transactions = tipSetTransactions(context.chain, await executedTipSet(context.chain, tipSet));
  const tx = transactions[Number(index)];
  if (index >= BigInt(transactions.length) || tx === undefined) {
    throw new JsonRpcError(
      JsonRpcErrorCode.CallFailed,
      `index ${index} out of range: tipset contains ${transactions.length} messages`,
    );
  }
  return tx;
}

const txIndexParam = quantityParam('txIndex', 'the position of the transaction in the block');

export const ethGetTransactionByBlockNumberAndIndex = declareMethod({
  name: 'EthGetTransactionByBlockNumberAndIndex',
  description: 'The transaction at a position of a block (tipset) given by tag or number; a null round is error 12.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getTransactionByBlockNumberAndIndex'],
  needs: ['chain', 'eth', 'mpool'],
  expensive: true,
  params: [blockNumberParam, txIndexParam],
  result: jsonResult<EthTxJson>('tx', 'the transaction', txSchema),
  handler: ([block, index], context) => transactionAt(context, ethTipSets(context).resolve(block, true), index),
});

export const ethGetTransactionByBlockHashAndIndex = declareMethod({
  name: 'EthGetTransactionByBlockHashAndIndex',
  description: 'The transaction at a position of a block (tipset) given by hash.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getTransactionByBlockHashAndIndex'],
  needs: ['chain', 'eth', 'mpool'],
  expensive: true,
  params: [ethHashParam('blkHash', 'the block hash'), txIndexParam],
  result: jsonResult<EthTxJson>('tx', 'the transaction', txSchema),
  handler: ([hash, index], context) => transactionAt(context, tipSetByHash(context, hash), index),
});

export const ethTransactionMethods = [
  ethSendRawTransaction,
  ethGetTransactionByHash,
  ethGetTransactionReceipt,
  ethGetMessageCidByTransactionHash,
  ethGetTransactionHashByCid,
  ethGetBlockReceipts,
  ethGetTransactionByBlockNumberAndIndex,
  ethGetTransactionByBlockHashAndIndex,
] as const;
