/**
 * The Ethereum JSON-RPC's chain and account methods, with Lotus's names (`Filecoin.EthChainId` …)
 * and the `eth_*` / `web3_*` aliases (filecoin-project/lotus `api/api_full.go`, `api/eth_aliases.go`,
 * `node/impl/eth/{basic,lookup,gas,filecoin}.go`). Served on /rpc/v1, as Lotus serves them.
 * Transactions and receipts are in eth-transactions.ts.
 */
import {
  type Actor,
  type Address,
  AddressProtocol,
  addressFromEthAddressBytes,
  ethAddressFromAddress,
  isEthAddress,
} from '../../types/index.js';
import { InvalidArgumentError } from '../../utils/errors.js';
import type { ServedContext } from '../context.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors.js';
import {
  BLOCK_GAS_LIMIT,
  type EthBlockJson,
  ethBlockJson,
  ethTipSets,
  executedTipSet,
  lookupEthAddress,
  stateAfter,
} from '../eth-chain.js';
import {
  type BlockParam,
  blockParam,
  ethAddressParam,
  ethAddressSchema,
  ethHashParam,
  hexData,
  optionalParam,
  quantity,
  quantitySchema,
  readBlockParam,
  readQuantity,
} from '../eth-codecs.js';
import { declareMethod, type ParamDeclaration } from '../method.js';
import { addressParam, booleanParam } from '../params.js';
import { addressResult, jsonResult } from '../results.js';
import { booleanSchema, stringSchema } from '../schemas.js';

/** Ethereum methods are Lotus v1 methods. */
const V1 = [1] as const;

export { ethTipSets };

const quantityResult = (name: string, description: string) => jsonResult<string>(name, description, quantitySchema);
const blockObjectSchema = { title: 'EthBlock', type: 'object' } as const;
const blockResult = jsonResult<EthBlockJson>('block', 'the block (tipset)', blockObjectSchema);
const stateBlockParam = blockParam(
  'blkParam',
  'the block whose post-state is read: a tag, a hex number or {blockHash}',
);
export const blockNumberParam: ParamDeclaration<ReturnType<typeof readBlockParam>, string> = {
  name: 'blkNum',
  description: 'a tag or a hex block number (a string, as Lotus takes it)',
  schema: { type: 'string' },
  decode: (json, path) => {
    if (typeof json !== 'string')
      throw new InvalidArgumentError(`${path}: expected a block tag or a hex block number as a string`);
    return readBlockParam(json, path);
  },
};

export const ethChainId = declareMethod({
  name: 'EthChainId',
  description: "The network's EIP-155 chain id (31415926 on the devnet, 314 on mainnet).",
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_chainId'],
  needs: ['chain'],
  params: [],
  result: quantityResult('chainId', 'the chain id'),
  handler: (_params, { chain }) => quantity(chain.params.eip155ChainId),
});

export const web3ClientVersion = declareMethod({
  name: 'Web3ClientVersion',
  description: "The node's version string.",
  permission: 'read',
  apiVersions: V1,
  aliases: ['web3_clientVersion'],
  params: [],
  result: jsonResult<string>('version', 'the client version', stringSchema),
  handler: (_params, { node }) => node.version,
});

export const ethAccounts = declareMethod({
  name: 'EthAccounts',
  description: 'Always the empty list: the node signs no Ethereum transactions for its callers.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_accounts'],
  params: [],
  result: jsonResult<string[]>('accounts', 'no accounts', { type: 'array', items: ethAddressSchema }),
  handler: () => [],
});

export const ethBlockNumber = declareMethod({
  name: 'EthBlockNumber',
  description: "The number of the latest executed block: the head's parent (0 at genesis).",
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_blockNumber'],
  needs: ['chain', 'eth'],
  params: [],
  result: quantityResult('number', 'the block number'),
  handler: (_params, context) => quantity(ethTipSets(context).latest().height),
});

export interface EthSyncingJson {
  startingBlock: string;
  currentBlock: string;
  highestBlock: string;
}

export const ethSyncing = declareMethod({
  name: 'EthSyncing',
  description: 'false when the node is in sync; otherwise the starting, current and highest block numbers.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_syncing'],
  needs: ['chain'],
  params: [],
  result: jsonResult<false | EthSyncingJson>('syncing', 'false, or the sync progress', {
    oneOf: [booleanSchema, { type: 'object' }],
  }),
  handler: (_params, context) => syncing(context),
});

