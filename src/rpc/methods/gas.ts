/**
 * Gas estimation methods with Lotus's parameters and errors (filecoin-project/lotus
 * `node/impl/full/gas.go`): an estimate that runs out of gas is JSON-RPC code 2, one whose message
 * fails is code 3 with the return data as hex in `data` (Lotus ErrOutOfGas / ErrExecutionReverted).
 */
import { GasEstimationError, GasEstimationErrorCode } from '../../mpool/index.js';
import { bigIntToLotusJson, toJsonInteger } from '../../types/index.js';
import { InvalidArgumentError } from '../../utils/errors.js';
import { messageResult, tipSetKeyParam } from '../chain-codecs.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors.js';
import { EXECUTION_REVERTED_CODE } from '../eth-revert.js';
import type { ResultDeclaration } from '../method.js';
import { addressParam, int64Param, messageParam, uint64Param } from '../params.js';
import { declareMpoolChainMethod as declareGasMethod, sendSpecParam } from './mpool.js';

/** go-jsonrpc code Lotus registers for an estimate that runs out of gas (a revert: EXECUTION_REVERTED_CODE). */
const OUT_OF_GAS_CODE = 2;

/** Runs a gas estimation with its failures as Lotus's JSON-RPC errors (codes 2 and 3). */
export async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GasEstimationError) {
      if (error.code === GasEstimationErrorCode.OutOfGas) {
        throw new JsonRpcError(OUT_OF_GAS_CODE, 'call ran out of gas', { cause: error });
      }
      if (error.code === GasEstimationErrorCode.ExecutionReverted) {
        throw new JsonRpcError(EXECUTION_REVERTED_CODE, error.message, { data: error.data, cause: error });
      }
    }
    throw error;
  }
}

const amountResult = (description: string): ResultDeclaration<bigint, string> => ({
  name: 'amount',
  description,
  schema: { type: 'string', pattern: '^-?[0-9]+$', description: 'attoFIL per gas unit' },
  encode: bigIntToLotusJson,
});

export const gasEstimateMessageGas = declareGasMethod({
  name: 'GasEstimateMessageGas',
  description:
    'Fills the unset gas fields of a message: GasLimit 0 → gas used × GasLimitOverestimation (1.25 by default, MpoolSetConfig), GasPremium "0" → GasEstimateGasPremium over 10 blocks, GasFeeCap "0" → GasEstimateFeeCap over 20 blocks; then caps GasFeeCap × GasLimit at MaxFee (0.07 FIL when "0" or null). The nonce is left alone.',
  permission: 'read',
  expensive: true,
  params: [
    messageParam('message', 'the message; zero gas fields are estimated'),
    sendSpecParam('spec', 'MessageSendSpec or null'),
    tipSetKeyParam('tipSetKey', 'null or [] for the head'),
  ],
  result: messageResult('the message with its gas fields set'),
  handler: ([message, spec, key], { chain, mpool }) =>
    mapped(() => mpool.gas.estimateMessageGas(message, spec ?? undefined, chain.store.tipSetOrHead(key))),
});

export const gasEstimateGasLimit = declareGasMethod({
  name: 'GasEstimateGasLimit',
  description:
    "The gas the message uses when applied on the head's state after the sender's pooled messages with lower nonces (raw, without overestimation).",
  permission: 'read',
  expensive: true,
  params: [messageParam('message', 'the message'), tipSetKeyParam('tipSetKey', 'null or [] for the head')],
  result: {
    name: 'gasLimit',
    description: 'gas units',
    schema: { type: 'integer' },
    encode: (gas: bigint) => toJsonInteger(gas),
  },
  handler: ([message, key], { chain, mpool }) =>
    mapped(() => mpool.gas.estimateGasLimit(message, chain.store.tipSetOrHead(key))),
});

export const gasEstimateFeeCap = declareGasMethod({
  name: 'GasEstimateFeeCap',
  description:
    "A fee cap that stays above the base fee for `maxQueueBlocks` blocks of maximal rises: the tipset's base fee × ⌊1.125^n × 256⌋/256, plus the message's GasPremium.",
  permission: 'read',
  params: [
    messageParam('message', 'the message (its GasPremium is added)'),
    int64Param(
      'maxQueueBlocks',
      'blocks the message may wait (at most 329: beyond, Lotus’s uint64 arithmetic overflows)',
    ),
    tipSetKeyParam('tipSetKey', 'null or [] for the head'),
  ],
  result: amountResult('the fee cap'),
  handler: ([message, blocks, key], { chain, mpool }) => {
    const tipSet = chain.store.tipSetOrHead(key);
    try {
      return mpool.gas.estimateFeeCap(message, Number(blocks), tipSet);
    } catch (error) {
      // Too many blocks is a bad parameter (see maxFeeCapQueueBlocks), not a failed call.
      if (!(error instanceof InvalidArgumentError)) throw error;
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `invalid params for 'GasEstimateFeeCap': ${error.message}`,
        {
          cause: error,
        },
      );
    }
  },
});

export const gasEstimateGasPremium = declareGasMethod({
  name: 'GasEstimateGasPremium',
  description:
    'The premium recent blocks paid (2 × nBlocksIncl tipsets back, at 55 % of their target gas from the top price; at least 100000, 150000 for 2 blocks, 200000 for 1), with ±1 % noise. Sender and gas limit are accepted and ignored, as in Lotus.',
  permission: 'read',
  expensive: true,
  params: [
    uint64Param('nBlocksIncl', 'how soon the message should be included, in blocks (1 to 128)'),
    addressParam('sender', 'ignored'),
    int64Param('gasLimit', 'ignored'),
    tipSetKeyParam('tipSetKey', 'null or [] for the head'),
  ],
  result: amountResult('the gas premium'),
  handler: ([blocks, _sender, _gasLimit, key], { chain, mpool }) =>
    mpool.gas.estimateGasPremium(Number(blocks > 1000n ? 1000n : blocks), chain.store.tipSetOrHead(key)),
});

export const gasMethods = [gasEstimateMessageGas, gasEstimateGasLimit, gasEstimateFeeCap, gasEstimateGasPremium];