function syncing(context: ServedContext<'chain'>): false | EthSyncingJson {
  const sync = context.net?.sync;
  if (sync === undefined || sync.isSynced()) return false;
  const head = context.chain.store.head().height;
  const workers = sync.state().ActiveSyncs;
  const heights = (pick: 'Base' | 'Target') =>
    workers.map((w) => w[pick]?.Height).filter((h): h is number => h !== undefined);
  return {
    startingBlock: quantity(Math.min(Number(head), ...heights('Base'))),
    currentBlock: quantity(head),
    highestBlock: quantity(Math.max(Number(head), ...heights('Target'))),
  };
}

/** The actor at an address in the state after a block (state methods: a null round reads the tipset before it). */
async function actorAfter(
  context: ServedContext<'chain' | 'eth'>,
  address: Address,
  block: BlockParam,
): Promise<Actor | undefined> {
  const tree = await stateAfter(context.chain, ethTipSets(context).resolve(block, false));
  const id = tree.lookupId(address);
  return id === undefined ? undefined : tree.getActor(id);
}

export const ethGetBalance = declareMethod({
  name: 'EthGetBalance',
  description: "An address's balance in attoFIL (= wei) after the given block; 0x0 for an address with no actor.",
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getBalance'],
  needs: ['chain', 'eth'],
  params: [ethAddressParam('address', 'the 0x address'), stateBlockParam],
  result: quantityResult('balance', 'the balance in attoFIL'),
  handler: async ([address, block], context) =>
    quantity((await actorAfter(context, addressFromEthAddressBytes(address), block))?.balance ?? 0n),
});

export const ethGetTransactionCount = declareMethod({
  name: 'EthGetTransactionCount',
  description:
    'The nonce of an address: with "pending" the next nonce the message pool expects (its pending messages included), else the sequence after the given block; 0x0 for an address with no actor.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getTransactionCount'],
  needs: ['chain', 'eth', 'mpool'],
  params: [ethAddressParam('sender', 'the 0x address'), stateBlockParam],
  result: quantityResult('nonce', 'the nonce'),
  handler: async ([sender, block], context) => {
    const address = addressFromEthAddressBytes(sender);
    if (block.kind === 'tag' && block.tag === 'pending') {
      try {
        return quantity(context.mpool.pool.getNonce(address));
      } catch {
        // Lotus answers 0 when the pool cannot resolve the sender.
        return quantity(0n);
      }
    }
    return quantity((await actorAfter(context, address, block))?.nonce ?? 0n);
  },
});

const fullTxParam = booleanParam('fullTxInfo', 'true for transaction objects, false for their hashes');

export const ethGetBlockByNumber = declareMethod({
  name: 'EthGetBlockByNumber',
  description:
    'A block (tipset) by tag or number: "latest" is the head\'s parent (its messages executed), "pending" the head; a null round is error 12. Every message in the tipset is a transaction.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getBlockByNumber'],
  needs: ['chain', 'eth'],
  expensive: true,
  params: [blockNumberParam, fullTxParam],
  result: blockResult,
  handler: ([block, full], context) =>
    ethBlockJson(context.chain, ethTipSets(context).resolve(block, true), full, context.eth.index),
});

export function tipSetByHash(context: ServedContext<'chain' | 'eth'>, hash: Uint8Array) {
  const tipSet = ethTipSets(context).byHash(hash);
  if (tipSet === undefined) {
    throw new JsonRpcError(JsonRpcErrorCode.CallFailed, `cannot find tipset with hash ${hexData(hash)}`);
  }
  return tipSet;
}

export const ethGetBlockByHash = declareMethod({
  name: 'EthGetBlockByHash',
  description: 'A block (tipset) by its hash (the digest of the tipset key CID).',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getBlockByHash'],
  needs: ['chain', 'eth'],
  expensive: true,
  params: [ethHashParam('blkHash', 'the block hash'), fullTxParam],
  result: blockResult,
  handler: ([hash, full], context) => ethBlockJson(context.chain, tipSetByHash(context, hash), full, context.eth.index),
});

export const ethGetBlockTransactionCountByNumber = declareMethod({
  name: 'EthGetBlockTransactionCountByNumber',
  description: 'The number of messages in a tipset, by tag or number; a null round is error 12.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getBlockTransactionCountByNumber'],
  needs: ['chain', 'eth'],
  params: [blockNumberParam],
  result: quantityResult('count', 'the number of transactions'),
  handler: ([block], context) => {
    const tipSet = ethTipSets(context).resolve(block, true);
    return quantity(context.chain.store.tipSetMessages(tipSet).length);
  },
});

export const ethGetBlockTransactionCountByHash = declareMethod({
  name: 'EthGetBlockTransactionCountByHash',
  description: 'The number of messages in a tipset, by block hash.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getBlockTransactionCountByHash'],
  needs: ['chain', 'eth'],
  params: [ethHashParam('blkHash', 'the block hash')],
  result: quantityResult('count', 'the number of transactions'),
  handler: ([hash], context) => quantity(context.chain.store.tipSetMessages(tipSetByHash(context, hash)).length),
});

export const ethAddressToFilecoinAddress = declareMethod({
  name: 'EthAddressToFilecoinAddress',
  description: 'The Filecoin form of a 0x address: f0N for a masked ID, else f410f… (no state lookup).',
  permission: 'read',
  apiVersions: V1,
  params: [ethAddressParam('ethAddress', 'the 0x address')],
  result: addressResult('the f0 or f410 address'),
  handler: ([ethAddress]) => addressFromEthAddressBytes(ethAddress),
});

export const filecoinAddressToEthAddress = declareMethod({
  name: 'FilecoinAddressToEthAddress',
  description:
    'The 0x form of a Filecoin address: f410 addresses and f0 IDs directly, f1/f2/f3 through their actor ID at the given block ("finalized" by default); an error when the address has no actor there.',
  permission: 'read',
  apiVersions: V1,
  needs: ['chain', 'eth'],
  params: [addressParam('filecoinAddress', 'any address'), optionalParam(stateBlockParam)],
  result: jsonResult<string>('ethAddress', 'the 0x address', ethAddressSchema),
  handler: async ([address, block], context) => {
    if (address.protocol === AddressProtocol.ID || address.protocol === AddressProtocol.Delegated) {
      if (address.protocol === AddressProtocol.Delegated && !isEthAddress(address)) {
        throw new InvalidArgumentError(`${address} is not an f410 Ethereum address`);
      }
      return ethAddressFromAddress(address);
    }
    const tipSets = ethTipSets(context);
    const tipSet = tipSets.resolve(block ?? { kind: 'tag', tag: 'finalized' }, false);
    const tree = await stateAfter(context.chain, tipSet);
    const id = tree.lookupId(address);
    if (id === undefined) {
      throw new JsonRpcError(JsonRpcErrorCode.CallFailed, `failed to lookup ID address: actor not found: ${address}`);
    }
    return lookupEthAddress(tree, address) ?? ethAddressFromAddress(address);
  },
});

export const ethGasPrice = declareMethod({
  name: 'EthGasPrice',
  description: "The head's base fee plus eth_maxPriorityFeePerGas, in attoFIL per gas.",
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_gasPrice'],
  needs: ['chain', 'mpool'],
  params: [],
  result: quantityResult('gasPrice', 'attoFIL per gas'),
  handler: (_params, { chain, mpool }) => quantity(chain.store.head().parentBaseFee + mpool.gas.estimateGasPremium(0)),
});

export const ethMaxPriorityFeePerGas = declareMethod({
  name: 'EthMaxPriorityFeePerGas',
  description: 'A gas premium likely to get a message in the next block (Lotus GasEstimateGasPremium).',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_maxPriorityFeePerGas'],
  needs: ['mpool'],
  params: [],
  result: quantityResult('premium', 'attoFIL per gas'),
  handler: (_params, { mpool }) => quantity(mpool.gas.estimateGasPremium(0)),
});

/** Lotus `MaxFeeHistoryBlocks` / `maxRewardPercentiles` (node/impl/eth/gas.go). */
const MAX_FEE_HISTORY_BLOCKS = 1024n;
const MAX_REWARD_PERCENTILES = 100;
/** Lotus `MinGasPremium`: the reward of a tipset without messages. */
const MIN_GAS_PREMIUM = 100_000n;

export interface EthFeeHistoryJson {
  oldestBlock: string;
  baseFeePerGas: string[];
  gasUsedRatio: number[];
  reward?: string[][];
}

const blockCountParam: ParamDeclaration<bigint, string | number> = {
  name: 'blkCount',
  description: 'how many blocks (at most 1024), a hex quantity or a number',
  schema: { oneOf: [quantitySchema, { type: 'integer', minimum: 0 }] },
  decode: (json, path) =>
    typeof json === 'number' && Number.isSafeInteger(json) && json >= 0 ? BigInt(json) : readQuantity(json, path),
};

const percentilesParam: ParamDeclaration<number[], number[]> = {
  name: 'rewardPercentiles',
  description: 'ascending percentiles (0–100) of the effective premiums to report per block',
  schema: { type: 'array', items: { type: 'number', minimum: 0, maximum: 100 } },
  decode: (json, path) => {
    if (!Array.isArray(json)) throw new InvalidArgumentError(`${path}: expected an array of numbers`);
    if (json.length > MAX_REWARD_PERCENTILES) {
      throw new InvalidArgumentError('length of the reward percentile array cannot be greater than 100');
    }
    return json.map((p, i) => {
      if (typeof p !== 'number' || p < 0 || p > 100) {
        throw new InvalidArgumentError(`invalid reward percentile: ${String(p)} should be between 0 and 100`);
      }
      const previous = json[i - 1] as number | undefined;
      if (previous !== undefined && p < previous) {
        throw new InvalidArgumentError(`invalid reward percentile: ${p} should be larger than ${previous}`);
      }
      return p;
    });
  },
};

/** Lotus `calculateRewardsAndGasUsed`: gas-weighted percentiles of the effective premiums. */
function rewardsAndGasUsed(
  percentiles: readonly number[],
  rewards: Array<{ reward: bigint; gasUsed: bigint }>,
): { rewards: bigint[]; gasUsed: bigint } {
  const gasUsed = rewards.reduce((sum, r) => sum + r.gasUsed, 0n);
  const result = percentiles.map(() => MIN_GAS_PREMIUM);
  if (rewards.length === 0) return { rewards: result, gasUsed };
  const sorted = [...rewards].sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0));
  let index = 0;
  let sum = 0n;
  percentiles.forEach((percentile, i) => {
    const threshold = BigInt(Math.floor((Number(gasUsed) * percentile) / 100));
    while (sum < threshold && index < sorted.length - 1) {
      sum += sorted[index]!.gasUsed;
      index++;
    }
    result[i] = sorted[index]!.reward;
  });
  return { rewards: result, gasUsed };
}

export const ethFeeHistory = declareMethod({
  name: 'EthFeeHistory',
  description:
    'Base fees, gas used ratios (of 10e9 gas per block) and, with percentiles, effective premiums of up to 1024 blocks ending at `newestBlkNum`. baseFeePerGas has one more entry, the newest repeated (the next base fee is not known before execution).',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_feeHistory'],
  needs: ['chain', 'eth'],
  expensive: true,
  params: [blockCountParam, blockNumberParam, optionalParam(percentilesParam)],
  result: jsonResult<EthFeeHistoryJson>('feeHistory', 'Lotus EthFeeHistory', {
    title: 'EthFeeHistory',
    type: 'object',
  }),
  handler: async ([count, newest, percentiles], context) => {
    if (count > MAX_FEE_HISTORY_BLOCKS) throw new InvalidArgumentError('block count should be smaller than 1024');
    let tipSet = ethTipSets(context).resolve(newest, false);
    const baseFees: bigint[] = [];
    const ratios: number[] = [];
    const rewards: bigint[][] = [];
    let oldest = tipSet.height;
    for (let included = 0n; included < count && tipSet.height > 0n; included++) {
      const baseFee = tipSet.parentBaseFee;
      const executed = await executedTipSet(context.chain, tipSet);
      const premiums = executed.messages.map(({ message }, i) => {
        // Lotus `EffectiveGasPremium`: the premium, capped by what the fee cap leaves above the base fee.
        const available = message.gasFeeCap - baseFee;
        const capped = message.gasPremium > available;
        return { reward: capped ? available : message.gasPremium, gasUsed: executed.receipts[i]!.gasUsed };
      });
      const computed = rewardsAndGasUsed(percentiles ?? [], premiums);
      baseFees.push(baseFee);
      ratios.push(Number(computed.gasUsed) / Number(BLOCK_GAS_LIMIT * BigInt(tipSet.blocks.length)));
      rewards.push(computed.rewards);
      oldest = tipSet.height;
      tipSet = context.chain.store.loadTipSet(tipSet.parents);
    }
    baseFees.reverse();
    ratios.reverse();
    rewards.reverse();
    const newestFee = baseFees[baseFees.length - 1];
    if (newestFee !== undefined) baseFees.push(newestFee);
    return {
      oldestBlock: quantity(oldest),
      baseFeePerGas: baseFees.map(quantity),
      gasUsedRatio: ratios,
      ...(percentiles === null ? {} : { reward: rewards.map((r) => r.map(quantity)) }),
    };
  },
});

export const ethMethods = [
  ethChainId,
  web3ClientVersion,
  ethAccounts,
  ethBlockNumber,
  ethSyncing,
  ethGetBalance,
  ethGetTransactionCount,
  ethGetBlockByNumber,
  ethGetBlockByHash,
  ethGetBlockTransactionCountByNumber,
  ethGetBlockTransactionCountByHash,
  ethAddressToFilecoinAddress,
  filecoinAddressToEthAddress,
  ethGasPrice,
  ethMaxPriorityFeePerGas,
  ethFeeHistory,
] as const;
